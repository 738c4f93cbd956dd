#pragma once
/// The Pareto chart of a plan: time to train against cost of every sized option, colour by GPU
/// type and marker by topology, the front (no option both faster and cheaper) joined, the
/// deadline and budget as dashed lines, and the chosen option ringed with its label placed where
/// it covers no other point, line or label. Options that land on the same point (topologies that
/// give the same step time and price, say) are drawn once and said as such: the marker carries
/// data-coincide="N" and the figure lists them below the chart.
/// Each axis is linear from zero, or log10 when its data spans more than 20x; the axis title
/// says which.

#include <cstddef>
#include <string>
#include <vector>

namespace clustersim::tools::charts {

struct ParetoPoint {
  std::string label{};
  double days = 0.0;  // time to train
  double cost_usd = 0.0;
  bool on_front = false;
  bool chosen = false;
  std::string gpu{};       // colour
  std::string topology{};  // marker
};

/// Groups of two or more points (indices, in order) that coincide: equal days and cost to a
/// millionth.
std::vector<std::vector<std::size_t>> coinciding_groups(const std::vector<ParetoPoint>& points);

/// data-chart "pareto"; `deadline_days` and `budget_usd` are drawn when positive.
std::string pareto_svg(const std::vector<ParetoPoint>& points, double deadline_days, double budget_usd);
/// The chart and, under it, the list of coinciding options (HTML).
std::string pareto_figure(const std::vector<ParetoPoint>& points, double deadline_days, double budget_usd);

}  // namespace clustersim::tools::charts
