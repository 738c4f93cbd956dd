#include "tools/render/scenario_text.hpp"

#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "scenarios/presets.hpp"
#include "scenarios/scenario_schema.hpp"

namespace clustersim::tools {
namespace {

using scenarios::FieldValue;
using scenarios::PresetKind;

// "/cluster/gpu" + "hbm_gb" -> "cluster.gpu.hbm_gb", the spelling --set accepts.
std::string dotted(std::string_view pointer, std::string_view key) {
  std::string path(pointer.empty() ? "" : pointer.substr(1));
  std::replace(path.begin(), path.end(), '/', '.');
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string plain(const FieldValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return text->empty() ? "\"\"" : *text;
  return scenarios::format_value(value);
}

}  // namespace

std::string render_scenario_text(const scenarios::Scenario& scenario) {
  // Rows grouped by section; an empty key marks a blank line between sections.
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& section : scenarios::scenario_sections()) {
    if (!rows.empty()) rows.emplace_back();
    if (section.preset != PresetKind::none) {
      const bool gpu = section.preset == PresetKind::gpu;
      const std::string& name = gpu ? scenario.cluster.gpu.name : scenario.model.name;
      const auto names = gpu ? scenarios::gpu_preset_names() : scenarios::model_preset_names();
      const bool known = std::find(names.begin(), names.end(), name) != names.end();
      rows.emplace_back(dotted(section.pointer, "preset"), known ? name : "(none)");
    }
    for (const auto& field : section.fields) {
      std::string value = plain(field.get(scenario));
      if (!field.unit.symbol.empty()) value.append(" ").append(field.unit.symbol);
      rows.emplace_back(dotted(section.pointer, field.key), std::move(value));
    }
  }
  std::size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());

  std::string text = fmt::format(
      "Scenario \"{}\", normalised (change any key with --set KEY=VALUE)\n\n", scenario.name);
  for (const auto& [key, value] : rows) {
    text += key.empty() ? "\n" : fmt::format("  {:<{}}  {}\n", key, width, value);
  }
  return text;
}

}  // namespace clustersim::tools
