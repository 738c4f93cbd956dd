#pragma once
/// A scenario's step-model inputs, as every command that simulates takes them: the specs of the
/// scenario with the constants of a calibration profile: the one `calibration.profile` names (a
/// path relative to the current directory), else the one bundled for the scenario's GPU
/// (calibration/profiles/<gpu>.json, compiled in; "bundled" names it explicitly), or for a SKU
/// whose preset borrows a like part's constants ("compute_profile": h100-96gb-500w -> h100-sxm, the
/// same die, NVLink and NVSwitch) that part's. The built-in
/// compute constants and alpha-beta communication line of the GPU and fabric remain only for a
/// GPU without a bundled profile, or where `calibration.profile` is "built-in". The communication
/// constants are then carried to the scenario's network and latency keys
/// (models/comm/comm_on_cluster.hpp). For a named profile with fitted intervals, the step time at
/// both ends of them.
/// Errors: ScenarioError naming the profile's path and the JSON pointer of what is wrong (an
/// unreadable or invalid profile, or one made for another GPU), or /cluster/gpu for a GPU without
/// built-in compute constants.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/step/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::calibration {

models::StepInputs step_inputs(const scenarios::Scenario& scenario);

/// `calibration.profile` asking for the built-in constants even where a profile is bundled.
inline constexpr std::string_view kBuiltInConstants = "built-in";

/// The profile step_inputs applies: a path, "bundled", or "" for the built-in constants.
std::string resolved_profile(const scenarios::Scenario& scenario);

/// Which communication constants step_inputs uses, as outputs name them: "bundled profile
/// h100-sxm" (with " (borrowed by GPU)" for a like part's), "calibration profile PATH", "built-in alpha-beta line (no bundled profile for GPU
/// X)" or "built-in alpha-beta line (calibration.profile \"built-in\")".
std::string communication_constants(const scenarios::Scenario& scenario);

/// Step times with every interval-carrying constant of the scenario's profile at its fast and at
/// its slow end (profile_band); nullopt without a profile or without intervals.
struct StepTimeBand {
  double fast_s = 0.0;
  double slow_s = 0.0;
  std::vector<std::string> constants{};
};
std::optional<StepTimeBand> step_time_band(const scenarios::Scenario& scenario);

}  // namespace clustersim::calibration
