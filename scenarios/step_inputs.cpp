#include "scenarios/step_inputs.hpp"

#include <stdexcept>

#include "scenarios/scenario_error.hpp"

namespace clustersim::scenarios {

models::StepInputs step_inputs(const Scenario& scenario) {
  models::StepInputs in{.model = scenario.model,
                        .parallelism = scenario.parallelism,
                        .training = scenario.training,
                        .cluster = scenario.cluster,
                        .compute = {},
                        .comm = models::default_comm_profile(scenario.cluster),
                        .fidelity = scenario.simulation.fidelity == Fidelity::flow ? models::CommFidelity::flow
                                                                                  : models::CommFidelity::analytic};
  try {
    in.compute = models::default_compute_profile(scenario.cluster.gpu.name);
  } catch (const std::exception& e) {
    throw ScenarioError(scenario.name, "/cluster/gpu",
                        "no compute profile for GPU '" + scenario.cluster.gpu.name + "': " + e.what());
  }
  return in;
}

}  // namespace clustersim::scenarios
