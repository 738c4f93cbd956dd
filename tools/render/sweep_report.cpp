#include "tools/render/sweep_report.hpp"

#include <fmt/format.h>

#include "tools/render/charts/breakdown_chart.hpp"
#include "tools/render/charts/ranking_chart.hpp"

namespace clustersim::tools {
namespace {

constexpr double sweep_gib = 1024.0 * 1024.0 * 1024.0;

std::string row_name(const planning::SweepRow& row) {
  return row.name.empty() ? planning::layout_label(row.layout) : row.name;
}

}  // namespace

void add_sweep_rows(HtmlPage& page, const std::vector<planning::SweepRow>& ranked) {
  page.heading("Ranking of the layouts that fit");
  page.raw(charts::ranking_svg(ranked, report_ranking_rows));

  const auto apart = charts::rows_apart(ranked, report_apart_rows);
  if (!apart.empty()) {
    page.heading("Layouts that do not fit or break a rule (not ranked)");
    HtmlTable table{.name = "apart", .headers = {"row", "layout", "status", "memory per GPU (GiB)", "reason"},
                    .numeric = {true, false, false, true, false}};
    for (const planning::SweepRow* row : apart) {
      table.rows.push_back({std::to_string(row->index + 1), row_name(*row), std::string(planning::status_name(row->status)),
                            row->memory_bytes > 0 ? fmt::format("{:.1f}", row->memory_bytes / sweep_gib) : "",
                            row->reason});
    }
    page.table(table);
  }

  std::vector<charts::BreakdownBar> best;
  for (const planning::SweepRow* row : charts::ranked_bars(ranked, report_compared_layouts)) {
    best.push_back({.name = row_name(*row), .step_s = row->step_time_s,
                    .exposed_comm_fraction = row->exposed_comm_fraction, .bubble_fraction = row->bubble_fraction});
  }
  if (!best.empty()) {
    page.heading(fmt::format("Step-time breakdown of the best {}", best.size() == 1 ? "layout" : std::to_string(best.size()) + " layouts"));
    page.raw(charts::breakdown_compare_svg(best));
  }

  page.heading("Table");
  HtmlTable table{.name = "sweep",
                  .headers = {"rank", "layout", "status", "step (s)", "band (s)", "tokens/s per GPU", "MFU (%)",
                              "bubble (%)", "exposed comm (%)", "memory per GPU (GiB)", "fits", "reason"},
                  .numeric = {true, false, false, true, false, true, true, true, true, true, false, false}};
  for (std::size_t i = 0; i < ranked.size() && i < report_table_rows; ++i) {
    const planning::SweepRow& r = ranked[i];
    const bool simulated = r.status == planning::RowStatus::simulated;
    table.rows.push_back({std::to_string(i + 1), row_name(r), std::string(planning::status_name(r.status)),
                          r.step_time_s > 0 ? fmt::format("{:.3f}", r.step_time_s) : "",
                          r.band.slow_s > 0 ? fmt::format("{:.3f}-{:.3f}", r.band.fast_s, r.band.slow_s) : "",
                          simulated ? fmt::format("{:.0f}", r.tokens_per_s_per_gpu) : "",
                          simulated ? fmt::format("{:.1f}", 100 * r.mfu) : "",
                          simulated ? fmt::format("{:.1f}", 100 * r.bubble_fraction) : "",
                          simulated ? fmt::format("{:.1f}", 100 * r.exposed_comm_fraction) : "",
                          r.memory_bytes > 0 ? fmt::format("{:.1f}", r.memory_bytes / sweep_gib) : "",
                          r.fits ? "yes" : "no", r.reason});
  }
  page.table(table);
  if (ranked.size() > report_table_rows) {
    page.paragraph(fmt::format("The first {} of {} rows; the CSV (--csv) has them all.", report_table_rows, ranked.size()));
  }
}

}  // namespace clustersim::tools
