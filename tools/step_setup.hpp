#pragma once
/// A scenario's step-model inputs as every command that simulates should take them: the presets'
/// built-in constants, replaced by the calibration profile the scenario names
/// (`calibration.profile`, a path relative to the current directory), if any.
/// Errors: ScenarioError naming the profile's path and the JSON pointer of what is wrong (an
/// unreadable or invalid profile, or one made for another GPU).

#include "models/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::tools {

models::StepInputs load_step_inputs(const scenarios::Scenario& scenario);

}  // namespace clustersim::tools
