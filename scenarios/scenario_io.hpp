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
/// replaces: naming another model or GPU preset ("cluster.gpu=NAME", which keeps the fields
/// written beside the old preset, like "cluster.gpu.preset=NAME") keeps every field the file or a
/// --set wrote explicitly (Scenario::explicit_preset_fields) and takes every other field from the
/// new preset. A --set of parallelism.tp, pp, cp or cluster.num_gpus derives dp again
/// (num_gpus / (tp * pp * cp)) unless parallelism.dp is --set too.
/// `check`: whether the scenario's own layout must be valid (scenario_validation.hpp).
/// `notes`, where given, receives one line "<source>: <pointer> = <value> is kept ..." per field
/// the file writes with the value of the old preset a --set replaced (where the new one's differs):
/// a scenario spelled out in full keeps the old preset's figures, which may not be what was meant.
Scenario load_scenario_file(const std::filesystem::path& path,
                            const std::vector<std::string>& sets = {},
                            LayoutCheck check = LayoutCheck::own_layout,
                            std::vector<std::string>* notes = nullptr);

/// Loads a scenario from text; `source_name` stands for the file in error messages.
Scenario load_scenario_text(std::string_view text, std::string_view source_name,
                            const std::vector<std::string>& sets = {},
                            LayoutCheck check = LayoutCheck::own_layout,
                            std::vector<std::string>* notes = nullptr);

/// The built-in scenario used when a command names none (scenarios/examples/default.json,
/// embedded): Llama 3 70B on 256 H100 SXM, TP 8 x PP 4 x DP 8.
Scenario default_scenario(const std::vector<std::string>& sets = {},
                          LayoutCheck check = LayoutCheck::own_layout,
                          std::vector<std::string>* notes = nullptr);

/// The normalised scenario: stable key order, units in key names, pretty.
/// load_scenario_text(to_json(s), ...) == s for every loaded s, explicit_preset_fields included.
/// Every key is written except in a model or GPU named after a preset: there "preset" and only
/// the explicit fields (even where one equals the preset's value), so that a --set of another
/// preset takes the rest from it. (A field that differs from the preset is written too: only a
/// Scenario changed in code has one that is not explicit.) A model or GPU whose name is not a
/// preset is written without "preset", every field written.
std::string to_json(const Scenario& scenario);

}  // namespace clustersim::scenarios
