#include "tools/render/collective_report.hpp"

#include <map>

#include <fmt/format.h>

#include "tools/render/charts/busbw_chart.hpp"
#include "tools/render/html_report.hpp"
#include "tools/render/svg/axis.hpp"

namespace clustersim::tools {

std::string collective_report_html(const NcclTestsRun& run, const std::string& scenario_name,
                                   const calibration::NcclTestsLog* measured) {
  HtmlPage page(fmt::format("clustersim collective: {} on {}", calibration::collective_name(run.op), scenario_name));
  page.paragraph(fmt::format("{} ranks on {} nodes of {} x {}, {} fidelity; constants: {}", run.ranks, run.nodes,
                             run.gpus_per_node, run.gpu, run.fidelity, run.constants));
  page.heading("Bus bandwidth against size");
  page.raw(charts::busbw_svg(run, measured));
  std::map<std::int64_t, double> measured_busbw;
  if (measured != nullptr) {
    for (const auto& row : measured->rows) measured_busbw[row.size_bytes] = charts::measured_busbw_gbps(row);
  }
  HtmlTable table{.name = "sizes", .headers = {"size", "bytes", "time (us)", "algbw (GB/s)", "busbw (GB/s)"},
                  .numeric = {true, true, true, true, true, true, true}};
  if (measured != nullptr) table.headers.insert(table.headers.end(), {"measured busbw (GB/s)", "predicted / measured"});
  for (const auto& row : run.rows) {
    std::vector<std::string> cells{svg::bytes_label(static_cast<double>(row.size_bytes)), std::to_string(row.size_bytes),
                                   fmt::format("{:.2f}", row.time_us), fmt::format("{:.2f}", row.algbw_gbps),
                                   fmt::format("{:.2f}", row.busbw_gbps)};
    if (measured != nullptr) {
      const auto found = measured_busbw.find(row.size_bytes);
      cells.push_back(found == measured_busbw.end() ? "" : fmt::format("{:.2f}", found->second));
      cells.push_back(found == measured_busbw.end() || !(found->second > 0)
                          ? ""
                          : fmt::format("{:.2f}", row.busbw_gbps / found->second));
    }
    table.rows.push_back(std::move(cells));
  }
  page.table(table);
  page.heading("Predicted nccl-tests output");
  page.preformatted(nccl_tests_text(run, scenario_name));
  return page.render();
}

}  // namespace clustersim::tools
