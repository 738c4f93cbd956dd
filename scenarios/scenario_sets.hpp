#pragma once
/// What a --set of scenario_io.hpp re-derives, and what it says about what it keeps. The loader
/// (scenario_reader.cpp) writes the --set values into the raw JSON document, calls
/// rederive_after_sets on it, reads it, and asks kept_preset_value_notes about the result.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios {

/// After the --sets (or a sweep config) wrote the keys at `set_pointers` into `document`: a derived
/// key written there is dropped when a key its rule reads (Field::rederived_when: dp's tp, pp, cp
/// and num_gpus; cross_entropy's framework and elementwise) was set but it was not, so that it is
/// derived again.
/// (A --set of another preset needs nothing here: the document holds only the fields the file and
/// the --sets wrote, which stay, and the new preset supplies the rest when it is read.)
void rederive_after_sets(const std::vector<std::string>& set_pointers, nlohmann::json& document);

/// `scenario` with one preset section's values (cluster.gpu or model) taken from the named preset.
Scenario with_section_preset(const Scenario& scenario, PresetKind kind, std::string_view name);

/// For `scenario`, read from `file` with the --sets at `set_pointers`: where a --set named another
/// preset for a section, one note per field the file writes with the old preset's own value where
/// the new preset's differs. Such a field is kept (it was written explicitly), which a scenario
/// spelled out in full would not mean; the note names the key, both presets and both values.
std::vector<std::string> kept_preset_value_notes(const nlohmann::json& file,
                                                 const std::vector<std::string>& set_pointers,
                                                 const Scenario& scenario);

}  // namespace clustersim::scenarios
