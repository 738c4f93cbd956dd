#pragma once
/// Puts a calibration profile's constants into a run's step-model inputs: the compute profile and
/// the communication profile replace the built-in ones (the scenario's `calibration.profile`), and
/// the profile's fitted collective curves become CommProfile::curves, which models/collectives.hpp
/// uses for their own layouts and, shaped, for groups of several such nodes.
/// Source: profile.hpp (format), written by `clustersim calibrate`.

#include <string>

#include <string_view>
#include <vector>

#include "calibration/profile.hpp"
#include "models/step_model.hpp"

namespace clustersim::calibration {

/// The profile's fitted collectives as the step model's curves (SI units).
std::vector<models::CollectiveCurve> curves_of(const CalibrationProfile& profile);

/// `calibration.profile` naming the profile bundled for the scenario's GPU
/// (calibration/profiles/<gpu>.json, compiled in).
inline constexpr std::string_view kBundledProfile = "bundled";

/// Loads the profile at `path` (or the bundled one) and sets inputs.compute and inputs.comm from it. Throws
/// scenarios::ScenarioError "<path>: <pointer>: <rule>" for an unreadable or invalid profile, or
/// one made for another GPU than inputs.cluster.gpu ("/gpu").
void apply_profile(const std::string& path, models::StepInputs& inputs);

}  // namespace clustersim::calibration
