#pragma once
/// The sweep's part of an HTML report (sweep and merge): the ranking chart of the layouts that fit,
/// with their step-time bands; the layouts that do not fit or break a rule, in a table with their
/// reason (never drawn as bars); the breakdown of the best few side by side; and the ranked rows
/// as an HTML table.

#include <vector>

#include "planning/search/sweep_rows.hpp"
#include "tools/render/html_report.hpp"

namespace clustersim::tools {

/// Bars of the ranking chart, rows of the "do not fit" table, layouts compared side by side, rows
/// of the full table.
inline constexpr std::size_t report_ranking_rows = 30;
inline constexpr std::size_t report_apart_rows = 30;
inline constexpr std::size_t report_compared_layouts = 4;
inline constexpr std::size_t report_table_rows = 200;

void add_sweep_rows(HtmlPage& page, const std::vector<planning::SweepRow>& ranked);

}  // namespace clustersim::tools
