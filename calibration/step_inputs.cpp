#include "calibration/step_inputs.hpp"

#include <stdexcept>

#include "calibration/apply_profile.hpp"
#include "scenarios/scenario_error.hpp"

namespace clustersim::calibration {
namespace {

models::StepInputs builtin_step_inputs(const scenarios::Scenario& scenario) {
  models::StepInputs in{.model = scenario.model,
                        .parallelism = scenario.parallelism,
                        .training = scenario.training,
                        .cluster = scenario.cluster,
                        .compute = {},
                        .comm = models::default_comm_profile(scenario.cluster),
                        .fidelity = scenario.simulation.fidelity == scenarios::Fidelity::flow
                                        ? models::CommFidelity::flow
                                        : models::CommFidelity::analytic};
  try {
    in.compute = models::default_compute_profile(scenario.cluster.gpu.name);
  } catch (const std::exception& e) {
    throw scenarios::ScenarioError(scenario.name, "/cluster/gpu",
                                   "no compute profile for GPU '" + scenario.cluster.gpu.name + "': " + e.what());
  }
  return in;
}

}  // namespace

models::StepInputs step_inputs(const scenarios::Scenario& scenario) {
  models::StepInputs inputs = builtin_step_inputs(scenario);
  if (!scenario.calibration_profile.empty()) apply_profile(scenario.calibration_profile, inputs);
  return inputs;
}

std::optional<StepTimeBand> step_time_band(const scenarios::Scenario& scenario) {
  if (scenario.calibration_profile.empty()) return std::nullopt;
  const auto band = profile_band(scenario.calibration_profile, step_inputs(scenario));
  if (!band) return std::nullopt;
  return StepTimeBand{.fast_s = models::simulate_step(band->fast).report.times.step_time_s,
                      .slow_s = models::simulate_step(band->slow).report.times.step_time_s,
                      .constants = band->constants};
}

}  // namespace clustersim::calibration
