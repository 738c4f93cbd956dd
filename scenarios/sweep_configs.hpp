#pragma once
/// The named layouts of `clustersim sweep`: the `sweep.configs` key of a scenario, or a file given
/// with --configs, both an array of
///   {"name": "TP8 PP4 DP8 SP", "parallelism": {"tp": 8, "pp": 4, "sp": true}, "training": {...}}
/// where parallelism and training hold any of their scenario keys (clustersim explain). A config
/// changes only the keys it names; dp is derived again from the GPU count unless the config gives
/// it, so "tp": 4 alone keeps the job on the same GPUs.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {

/// The first broken rule of a configs array given as JSON text, its pointer relative to the array
/// ("/2/parallelism/tpp"); nullopt when the array is well formed. Checks the structure, key names
/// and each value against its key's type and bounds; cross-field rules are checked per config by
/// apply_sweep_config, so that one impossible layout does not stop a whole sweep.
std::optional<Violation> check_sweep_configs(std::string_view json_text);

/// Configs from JSON text that passes check_sweep_configs.
std::vector<SweepConfig> parse_sweep_configs(std::string_view json_text);

/// The compact JSON array that parse_sweep_configs reads back as `configs`.
std::string sweep_configs_json(const std::vector<SweepConfig>& configs);

/// Reads a --configs file: a configs array, or an object whose "configs" key holds one.
/// Throws ScenarioError naming the file and the JSON pointer.
std::vector<SweepConfig> load_sweep_configs_file(const std::filesystem::path& path);

/// `base` with the config's keys applied, checked by every scenario rule. Throws ScenarioError
/// whose source names the config ("sweep config \"TP8 PP4\": /parallelism/tp: ...").
Scenario apply_sweep_config(const Scenario& base, const SweepConfig& config);

}  // namespace clustersim::scenarios
