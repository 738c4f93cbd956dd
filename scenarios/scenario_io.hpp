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
#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {

/// Loads a scenario file. `sets` are overrides "path=value" with a dotted path
/// ("parallelism.tp=4", "cluster.gpu=h200-sxm"); the value is JSON if it parses as JSON, else a
/// string. Errors name the file as given. A --set re-derives what followed from the value it
/// replaces: naming another model or GPU preset ("cluster.gpu=NAME" keeps the fields written beside
/// the old preset, like "cluster.gpu.preset=NAME") drops the fields the file writes with the old
/// preset's own values, so the new preset supplies them; fields that differ from the old preset,
/// or that a --set writes, stay. A --set of parallelism.tp, pp, cp or cluster.num_gpus derives dp
/// again (num_gpus / (tp * pp * cp)) unless parallelism.dp is --set too.
/// `check`: whether the scenario's own layout must be valid (scenario_validation.hpp).
Scenario load_scenario_file(const std::filesystem::path& path,
                            const std::vector<std::string>& sets = {},
                            LayoutCheck check = LayoutCheck::own_layout);

/// Loads a scenario from text; `source_name` stands for the file in error messages.
Scenario load_scenario_text(std::string_view text, std::string_view source_name,
                            const std::vector<std::string>& sets = {},
                            LayoutCheck check = LayoutCheck::own_layout);

/// The built-in scenario used when a command names none (scenarios/examples/default.json,
/// embedded): Llama 3 70B on 256 H100 SXM, TP 8 x PP 4 x DP 8.
Scenario default_scenario(const std::vector<std::string>& sets = {},
                          LayoutCheck check = LayoutCheck::own_layout);

/// The normalised scenario: stable key order, units in key names, pretty.
/// load_scenario_text(to_json(s), ...) == s for every loaded s. Every key is written except in a
/// model or GPU named after a preset: there "preset" and only the fields whose values differ from
/// the preset's, so that a --set of another preset re-derives the rest. A model or GPU whose name
/// is not a preset is written without "preset", every field written.
std::string to_json(const Scenario& scenario);

}  // namespace clustersim::scenarios
