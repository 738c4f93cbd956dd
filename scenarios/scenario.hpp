#pragma once
/// A Scenario: everything one simulation run needs, in SI units, as loaded from a scenario JSON.
/// The JSON form (keys with units, presets, defaults) is described by scenario_schema.hpp.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "models/run/checkpoint_model.hpp"
#include "models/spec/cluster_spec.hpp"
#include "models/cost/cost_model.hpp"
#include "models/run/failure_model.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::scenarios {

/// How communication is simulated: one alpha-beta delay per collective, or point-to-point flows
/// sharing links by max-min fairness (see DESIGN.md, "Two communication fidelities").
enum class Fidelity { analytic, flow };

struct SimulationOptions {
  Fidelity fidelity = Fidelity::analytic;
  std::uint64_t seed = 1;  // for anything random (failure draws, stragglers); runs are reproducible

  friend bool operator==(const SimulationOptions&, const SimulationOptions&) = default;
};

/// One named layout of `clustersim sweep`: a partial override of parallelism and training keys,
/// kept as the compact JSON object written in the scenario ({"parallelism": {"tp": 4}}) and applied
/// by scenarios/sweep_configs.hpp, which loads the result through the same checks as a file.
struct SweepConfig {
  std::string name{};
  std::string overrides_json{};

  friend bool operator==(const SweepConfig&, const SweepConfig&) = default;
};

struct SweepOptions {
  std::vector<SweepConfig> configs{};

  friend bool operator==(const SweepOptions&, const SweepOptions&) = default;
};

struct Scenario {
  std::string name{};
  models::TransformerSpec model{};
  models::ClusterSpec cluster{};
  models::ParallelismSpec parallelism{};
  models::TrainingSpec training{};
  SimulationOptions simulation{};
  std::string calibration_profile{};  // calibration profile JSON; empty: built-in constants
  SweepOptions sweep{};
  models::FailureSpec failures{};      // clustersim failures, tco
  models::CheckpointSpec checkpoint{};
  models::StorageSpec storage{};
  models::CostSpec cost{};             // clustersim tco
  // Provenance: the fields of a section that names a preset (model, cluster.gpu) which the file or
  // a --set wrote, as JSON pointers ("/cluster/gpu/hbm_gb"); every other field of such a section
  // came from its preset. The writer prints these even where they equal the preset's value, and a
  // --set of another preset keeps them (scenario_io.hpp). Empty for a section without a preset.
  std::set<std::string> explicit_preset_fields{};

  friend bool operator==(const Scenario&, const Scenario&) = default;
};

}  // namespace clustersim::scenarios
