#include "tools/render/html_report.hpp"

#include <utility>

#include "tools/render/step_report.hpp"

namespace clustersim::tools {

std::string timeline_figures(const models::StepGraph& step, const sim::Timeline& timeline) {
  std::string html = timeline_svg(step, timeline);
  const std::int64_t warm_up = warm_up_end_ns(step, timeline);
  if (warm_up < timeline.makespan.ns() * 6 / 10) {
    html += "<p>The first micro-batches, numbered:</p>" + timeline_svg(step, timeline, warm_up);
  }
  return html;
}

std::string run_report_html(const scenarios::Scenario& scenario, const models::StepSimulation& sim) {
  HtmlPage page("clustersim run: " + scenario.name);
  page.step(sim, scenario.cluster.gpu.hbm_bytes);
  page.heading("Report");
  page.preformatted(step_report_text(scenario, sim.report));
  return page.render();
}

void HtmlPage::heading(std::string_view text) { body_ += "<h2>" + html_escape(text) + "</h2>\n"; }
void HtmlPage::paragraph(std::string_view text) { body_ += "<p>" + html_escape(text) + "</p>\n"; }
void HtmlPage::preformatted(std::string_view text) { body_ += "<pre>" + html_escape(text) + "</pre>\n"; }
void HtmlPage::table(const HtmlTable& table) { body_ += table_html(table) + "\n"; }
void HtmlPage::step(const models::StepSimulation& sim, double usable_hbm_bytes) {
  heading("Pipeline timeline of one step");
  raw(timeline_figures(sim.step, sim.timeline));
  heading("Step-time breakdown");
  raw(breakdown_svg(sim.report));
  heading("Memory per GPU");
  raw(charts::memory_svg(sim.report, usable_hbm_bytes));
}
void HtmlPage::raw(std::string html) {
  body_ += "<div class=\"figure\">" + std::move(html) + "</div>\n";
}

std::string HtmlPage::render() const {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title_) +
         "</title>\n<style>\n"
         "body { font-family: sans-serif; margin: 24px auto; padding: 0 16px; max-width: 1880px; color: #222; }\n"
         "h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }\n"
         "p, li { font-size: 15px; line-height: 1.4; }\n"
         "pre { background: #f6f6f6; padding: 10px; font-size: 13px; white-space: pre-wrap; "
         "overflow-wrap: anywhere; }\n"
         ".figure { width: 100%; }\n"
         "svg.chart { display: block; width: 100%; height: auto; }\n"
         "svg text { font-family: sans-serif; font-size: 14px; fill: #222; }\n"
         "svg text.tick, svg text.mb { font-size: 13px; }\n"
         "svg text.axis-title { font-size: 15px; }\n"
         ".table-wrap { width: 100%; }\n"
         "table.data { border-collapse: collapse; width: 100%; table-layout: auto; font-size: 14px; }\n"
         "table.data th, table.data td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; "
         "vertical-align: top; overflow-wrap: break-word; }\n"
         "table.data th { background: #eee; }\n"
         "table.data th.num { text-align: right; }\n"
         "table.data td.num { text-align: right; white-space: nowrap; }\n"
         "</style>\n</head>\n<body>\n<h1>" +
         html_escape(title_) + "</h1>\n" + body_ + "<p><small>Written by clustersim.</small></p>\n" +
         "</body>\n</html>\n";
}

}  // namespace clustersim::tools
