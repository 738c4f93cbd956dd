#pragma once
/// A Scenario's step-model inputs: its specs plus the compute and communication profiles that go
/// with its GPU and fabric.

#include "models/step/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::scenarios {

/// Throws ScenarioError when no profile exists for the scenario's GPU.
models::StepInputs step_inputs(const Scenario& scenario);

}  // namespace clustersim::scenarios
