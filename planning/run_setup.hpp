#pragma once
/// From a loaded scenario to the inputs of the Monte Carlo run, shared by `clustersim failures`
/// and `clustersim tco`: the step time from the step model and, when link failures can be routed
/// around, the step time with one scale-out NIC link of each node down (NCCL rings run at the pace
/// of their slowest member, so one degraded node paces the job; the analytic step model expresses
/// that as every node's NIC bandwidth x (nics - 1) / nics, or x 1/2 with a single, dual-port NIC).
/// Errors become ScenarioErrors naming the scenario's source and the JSON pointer.

#include <string>

#include "models/run/run_inputs.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::planning {

struct PreparedRun {
  models::RunSetup setup{};
  models::RunInputs inputs{};
  models::CheckpointCosts checkpoint{};
  double tokens_per_s = 0.0;
  std::int64_t steps = 0;
};

/// `source` names the scenario in errors (its file, or "default scenario").
/// `spot_per_node_s`: spot preemptions to add as failures (renting spot), per node per second.
PreparedRun prepare_run(const scenarios::Scenario& scenario, const std::string& source,
                        double spot_per_node_s = 0.0);

/// The same run with another checkpoint spec (storage comparisons); the step times are reused.
PreparedRun with_checkpoint(const PreparedRun& run, const models::CheckpointSpec& checkpoint,
                            const std::string& source);

}  // namespace clustersim::planning
