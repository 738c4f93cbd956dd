#include "tools/step_setup.hpp"

#include "calibration/apply_profile.hpp"
#include "scenarios/step_inputs.hpp"

namespace clustersim::tools {

models::StepInputs load_step_inputs(const scenarios::Scenario& scenario) {
  models::StepInputs inputs = scenarios::step_inputs(scenario);
  if (!scenario.calibration_profile.empty()) calibration::apply_profile(scenario.calibration_profile, inputs);
  return inputs;
}

std::optional<StepTimeBand> step_time_band(const scenarios::Scenario& scenario) {
  if (scenario.calibration_profile.empty()) return std::nullopt;
  const auto band = calibration::profile_band(scenario.calibration_profile, load_step_inputs(scenario));
  if (!band) return std::nullopt;
  return StepTimeBand{.fast_s = models::simulate_step(band->fast).report.times.step_time_s,
                      .slow_s = models::simulate_step(band->slow).report.times.step_time_s,
                      .constants = band->constants};
}

}  // namespace clustersim::tools
