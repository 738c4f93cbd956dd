// `clustersim explain`: the scenario format, key by key, from the schema table itself.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenarios/presets.hpp"
#include "scenarios/scenario_schema.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : std::string(separator)) + item;
  return text;
}

std::string render_json(const std::vector<scenarios::KeyDoc>& keys) {
  ordered_json rows = ordered_json::array();
  for (const auto& key : keys) {
    ordered_json row;
    row["pointer"] = key.pointer;
    row["type"] = key.type;
    if (!key.choices.empty()) row["choices"] = key.choices;
    row["unit"] = key.unit;
    if (key.bounds) {  // in the key's unit; JSON has no infinity: an open end is null
      const auto end = [](double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); };
      row["range"] = key.range;
      row["min"] = end(key.bounds->min);
      row["min_exclusive"] = key.bounds->min_exclusive;
      row["max"] = end(key.bounds->max);
      row["or_zero"] = key.bounds->or_zero;
    }
    const auto to_json = [](const auto& v) { return ordered_json(v); };
    row["default"] =
        key.default_value ? std::visit(to_json, *key.default_value) : ordered_json(nullptr);
    row["default_text"] = key.default_text;
    row["meaning"] = key.meaning;
    rows.push_back(std::move(row));
  }
  ordered_json result;
  result["keys"] = std::move(rows);
  result["presets"]["gpu"] = scenarios::gpu_preset_names();
  result["presets"]["model"] = scenarios::model_preset_names();
  return result.dump(2) + "\n";
}

std::string render_text(const std::vector<scenarios::KeyDoc>& keys) {
  struct Row {
    std::string pointer, type, unit, range, default_text, meaning;
  };
  std::vector<Row> rows{{"KEY (JSON pointer)", "TYPE", "UNIT", "RANGE", "DEFAULT", "MEANING"}};
  for (const auto& key : keys) {
    std::string meaning = key.meaning;
    if (!key.choices.empty()) meaning.append(": ").append(join(key.choices, "|"));
    rows.push_back({key.pointer, key.type, key.unit, key.range, key.default_text, std::move(meaning)});
  }
  std::size_t w_pointer = 0, w_type = 0, w_unit = 0, w_range = 0, w_default = 0;
  for (const auto& row : rows) {
    w_pointer = std::max(w_pointer, row.pointer.size());
    w_type = std::max(w_type, row.type.size());
    w_unit = std::max(w_unit, row.unit.size());
    w_range = std::max(w_range, row.range.size());
    w_default = std::max(w_default, row.default_text.size());
  }
  std::string text =
      "Scenario keys. An absent key takes its default. \"preset\": from the preset the section\n"
      "names, and required when it names none. Units are part of the key names. A value outside\n"
      "its key's RANGE (in the key's UNIT; a..b for integers, [a, b] or (a, b] for numbers) is\n"
      "an error.\n\n";
  for (const auto& row : rows) {
    text += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", row.pointer, w_pointer, row.type,
                        w_type, row.unit, w_unit, row.range, w_range, row.default_text, w_default, row.meaning);
  }
  text += "\nGPU presets:   " + join(scenarios::gpu_preset_names(), ", ") + "\n";
  text += "Model presets: " + join(scenarios::model_preset_names(), ", ") + "\n";
  return text;
}

}  // namespace

int cmd_explain(std::span<const std::string> args, std::ostream& out) {
  CommandOptions options;
  const CommandHelp help{
      .name = "explain",
      .usage = "",
      .description = "List every key of the scenario format: JSON pointer, type, unit, range,\n"
                     "default and meaning, then the GPU and model presets a scenario can name.",
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  const auto keys = scenarios::explain_keys();
  out << (options.output.json ? render_json(keys) : render_text(keys));
  return 0;
}

}  // namespace clustersim::tools
