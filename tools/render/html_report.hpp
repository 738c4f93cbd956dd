#pragma once
/// `--report FILE.html`: one self-contained HTML page (inline CSS and SVG; no script, font, image or
/// network reference) with the pictures of a job. The charts
/// live in tools/render/charts/ (one file each) on the pieces of tools/render/svg/ (axes, legend,
/// palette); this file assembles pages:
/// - a step (run, the best layout of a sweep, the chosen option of a plan): the pipeline timeline
///   and its first micro-batches, the step-time breakdown, memory per GPU against usable HBM;
/// - the sweep ranking, the Pareto chart of a plan (their own files).
/// Every chart is an <svg class="chart" data-chart="NAME"> so that a check (and a reader's browser
/// tools) can find it; tests/tools/render/html_report_test.cpp renders the page in headless Chromium.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/step/step_builder.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/scenario.hpp"
#include "sim/timeline.hpp"
#include "planning/search/sweep_rows.hpp"
#include "tools/render/charts/breakdown_chart.hpp"
#include "tools/render/charts/pareto_chart.hpp"
#include "tools/render/charts/ranking_chart.hpp"
#include "tools/render/charts/timeline_chart.hpp"
#include "tools/render/svg/elements.hpp"
#include "tools/render/table.hpp"

namespace clustersim::tools {

using svg::html_escape;
using charts::timeline_svg;
using charts::warm_up_end_ns;
using charts::breakdown_svg;
using charts::ranking_svg;
using charts::ParetoPoint;
using charts::pareto_svg;

/// The whole-step timeline, then the warm-up window when the step is long enough to need one.
std::string timeline_figures(const models::StepGraph& step, const sim::Timeline& timeline);

/// The page `clustersim run --report` writes: timeline, breakdown, memory, then the text report.
std::string run_report_html(const scenarios::Scenario& scenario, const models::StepSimulation& sim);

/// A page under construction: a title, then sections of prepared HTML.
class HtmlPage {
 public:
  explicit HtmlPage(std::string title) : title_(std::move(title)) {}
  void heading(std::string_view text);
  void paragraph(std::string_view text);         // escaped
  void preformatted(std::string_view text);      // escaped, monospace, wrapped to the page
  void raw(std::string html);                    // trusted fragment (an SVG from above)
  void table(const HtmlTable& table);
  /// Pipeline timeline, step-time breakdown and memory per GPU (against `usable_hbm_bytes`
  /// when positive).
  void step(const models::StepSimulation& sim, double usable_hbm_bytes = 0.0);
  std::string render() const;

 private:
  std::string title_;
  std::string body_;
};

}  // namespace clustersim::tools
