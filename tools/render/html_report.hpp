#pragma once
/// `--report FILE.html`: one self-contained HTML page (inline CSS and SVG; no script, font, image or
/// network reference) with the pictures of a run, a sweep or a plan:
/// - the pipeline timeline of one step: a row per stage, its compute lane (forward, backward,
///   optimizer; micro-batch numbers where a box is wide enough to hold them; idle-bubble time, when
///   neither compute nor communication runs, hatched) over its communication lane;
/// - the step-time breakdown: compute, exposed communication and bubble per stage and on average;
/// - the sweep ranking: tokens/s per GPU of the ranked layouts;
/// - the Pareto chart of a plan: time-to-train against cost, the front joined, the choice ringed.
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

namespace clustersim::tools {

/// HTML-escapes text for element content and attribute values.
std::string html_escape(std::string_view text);

/// The timeline from 0 to `window_end_ns` (0: the whole step).
std::string timeline_svg(const models::StepGraph& step, const sim::Timeline& timeline, std::int64_t window_end_ns = 0);
/// When the first stage finishes the backward of micro-batch pp + 3: a window wide enough to
/// show the warm-up and a few steady-state micro-batches with their numbers readable.
std::int64_t warm_up_end_ns(const models::StepGraph& step, const sim::Timeline& timeline);
/// The whole-step timeline, then the warm-up window when the step is long enough to need one.
std::string timeline_figures(const models::StepGraph& step, const sim::Timeline& timeline);
std::string breakdown_svg(const models::StepReport& report);
/// Bars for the first `top` rows that were simulated (rows already ranked).
std::string ranking_svg(const std::vector<planning::SweepRow>& rows, std::size_t top);

/// One point of the Pareto chart.
struct ParetoPoint {
  std::string label{};
  double days = 0.0;      // time to train
  double cost_usd = 0.0;
  bool on_front = false;
  bool chosen = false;
};
/// `deadline_days` and `budget_usd` are drawn as limits when positive.
std::string pareto_svg(const std::vector<ParetoPoint>& points, double deadline_days, double budget_usd);

/// The page `clustersim run --report` writes: the text report, the timeline and the breakdown.
std::string run_report_html(const scenarios::Scenario& scenario, const models::StepSimulation& sim);

/// A page under construction: a title, then sections of prepared HTML.
class HtmlPage {
 public:
  explicit HtmlPage(std::string title) : title_(std::move(title)) {}
  void heading(std::string_view text);
  void paragraph(std::string_view text);         // escaped
  void preformatted(std::string_view text);      // escaped, monospace (the text report)
  void raw(std::string html);                    // trusted fragment (an SVG from above)
  void step(const models::StepSimulation& sim);  // pipeline timeline and step-time breakdown
  std::string render() const;

 private:
  std::string title_;
  std::string body_;
};

}  // namespace clustersim::tools
