#include "calibration/apply_profile.hpp"

#include "calibration/profile.hpp"
#include "scenarios/scenario_error.hpp"

namespace clustersim::calibration {

void apply_profile(const std::string& path, models::StepInputs& inputs) {
  CalibrationProfile profile = load_profile(path);
  if (profile.gpu != inputs.cluster.gpu.name) {
    throw scenarios::ScenarioError(path, "/gpu",
                                   "the profile is for \"" + profile.gpu + "\" but the scenario's GPU is \"" +
                                       inputs.cluster.gpu.name + "\"");
  }
  inputs.compute = std::move(profile.compute);
  inputs.comm = std::move(profile.comm);
}

}  // namespace clustersim::calibration
