#include "planning/run_setup.hpp"

#include <algorithm>

#include "models/comm/comm_on_cluster.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/scenario_error.hpp"
#include "calibration/step_inputs.hpp"

namespace clustersim::planning {
namespace {

// "checkpoint.interval_minutes" -> "/checkpoint/interval_minutes".
std::string pointer_of(const std::string& field) {
  std::string pointer = "/" + field;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return pointer;
}

PreparedRun finish(PreparedRun run, const std::string& source) {
  try {
    run.inputs = models::make_run_inputs(run.setup);
  } catch (const models::RunSetupError& error) {
    throw scenarios::ScenarioError(source, pointer_of(error.field()), error.rule());
  }
  run.checkpoint = models::run_checkpoint_costs(run.setup);
  run.steps = models::training_steps(run.setup.training);
  return run;
}

}  // namespace

PreparedRun prepare_run(const scenarios::Scenario& scenario, const std::string& source, double spot_per_node_s) {
  PreparedRun run;
  run.setup = {.model = scenario.model,
               .cluster = scenario.cluster,
               .parallelism = scenario.parallelism,
               .training = scenario.training,
               .failures = scenario.failures,
               .checkpoint = scenario.checkpoint,
               .storage = scenario.storage,
               .spot_per_node_s = spot_per_node_s};
  const models::StepInputs inputs = calibration::step_inputs(scenario);
  const models::StepReport report = models::step_report(inputs);
  run.setup.step_time_s = report.times.step_time_s;
  run.tokens_per_s = report.tokens_per_s;
  if (scenario.failures.link_reroute_fraction > 0 && scenario.cluster.num_gpus > scenario.cluster.gpus_per_node) {
    models::StepInputs degraded = inputs;
    const auto nics = static_cast<double>(scenario.cluster.nics_per_node);
    degraded.cluster.nic_bytes_per_s *= nics > 1 ? (nics - 1.0) / nics : 0.5;
    // The same constants as the healthy run, carried to the reduced NIC rate: the fitted curves
    // that cross nodes lose the lost link's share of their bandwidth (comm_on_cluster.hpp).
    degraded.comm = models::comm_on_cluster(inputs.comm, degraded.cluster);
    run.setup.degraded_step_time_s = models::step_report(degraded).times.step_time_s;
  }
  return finish(std::move(run), source);
}

PreparedRun with_checkpoint(const PreparedRun& run, const models::CheckpointSpec& checkpoint,
                            const std::string& source) {
  PreparedRun variant = run;
  variant.setup.checkpoint = checkpoint;
  return finish(std::move(variant), source);
}

}  // namespace clustersim::planning
