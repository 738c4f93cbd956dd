#pragma once
/// Puts a calibration profile's constants into a run's step-model inputs: the compute profile and
/// the communication profile replace the built-in ones (the scenario's `calibration.profile`).
/// Limitations: the step model takes one efficiency per link class; the profile's per-collective
/// curves ("collectives") are not used by the step model yet.
/// Source: profile.hpp (format), written by `clustersim calibrate`.

#include <string>

#include "models/step_model.hpp"

namespace clustersim::calibration {

/// Loads the profile at `path` and sets inputs.compute and inputs.comm from it. Throws
/// scenarios::ScenarioError "<path>: <pointer>: <rule>" for an unreadable or invalid profile, or
/// one made for another GPU than inputs.cluster.gpu ("/gpu").
void apply_profile(const std::string& path, models::StepInputs& inputs);

}  // namespace clustersim::calibration
