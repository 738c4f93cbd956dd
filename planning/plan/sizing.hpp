#pragma once
/// Sizing a training cluster before buying or renting it: the candidate sizes, the price of a
/// GPU type when the scenario gives none, the Pareto front of time-to-train against cost, and the
/// option to take.
/// Units: days (calendar, at the hours a day the cluster is used), US dollars.
/// Limitations: prices are point samples with dates (below); one price per GPU type.
/// Source: shared reference costs-topology-failures.md sections 1.1 and 1.4.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::planning {

/// Node counts to try between min and max (inclusive): powers of two and 1.5 x powers of two,
/// the sizes clusters are bought and rented in (8, 12, 16, 24, ...).
std::vector<std::int64_t> candidate_node_counts(std::int64_t min_nodes, std::int64_t max_nodes);

struct SourcedPrice {
  double usd = 0.0;  // 0: unknown
  std::string_view source{};
};

/// On-demand rent of one GPU-hour in an 8-GPU node, for GPU presets a plan searches.
SourcedPrice default_rent_usd_per_gpu_hour(std::string_view gpu);
/// Price of one 8-GPU server (HGX/DGX class) of that GPU, for build pricing.
SourcedPrice default_server_usd(std::string_view gpu);
/// Maximum input power of that server, for the energy and colocation of build pricing.
SourcedPrice default_node_power_w(std::string_view gpu);

/// One sized option as the choice sees it.
struct PlanPoint {
  double days = 0.0;
  double cost_usd = 0.0;
};

/// Whether each point is on the Pareto front: no other point is at most as slow and as costly
/// and better in one of the two. Of equal points only the first is on the front.
std::vector<bool> pareto_front(const std::vector<PlanPoint>& points);

/// The indices of the points on `front` (from pareto_front), fastest first.
std::vector<std::size_t> front_by_days(const std::vector<PlanPoint>& points, const std::vector<bool>& front);

/// The option to take: with a deadline, the cheapest that meets it (and the budget, if given);
/// with only a budget, the fastest within it; with neither, the cheapest. Ties go to the earlier
/// point. nullopt when nothing qualifies. Limits <= 0 mean "not given".
std::optional<std::size_t> choose_option(const std::vector<PlanPoint>& points, double deadline_days,
                                         double budget_usd);

}  // namespace clustersim::planning
