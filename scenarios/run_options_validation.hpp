#pragma once
/// Cross-field rules of the failures, checkpoint, storage and cost sections that need no step
/// time: one checkpoint interval, a checkpoint that survives the loss of a node, two distinct
/// targets. Rules that need the step time (an interval longer than the run) are checked where
/// the run is set up (models/run/run_inputs.hpp); missing prices by the tco command.

#include <optional>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {

std::optional<Violation> run_options_violation(const Scenario& scenario);

}  // namespace clustersim::scenarios
