#include "scenarios/scenario_sets.hpp"

#include <algorithm>
#include <optional>

#include "scenarios/presets.hpp"

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

// A --set that changes a section's preset re-derives the fields that came from the old one: a
// field the file writes with the old preset's own value (as a printed scenario does) is dropped,
// so that the new preset supplies it. Fields that differ from the old preset, and fields a --set
// wrote, are the user's and stay.
void rederive_presets(const SameFieldValue& same_value, const json& file, const std::vector<std::string>& set_pointers,
                      json& document) {
  for (const auto& section : scenario_sections()) {
    if (section.preset == PresetKind::none) continue;
    const auto old_name = named_preset(file, section);
    const auto new_name = named_preset(document, section);
    if (!old_name || !new_name || *old_name == *new_name || !names_known_preset(section.preset, *old_name)) continue;
    json& object = document.at(json::json_pointer(std::string(section.pointer)));
    if (!object.is_object()) continue;
    Scenario old_preset{};
    if (section.preset == PresetKind::gpu) {
      old_preset.cluster.gpu = gpu_preset(*old_name);
    } else {
      old_preset.model = model_preset(*old_name);
    }
    for (const auto& field : section.fields) {
      const auto it = object.find(field.key);
      if (it == object.end() || is_set(set_pointers, std::string(section.pointer) + "/" + std::string(field.key))) continue;
      if (same_value(*it, field, old_preset)) object.erase(it);
    }
  }
}

// dp is fixed by num_gpus / (tp * pp * cp), so a dp written in the file only restates the file's own
// layout: a --set of any of those four makes it derived again, unless dp is --set as well.
void rederive_dp(const std::vector<std::string>& set_pointers, json& document) {
  const bool layout_set = is_set(set_pointers, "/parallelism/tp") || is_set(set_pointers, "/parallelism/pp") ||
                          is_set(set_pointers, "/parallelism/cp") || is_set(set_pointers, "/cluster/num_gpus");
  if (!layout_set || is_set(set_pointers, "/parallelism/dp")) return;
  const auto layout = document.find("parallelism");
  if (layout != document.end() && layout->is_object()) layout->erase("dp");
}

}  // namespace

void rederive_after_sets(const json& file, const std::vector<std::string>& set_pointers, json& document,
                         const SameFieldValue& same_value) {
  rederive_presets(same_value, file, set_pointers, document);
  rederive_dp(set_pointers, document);
}

}  // namespace clustersim::scenarios
