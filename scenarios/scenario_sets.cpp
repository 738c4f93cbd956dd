#include "scenarios/scenario_sets.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "scenarios/presets.hpp"
#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios {
namespace {

using json = nlohmann::json;

bool names_known_preset(PresetKind kind, std::string_view name) {
  const auto names = kind == PresetKind::gpu ? gpu_preset_names() : model_preset_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether a --set wrote the key at `pointer` (or an object holding it).
bool is_set(const std::vector<std::string>& set_pointers, std::string_view pointer) {
  return std::any_of(set_pointers.begin(), set_pointers.end(), [&](const std::string& set) {
    return pointer == set || (pointer.size() > set.size() && pointer.starts_with(set) && pointer[set.size()] == '/');
  });
}

// The preset a section names in `document`: {"preset": name} or, where allowed, a bare name.
std::optional<std::string> named_preset(const json& document, const Section& section) {
  const json::json_pointer pointer{std::string(section.pointer)};
  if (!document.contains(pointer)) return std::nullopt;
  const json& node = document.at(pointer);
  if (section.preset_shorthand && node.is_string()) return node.get<std::string>();
  if (node.is_object()) {
    const auto it = node.find("preset");
    if (it != node.end() && it->is_string()) return it->get<std::string>();
  }
  return std::nullopt;
}

const std::string& section_preset_name(const Scenario& scenario, PresetKind kind) {
  return kind == PresetKind::gpu ? scenario.cluster.gpu.name : scenario.model.name;
}

}  // namespace

Scenario with_section_preset(const Scenario& scenario, PresetKind kind, std::string_view name) {
  Scenario result = scenario;
  if (kind == PresetKind::gpu) {
    result.cluster.gpu = gpu_preset(name);
  } else {
    result.model = model_preset(name);
  }
  return result;
}

// A derived key the document writes only restates what its rule gave for the document's own
// inputs (dp = num_gpus / (tp * pp * cp) for the file's layout): a --set of any key its rule reads
// (Field::rederived_when) makes it derived again, unless it is --set as well.
void rederive_after_sets(const std::vector<std::string>& set_pointers, json& document) {
  for (const auto& section : scenario_sections()) {
    for (const auto& field : section.fields) {
      const std::string pointer = std::string(section.pointer) + "/" + std::string(field.key);
      const bool input_set = std::any_of(field.rederived_when.begin(), field.rederived_when.end(),
                                         [&](std::string_view input) { return is_set(set_pointers, input); });
      if (!input_set || is_set(set_pointers, pointer)) continue;
      const json::json_pointer at{std::string(section.pointer)};
      if (document.contains(at) && document.at(at).is_object()) document.at(at).erase(std::string(field.key));
    }
  }
}

std::vector<std::string> kept_preset_value_notes(const json& file, const std::vector<std::string>& set_pointers,
                                                 const Scenario& scenario) {
  std::vector<std::string> notes;
  for (const auto& section : scenario_sections()) {
    if (section.preset == PresetKind::none) continue;
    const auto old_name = named_preset(file, section);
    const std::string& new_name = section_preset_name(scenario, section.preset);
    if (!old_name || *old_name == new_name || !names_known_preset(section.preset, *old_name) ||
        !names_known_preset(section.preset, new_name)) {
      continue;
    }
    const Scenario old_preset = with_section_preset(scenario, section.preset, *old_name);
    const Scenario new_preset = with_section_preset(scenario, section.preset, new_name);
    for (const auto& field : section.fields) {
      const std::string pointer = std::string(section.pointer) + "/" + std::string(field.key);
      if (!scenario.explicit_preset_fields.contains(pointer) || is_set(set_pointers, pointer) ||
          !file.contains(json::json_pointer(pointer))) {
        continue;
      }
      const FieldValue value = field.get(scenario);
      if (value != field.get(old_preset) || value == field.get(new_preset)) continue;
      notes.push_back(pointer + " = " + format_value(value) + " is kept from the file (" + *old_name +
                      "'s own value); remove it to take " + new_name + "'s " + format_value(field.get(new_preset)));
    }
  }
  return notes;
}

}  // namespace clustersim::scenarios
