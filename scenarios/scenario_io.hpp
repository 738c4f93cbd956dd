#pragma once
/// Reading and writing scenario JSON. The format is described key by key in scenario_schema.hpp
/// (and by `clustersim explain`); loading applies `--set path=value` overrides to the raw JSON,
/// fills presets and defaults, converts units to SI and checks every rule of
/// scenario_validation.hpp. Every problem is a ScenarioError naming the source and JSON pointer.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"

namespace clustersim::scenarios {

/// Loads a scenario file. `sets` are overrides "path=value" with a dotted path
/// ("parallelism.tp=4", "cluster.gpu=h200-sxm"); the value is JSON if it parses as JSON, else a
/// string. Errors name the file as given.
Scenario load_scenario_file(const std::filesystem::path& path,
                            const std::vector<std::string>& sets = {});

/// Loads a scenario from text; `source_name` stands for the file in error messages.
Scenario load_scenario_text(std::string_view text, std::string_view source_name,
                            const std::vector<std::string>& sets = {});

/// The built-in scenario used when a command names none (scenarios/examples/default.json,
/// embedded): Llama 3 70B on 256 H100 SXM, TP 8 x PP 4 x DP 8.
Scenario default_scenario(const std::vector<std::string>& sets = {});

/// The normalised scenario: every key present, stable key order, units in key names, pretty.
/// load_scenario_text(to_json(s), ...) == s for every loaded s. A model or GPU whose name is not a
/// preset is written without "preset" (all its fields are written anyway).
std::string to_json(const Scenario& scenario);

}  // namespace clustersim::scenarios
