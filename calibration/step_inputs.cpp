#include "calibration/step_inputs.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "calibration/apply_profile.hpp"
#include "models/comm/comm_on_cluster.hpp"
#include "models/compute/power_limit.hpp"
#include "scenarios/embedded_files.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_error.hpp"

namespace clustersim::calibration {
namespace {

models::StepInputs builtin_step_inputs(const scenarios::Scenario& scenario) {
  models::StepInputs in{.model = scenario.model,
                        .parallelism = scenario.parallelism,
                        .training = scenario.training,
                        .cluster = scenario.cluster,
                        .compute = {},
                        .comm = models::default_comm_profile(scenario.cluster),
                        .fidelity = scenario.simulation.fidelity == scenarios::Fidelity::flow
                                        ? models::CommFidelity::flow
                                        : models::CommFidelity::analytic};
  try {
    in.compute = models::default_compute_profile(scenarios::gpu_compute_profile(scenario.cluster.gpu.name));
  } catch (const std::exception& e) {
    throw scenarios::ScenarioError(scenario.name, "/cluster/gpu",
                                   "no compute profile for GPU '" + scenario.cluster.gpu.name + "': " + e.what());
  }
  return in;
}

// The GPU's own bundled profile, or that of the like part its preset borrows constants from.
std::string bundled_profile_gpu(const scenarios::Scenario& scenario) {
  return scenarios::gpu_compute_profile(scenario.cluster.gpu.name);
}

bool has_bundled_profile(const scenarios::Scenario& scenario) {
  return scenarios::find_embedded_file("calibration/profiles/" + bundled_profile_gpu(scenario) + ".json") != nullptr;
}

}  // namespace

std::string resolved_profile(const scenarios::Scenario& scenario) {
  const std::string& named = scenario.calibration_profile;
  if (named == kBuiltInConstants) return "";
  if (!named.empty()) return named;
  return has_bundled_profile(scenario) ? std::string(kBundledProfile) : "";
}

std::string communication_constants(const scenarios::Scenario& scenario) {
  const std::string profile = resolved_profile(scenario);
  if (profile == kBundledProfile) {
    const std::string like = bundled_profile_gpu(scenario);
    return "bundled profile " + like + (like == scenario.cluster.gpu.name ? "" : " (borrowed by " + scenario.cluster.gpu.name + ")");
  }
  if (!profile.empty()) return "calibration profile " + profile;
  if (scenario.calibration_profile == kBuiltInConstants) return "built-in alpha-beta line (calibration.profile \"built-in\")";
  return "built-in alpha-beta line (no bundled profile for GPU " + scenario.cluster.gpu.name + ")";
}

namespace {

// The profile's clock is the one its GPU holds under its rated power limit; a board held to a
// lower limit (cluster.gpu.power_w) runs its tensor cores at a lower clock (power_limit.hpp).
void apply_power_limit(const scenarios::Scenario& scenario, models::StepInputs& inputs) {
  const double limit_w = scenario.cluster.gpu.power_w;
  const models::PowerEnvelope envelope = models::power_envelope(bundled_profile_gpu(scenario));
  double factor = 1.0;
  try {
    factor = models::power_limited_clock_factor(envelope, limit_w);
  } catch (const std::invalid_argument& e) {
    throw scenarios::ScenarioError(scenario.name, "/cluster/gpu/power_w", e.what());
  }
  if (factor == 1.0) return;
  models::Sourced<double>& clock = inputs.compute.sustained_clock_ratio;
  clock.value *= factor;
  clock.source += fmt::format("; x {:.4f} under a {:g} W power limit: ((P - {:.0f} W idle) / ({:.0f} W rated - idle))^(1/3) "
                              "(models/compute/power_limit.hpp)",
                              factor, limit_w, envelope.idle_w.value, envelope.rated_w.value);
}

// The constants as the profile states them, before they are carried to the scenario's network.
models::StepInputs measured_inputs(const scenarios::Scenario& scenario) {
  models::StepInputs inputs = builtin_step_inputs(scenario);
  if (const std::string profile = resolved_profile(scenario); !profile.empty()) apply_profile(profile, inputs);
  apply_power_limit(scenario, inputs);
  return inputs;
}

models::StepInputs carried_to_network(models::StepInputs inputs) {
  inputs.comm = models::comm_on_cluster(inputs.comm, inputs.cluster);
  return inputs;
}

}  // namespace

models::StepInputs step_inputs(const scenarios::Scenario& scenario) { return carried_to_network(measured_inputs(scenario)); }

std::optional<StepTimeBand> step_time_band(const scenarios::Scenario& scenario) {
  // Only for a profile the scenario names: the default one is the constants of every run.
  if (scenario.calibration_profile.empty() || scenario.calibration_profile == kBuiltInConstants) return std::nullopt;
  const auto band = profile_band(scenario.calibration_profile, measured_inputs(scenario));
  if (!band) return std::nullopt;
  return StepTimeBand{.fast_s = models::step_report(carried_to_network(band->fast)).times.step_time_s,
                      .slow_s = models::step_report(carried_to_network(band->slow)).times.step_time_s,
                      .constants = band->constants};
}

}  // namespace clustersim::calibration
