#pragma once
/// The sweep ranking: tokens per second per GPU of the layouts that fit, in rank order, each with
/// its step-time band as a whisker (tokens/s at the band's slow and fast ends). A layout that does
/// not fit in memory (or breaks a rule) has no throughput to draw: it is listed apart, in a table
/// with its reason (rows_apart), never drawn as a bar.

#include <cstddef>
#include <vector>

#include "planning/search/sweep_rows.hpp"

namespace clustersim::tools::charts {

/// The rows drawn: the first `top` simulated rows that fit, in the given (ranked) order.
std::vector<const planning::SweepRow*> ranked_bars(const std::vector<planning::SweepRow>& rows, std::size_t top);
/// The rows that are not drawn because they do not fit or break a rule, in order, at most `top`.
std::vector<const planning::SweepRow*> rows_apart(const std::vector<planning::SweepRow>& rows, std::size_t top);

/// data-chart "ranking".
std::string ranking_svg(const std::vector<planning::SweepRow>& rows, std::size_t top);

}  // namespace clustersim::tools::charts
