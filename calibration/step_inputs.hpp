#pragma once
/// A scenario's step-model inputs, as every command that simulates takes them: the specs of the
/// scenario with the built-in compute and communication constants of its GPU and fabric, replaced
/// by the calibration profile the scenario names (`calibration.profile`: a path relative to the
/// current directory, or "bundled" for the one compiled in for the scenario's GPU), if any; and,
/// for a profile with fitted intervals, the step time at both ends of them.
/// Errors: ScenarioError naming the profile's path and the JSON pointer of what is wrong (an
/// unreadable or invalid profile, or one made for another GPU), or /cluster/gpu for a GPU without
/// built-in compute constants.

#include <optional>
#include <string>
#include <vector>

#include "models/step/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::calibration {

models::StepInputs step_inputs(const scenarios::Scenario& scenario);

/// Step times with every interval-carrying constant of the scenario's profile at its fast and at
/// its slow end (profile_band); nullopt without a profile or without intervals.
struct StepTimeBand {
  double fast_s = 0.0;
  double slow_s = 0.0;
  std::vector<std::string> constants{};
};
std::optional<StepTimeBand> step_time_band(const scenarios::Scenario& scenario);

}  // namespace clustersim::calibration
