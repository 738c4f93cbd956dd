#include "tools/step_setup.hpp"

#include "calibration/apply_profile.hpp"
#include "scenarios/step_inputs.hpp"

namespace clustersim::tools {

models::StepInputs load_step_inputs(const scenarios::Scenario& scenario) {
  models::StepInputs inputs = scenarios::step_inputs(scenario);
  if (!scenario.calibration_profile.empty()) calibration::apply_profile(scenario.calibration_profile, inputs);
  return inputs;
}

}  // namespace clustersim::tools
