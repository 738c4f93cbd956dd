// Scenario -> normalised JSON: every key of the schema, in the schema's order, units in key names.

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "scenarios/presets.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/scenario_schema.hpp"
#include "scenarios/scenario_sets.hpp"

namespace clustersim::scenarios {
namespace {

// Insertion-ordered, so the output follows the schema and is stable across versions of the map.
using ordered_json = nlohmann::ordered_json;

ordered_json value_to_json(const FieldValue& value) {
  return std::visit([](const auto& v) { return ordered_json(v); }, value);
}

std::string preset_name(const Scenario& scenario, PresetKind kind) {
  const std::string& name =
      kind == PresetKind::gpu ? scenario.cluster.gpu.name : scenario.model.name;
  const auto names = kind == PresetKind::gpu ? gpu_preset_names() : model_preset_names();
  return std::find(names.begin(), names.end(), name) != names.end() ? name : std::string{};
}

ordered_json write_section(const Scenario& scenario, const Section& section) {
  ordered_json object = ordered_json::object();
  // A section with a preset writes its explicit fields: the rest are the preset's, and a --set of
  // another preset replaces them. A field that differs from the preset is written whatever its
  // provenance, so that what is printed always reads back as the same values.
  std::optional<Scenario> preset;
  if (section.preset != PresetKind::none) {
    if (auto name = preset_name(scenario, section.preset); !name.empty()) {
      object["preset"] = name;
      preset = with_section_preset(scenario, section.preset, name);
    }
  }
  const auto children = child_sections(section);
  // A child section goes before the field at its index_in_parent (or at the end).
  const auto write_children = [&](std::size_t index) {
    for (const Section* child : children) {
      if (std::min(child->index_in_parent, section.fields.size()) == index) {
        object[std::string(child->key())] = write_section(scenario, *child);
      }
    }
  };
  for (std::size_t i = 0; i < section.fields.size(); ++i) {
    write_children(i);
    const Field& field = section.fields[i];
    const FieldValue value = field.get(scenario);
    if (preset && field.get(*preset) == value &&
        !scenario.explicit_preset_fields.contains(std::string(section.pointer) + "/" + std::string(field.key))) {
      continue;
    }
    object[std::string(field.key)] = field.type == ValueType::array
                                         ? ordered_json::parse(std::get<std::string>(value))
                                         : value_to_json(value);
  }
  write_children(section.fields.size());
  return object;
}

}  // namespace

std::string to_json(const Scenario& scenario) {
  return write_section(scenario, *find_section("")).dump(2);
}

}  // namespace clustersim::scenarios
