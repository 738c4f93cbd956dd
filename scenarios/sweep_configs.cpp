#include "scenarios/sweep_configs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "scenarios/scenario_error.hpp"
#include "scenarios/bounded_input.hpp"
#include "scenarios/json_input.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/scenario_schema.hpp"
#include "scenarios/scenario_sets.hpp"

namespace clustersim::scenarios {
namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 2> kOverridable{"parallelism", "training"};

std::string describe(const json& value) {
  std::string text = value.dump();
  constexpr std::size_t limit = 40;
  return text.size() > limit ? text.substr(0, limit) + "..." : text;
}

std::string list_keys(const Section& section) {
  std::string text;
  for (const auto& field : section.fields) text += (text.empty() ? "" : ", ") + std::string(field.key);
  return text;
}

// The value as the field's type, or nullopt when the JSON type is wrong. Integers may be written
// 8 or 8.0, as in a scenario file (scenario_reader.cpp).
std::optional<FieldValue> to_field_value(const json& value, const Field& field) {
  const auto integral = [](const json& v) {
    if (v.is_number_integer()) return true;
    if (!v.is_number_float()) return false;
    const double x = v.get<double>();
    return std::isfinite(x) && std::trunc(x) == x && std::abs(x) < 0x1p53;
  };
  switch (field.type) {
    case ValueType::integer:
      if (!integral(value)) return std::nullopt;
      return FieldValue{value.is_number_float() ? static_cast<std::int64_t>(value.get<double>())
                                                : value.get<std::int64_t>()};
    case ValueType::unsigned_integer:
      if (!integral(value) || value.get<double>() < 0) return std::nullopt;
      return FieldValue{value.is_number_float() ? static_cast<std::uint64_t>(value.get<double>())
                                                : value.get<std::uint64_t>()};
    case ValueType::number:
      if (!value.is_number()) return std::nullopt;
      return FieldValue{value.get<double>()};
    case ValueType::boolean:
      if (!value.is_boolean()) return std::nullopt;
      return FieldValue{value.get<bool>()};
    case ValueType::string:
    case ValueType::enumeration:
      if (!value.is_string()) return std::nullopt;
      return FieldValue{value.get<std::string>()};
    case ValueType::array:
      if (!value.is_array() || field.check_array(value.dump())) return std::nullopt;
      return FieldValue{value.dump()};
  }
  return std::nullopt;
}

std::optional<Violation> check_config(const json& config, const std::string& pointer,
                                      std::set<std::string>& names) {
  if (!config.is_object()) return Violation{pointer, "must be an object, got " + describe(config)};
  for (const auto& [key, value] : config.items()) {
    if (key == "name" || std::find(kOverridable.begin(), kOverridable.end(), key) != kOverridable.end()) continue;
    return Violation{pointer + "/" + key, "unknown key (a config has name, parallelism, training)"};
  }
  const auto name = config.find("name");
  if (name == config.end()) return Violation{pointer + "/name", "required"};
  if (!name->is_string() || name->get<std::string>().empty()) {
    return Violation{pointer + "/name", "must be a non-empty string, got " + describe(*name)};
  }
  if (!names.insert(name->get<std::string>()).second) {
    return Violation{pointer + "/name", "\"" + name->get<std::string>() + "\" names an earlier config too"};
  }
  for (const auto section_key : kOverridable) {
    const auto part = config.find(section_key);
    if (part == config.end()) continue;
    const std::string part_pointer = pointer + "/" + std::string(section_key);
    if (!part->is_object()) return Violation{part_pointer, "must be an object, got " + describe(*part)};
    const Section& section = *find_section("/" + std::string(section_key));
    for (const auto& [key, value] : part->items()) {
      const Field* field = section.find_field(key);
      if (field == nullptr) {
        return Violation{part_pointer + "/" + key, "unknown key (" + std::string(section_key) +
                                                       " keys: " + list_keys(section) + ")"};
      }
      const auto converted = to_field_value(value, *field);
      if (!converted || !field->accepts(*converted)) {
        return Violation{part_pointer + "/" + key,
                         "must be " + field->requirement() + ", got " + describe(value)};
      }
    }
  }
  return std::nullopt;
}

std::optional<Violation> check_configs(const json& configs) {
  if (!configs.is_array()) return Violation{"", "must be an array of configs, got " + describe(configs)};
  std::set<std::string> names;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (auto violation = check_config(configs[i], "/" + std::to_string(i), names)) return violation;
  }
  return std::nullopt;
}

std::vector<SweepConfig> parse_configs(const json& configs) {
  std::vector<SweepConfig> result;
  for (const auto& config : configs) {
    json overrides = json::object();
    for (const auto key : kOverridable) {
      if (config.contains(key)) overrides[std::string(key)] = config.at(key);
    }
    result.push_back({.name = config.at("name").get<std::string>(), .overrides_json = overrides.dump()});
  }
  return result;
}

}  // namespace

std::optional<Violation> check_sweep_configs(std::string_view json_text) {
  json configs;
  try {
    configs = parse_json_input(json_text);
  } catch (const JsonInputError& error) {
    return Violation{error.pointer(), error.rule()};
  }
  return check_configs(configs);
}

std::vector<SweepConfig> parse_sweep_configs(std::string_view json_text) {
  return parse_configs(json::parse(json_text.begin(), json_text.end()));
}

std::string sweep_configs_json(const std::vector<SweepConfig>& configs) {
  // Ordered, so that the key order of each config survives a write and a reload.
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const auto& config : configs) {
    nlohmann::ordered_json item;
    item["name"] = config.name;
    const auto overrides = nlohmann::ordered_json::parse(config.overrides_json);
    for (const auto& [key, value] : overrides.items()) item[key] = value;
    array.push_back(std::move(item));
  }
  return array.dump();
}

std::vector<SweepConfig> load_sweep_configs_file(const std::filesystem::path& path) {
  const std::string source = path.string();
  json document;
  try {
    document = parse_json_input(read_input_file_bounded(path));
  } catch (const JsonInputError& error) {
    throw ScenarioError(source, error.pointer(), error.rule());
  }
  std::string prefix;
  if (document.is_object()) {
    for (const auto& [key, value] : document.items()) {
      if (key != "configs") throw ScenarioError(source, "/" + key, "unknown key (a configs file holds \"configs\")");
    }
    if (!document.contains("configs")) throw ScenarioError(source, "/configs", "required");
    document = json(document.at("configs"));
    prefix = "/configs";
  }
  if (auto violation = check_configs(document)) {
    throw ScenarioError(source, prefix + violation->pointer, violation->rule);
  }
  return parse_configs(document);
}

Scenario apply_sweep_config(const Scenario& base, const SweepConfig& config) {
  // Through the normalised JSON and the loader, so a config meets exactly the rules (and the dp
  // derivation) that a scenario file does.
  json document = json::parse(to_json(base));
  document.erase("sweep");
  const json overrides = json::parse(config.overrides_json);
  // The keys the config writes, as pointers: a derived key whose rule reads one of them (dp from
  // the layout, the loss's kernel from the framework and torch.compile) is derived again.
  std::vector<std::string> written;
  for (const auto& [section, keys] : overrides.items()) {
    if (!keys.is_object()) continue;
    for (const auto& [key, value] : keys.items()) written.push_back("/" + section + "/" + key);
  }
  rederive_after_sets(written, document);
  document.merge_patch(overrides);
  Scenario result = load_scenario_text(document.dump(), "sweep config \"" + config.name + "\"");
  result.sweep = base.sweep;
  return result;
}

}  // namespace clustersim::scenarios
