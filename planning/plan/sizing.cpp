#include "planning/plan/sizing.hpp"

#include <algorithm>

namespace clustersim::planning {
namespace {

// A GB300 NVL72 rack, estimated at $3-4 million (secondary: awesomeagents.ai); its midpoint.
constexpr double kGb300RackUsd = 3.5e6;

}  // namespace

std::vector<std::int64_t> candidate_node_counts(std::int64_t min_nodes, std::int64_t max_nodes) {
  std::vector<std::int64_t> counts;
  for (std::int64_t power = 1; power <= max_nodes; power *= 2) {
    for (const std::int64_t n : {power, power + power / 2}) {
      if (n >= min_nodes && n <= max_nodes && (n == power || power >= 2)) counts.push_back(n);
    }
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

SourcedPrice default_rent_usd_per_gpu_hour(std::string_view gpu) {
  if (gpu == "h100-sxm") return {2.99, "Lambda on-demand 8x H100 SXM, 2024-09 (Epoch AI hardware prices)"};
  if (gpu == "h200-sxm") {
    return {3.66, "assumption: the H100 price x HGX H200 / HGX H100 server price per GPU, 39.1k / 31.9k (2025-01)"};
  }
  if (gpu == "b200") {
    return {4.44, "assumption: the H100 price x DGX B200 / HGX H100 price per GPU, 47.4k (2024-12) / 31.9k"};
  }
  if (gpu == "gb200") {
    return {3.94, "assumption: the H100 price x GB200 NVL72 / HGX H100 price per GPU, 42k (2024-25) / 31.9k"};
  }
  if (gpu == "gb300") {
    return {2.99 * (kGb300RackUsd / 72.0) / 31.9e3,
            "assumption: the H100 price x GB300 NVL72 / HGX H100 price per GPU, 48.6k (a rack estimated at $3-4M, "
            "awesomeagents.ai; the midpoint over 72 GPUs) / 31.9k"};
  }
  if (gpu == "a100-80gb") {
    return {1.79, "assumption, not in the shared reference: Lambda on-demand 8x A100 80GB SXM list price, 2024"};
  }
  return {};
}

SourcedPrice default_server_usd(std::string_view gpu) {
  if (gpu == "h100-sxm") return {255000.0, "HGX H100 8-GPU server, 2025-01 (Epoch AI hardware prices)"};
  if (gpu == "h200-sxm") return {313000.0, "HGX H200 8-GPU server, 2025-01 (Epoch AI hardware prices)"};
  if (gpu == "b200") return {379000.0, "DGX B200, EU reseller, 2024-12 (Epoch AI hardware prices)"};
  // A server is a compute tray of 4 GPUs: an 18th of a rack.
  if (gpu == "gb200") return {3.0e6 / 18.0, "GB200 NVL72 rack about $3M (secondary: xatakaon.com), per tray of 4 GPUs"};
  if (gpu == "gb300") {
    return {kGb300RackUsd / 18.0, "GB300 NVL72 rack estimated at $3-4M (secondary: awesomeagents.ai), the midpoint per tray of 4 GPUs"};
  }
  return {};
}

SourcedPrice default_node_power_w(std::string_view gpu) {
  if (gpu == "h100-sxm" || gpu == "h200-sxm") return {10200.0, "DGX H100/H200 user guide, maximum input power"};
  if (gpu == "b200") return {14300.0, "DGX B200 user guide, maximum input power"};
  if (gpu == "gb200") return {120e3 / 18.0, "GB200 NVL72 rack about 120 kW (secondary: ServeTheHome), per tray of 4 GPUs"};
  if (gpu == "gb300") {
    return {132e3 / 18.0, "GB300 NVL72 rack's power shelves, 132 kW DC out (secondary: introl.com, from Supermicro), per tray of 4 GPUs"};
  }
  if (gpu == "a100-80gb") return {6500.0, "assumption, not in the shared reference: DGX A100 maximum input power"};
  return {};
}

std::vector<bool> pareto_front(const std::vector<PlanPoint>& points) {
  std::vector<bool> front(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
      if (i == j) continue;
      const bool no_worse = points[j].days <= points[i].days && points[j].cost_usd <= points[i].cost_usd;
      const bool better = points[j].days < points[i].days || points[j].cost_usd < points[i].cost_usd;
      // An equal point earlier in the list takes the place on the front.
      dominated = no_worse && (better || j < i);
    }
    front[i] = !dominated;
  }
  return front;
}

std::vector<std::size_t> front_by_days(const std::vector<PlanPoint>& points, const std::vector<bool>& front) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (front[i]) order.push_back(i);
  }
  // Two points on the front never share a time (the faster-or-equal one would beat the other).
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return points[a].days < points[b].days; });
  return order;
}

std::optional<std::size_t> choose_option(const std::vector<PlanPoint>& points, double deadline_days,
                                         double budget_usd) {
  std::optional<std::size_t> best;
  const bool by_cost = deadline_days > 0 || budget_usd <= 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PlanPoint& p = points[i];
    if (deadline_days > 0 && p.days > deadline_days) continue;
    if (budget_usd > 0 && p.cost_usd > budget_usd) continue;
    if (!best) {
      best = i;
      continue;
    }
    const PlanPoint& b = points[*best];
    const bool better = by_cost ? (p.cost_usd < b.cost_usd || (p.cost_usd == b.cost_usd && p.days < b.days))
                                : (p.days < b.days || (p.days == b.days && p.cost_usd < b.cost_usd));
    if (better) best = i;
  }
  return best;
}

}  // namespace clustersim::planning
