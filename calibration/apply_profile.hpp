#pragma once
/// Puts a calibration profile's constants into a run's step-model inputs: the compute profile and
/// the communication profile replace the built-in ones (the scenario's `calibration.profile`), and
/// the profile's fitted collective curves become CommProfile::curves, which models/comm/collectives.hpp
/// uses for their own layouts and, shaped, for groups of several such nodes.
/// Source: profile.hpp (format), written by `clustersim calibrate`.

#include <string>

#include <optional>
#include <string_view>
#include <vector>

#include "calibration/profile.hpp"
#include "models/step/step_model.hpp"

namespace clustersim::calibration {

/// A profile's 95 % intervals as two sets of inputs: every constant with an interval at its fast
/// end, and at its slow end (efficiencies high / low, latencies and k_half low / high), the rest
/// as applied. Simulating both bounds the prediction by what the fit leaves uncertain.
/// Limitations: the ends are taken together, so the band is wider than a joint 95 % interval; the
/// fitted curves' own intervals are not used.
struct ProfileBand {
  models::StepInputs fast;
  models::StepInputs slow;
  std::vector<std::string> constants;  // pointers of the constants that carried an interval
};

/// `applied`: the inputs after apply_profile(path, ...). nullopt when no constant has an interval.
std::optional<ProfileBand> profile_band(const std::string& path, const models::StepInputs& applied);

/// The profile's fitted collectives as the step model's curves (SI units).
std::vector<models::CollectiveCurve> curves_of(const CalibrationProfile& profile);

/// `calibration.profile` naming the profile bundled for the scenario's GPU
/// (calibration/profiles/<gpu>.json, compiled in; for a preset that borrows a like part's
/// constants, scenarios::gpu_compute_profile, that part's).
inline constexpr std::string_view kBundledProfile = "bundled";

/// Loads the profile at `path` (or the bundled one) and sets inputs.compute and inputs.comm from it. Throws
/// scenarios::ScenarioError "<path>: <pointer>: <rule>" for an unreadable or invalid profile, or
/// one made for another GPU than inputs.cluster.gpu ("/gpu").
void apply_profile(const std::string& path, models::StepInputs& inputs);

}  // namespace clustersim::calibration
