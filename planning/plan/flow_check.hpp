#pragma once
/// The flow check of a plan: the analytic fidelity prices a collective by the NICs' count and rate
/// alone, so it cannot tell a rail-optimized network from an oversubscribed fat tree or a
/// dragonfly. The options the plan lands on are therefore re-simulated under the `flow` fidelity
/// on their own topology, where collectives share the links of real routes (contention, the fat
/// tree's oversubscription, the dragonfly's global links): each such option re-runs its cluster's
/// `candidates` best analytic layouts under flow and keeps the one with the least slow end.
///
/// Which options: the Pareto front of the slow ends and the choice. Checking an option moves it,
/// so the front and the choice are computed again and any option that newly enters them is
/// checked too, until every option on them is flow-checked. An option left unchecked stays off
/// them on its analytic slow end; where the flow step is no faster than the analytic one (flow
/// adds contention to the same collective costs), it would stay off on its flow slow end as well.
/// Options off the front (the cheapest of a GPU type that is not on it, say) keep their analytic
/// step, and the output says which were checked.

#include <cstddef>
#include <vector>

#include "planning/plan/plan_clusters.hpp"
#include "planning/plan/plan_evaluation.hpp"
#include "planning/plan/plan_options.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::planning {

/// The default number of a cluster's best analytic layouts re-run under flow for an option:
/// close layouts reorder under contention, distant ones do not (as kTopologyCandidates).
inline constexpr std::size_t kFlowCandidates = 2;

/// The layouts `option`'s flow check runs (indices into runs.runs): its cluster's `candidates`
/// best by analytic slow end, but those too large for the flow fidelity's graph
/// (models::flow_graph_violation). With none left, `option.flow_not_checked` says why.
std::vector<std::size_t> flow_check_layouts(PlanOption& option, const std::vector<SizedCluster>& clusters,
                                            const LayoutRuns& runs, std::size_t candidates);

/// `option` with the layout of `run`, simulated under flow on the option's topology (its band
/// set, not yet priced).
PlanOption flow_trial(const PlanOption& option, const std::vector<SizedCluster>& clusters, const LayoutRuns& runs,
                      std::size_t run);

/// Of an option's trials, keeps the least slow end in `option` and prices it.
void keep_best_trial(PlanOption& option, std::vector<PlanOption> trials, const std::vector<SizedCluster>& clusters,
                     const OptionSettings& settings, const scenarios::Scenario& scenario);

}  // namespace clustersim::planning
