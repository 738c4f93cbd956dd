#pragma once
/// `sweep --search --flow-check N`: a search ranks every layout under the analytic fidelity, which
/// prices each collective by the NICs' count and rate and so cannot see contention, an
/// oversubscribed fat tree or a dragonfly's global links. The flow check re-simulates the first N
/// rows of that ranking that fit under the `flow` fidelity on the scenario's own network and ranks
/// those N among themselves by their flow step; the rows below keep their analytic step and rank.
/// N flow runs, no more: a re-rank of the analytic candidates, not a search under flow. For a
/// ranking that is exact under flow, search under the flow fidelity itself (its layouts bounded
/// by compute alone, step_bound.hpp). A layout too large for the flow fidelity's graph
/// (models::flow_graph_violation) keeps its analytic step.

#include <cstddef>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/search/sweep_rows.hpp"
#include "planning/validation/prediction_bands.hpp"

namespace clustersim::planning {

/// `rows` ranked (rank_rows) from a search of `base` (analytic fidelity) whose first `first` rows
/// are exact (simulated, not set aside). Returns the number of flow simulations run.
std::size_t flow_rerank(std::vector<SweepRow>& rows, const models::StepInputs& base, const PredictionBands& bands,
                        std::size_t first, unsigned jobs);

}  // namespace clustersim::planning
