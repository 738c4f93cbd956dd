// Scenario JSON -> Scenario: parsing, --set overrides, presets, type checks, unit conversion.
// Everything is driven by the schema table (scenario_schema.hpp), so a new key needs no code here.
// Also defines gpu_preset() and model_preset(): preset files are read with the same field table.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "scenarios/bounded_input.hpp"
#include "scenarios/embedded_files.hpp"
#include "scenarios/json_input.hpp"
#include "scenarios/key_suggestion.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/printable_text.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/scenario_schema.hpp"
#include "scenarios/scenario_sets.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {
namespace {

using json = nlohmann::json;

constexpr std::string_view default_scenario_path = "examples/default.json";

// RFC 6901: "~" and "/" inside a key are escaped in a pointer.
std::string child_pointer(std::string_view parent, std::string_view key) {
  std::string pointer(parent);
  pointer += '/';
  for (const char c : key) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
  return pointer;
}

// A value as quoted in a message, cut short so the message stays one readable line.
std::string describe(const json& value) {
  std::string text = value.dump();
  constexpr std::size_t limit = 40;
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

std::string unknown_preset_rule(PresetKind kind, std::string_view name) {
  const bool gpu = kind == PresetKind::gpu;
  return std::string(gpu ? "unknown GPU preset \"" : "unknown model preset \"") +
         std::string(name) + "\" (known: " + join(gpu ? gpu_preset_names() : model_preset_names()) +
         ")";
}

bool is_known_preset(PresetKind kind, std::string_view name) {
  const auto names = kind == PresetKind::gpu ? gpu_preset_names() : model_preset_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// Reads one source (a file, the built-in default, a preset file); every error names it.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(std::string pointer, std::string rule) const {
    throw ScenarioError(source_, std::move(pointer), std::move(rule));
  }

  json parse(std::string_view text) const;
  Scenario read_scenario(const json& document, LayoutCheck check) const;
  // A preset file: a flat object of the section's fields plus "name" and "sources".
  Scenario read_preset(const json& document, const Section& section,
                       std::string_view expected_name) const;

 private:
  FieldValue convert(const json& value, const Field& field, const std::string& pointer) const;
  void check_keys(const json& object, const std::vector<std::string_view>& allowed,
                  const std::string& pointer) const;
  // Reads the fields present in `object` into the scenario.
  void read_fields(const json& object, const Section& section,
                                        const std::string& pointer, Scenario& scenario) const;
  // `shorthand`: the object stands for a bare preset name, so errors point at the section.
  void apply_preset(const json& object, const Section& section, bool shorthand,
                    Scenario& scenario) const;
  // Which of a preset section's fields `object` writes (Scenario::explicit_preset_fields).
  static void record_explicit_fields(const json& object, const Section& section, Scenario& scenario);

  std::string source_;
};

json Reader::parse(std::string_view text) const {
  // Depth, NUL bytes, finite numbers and duplicate keys (nlohmann keeps the last of duplicate keys
  // silently; a scenario must not hide a value) are checked by the shared input parser.
  try {
    return parse_json_input(text);
  } catch (const JsonInputError& error) {
    fail(error.pointer(), error.rule());
  }
}

FieldValue Reader::convert(const json& value, const Field& field,
                           const std::string& pointer) const {
  const auto reject = [&]() -> FieldValue {
    fail(pointer, "must be " + field.requirement() + ", got " + describe(value));
  };
  // Integers may be written as 8 or 8.0 (or 1e3); anything with a fraction is rejected.
  const auto integral = [](double x, double lo, double hi) {
    return std::isfinite(x) && std::trunc(x) == x && x >= lo && x < hi;
  };
  FieldValue result;
  switch (field.type) {
    case ValueType::integer:
      if (value.is_number_unsigned()) {
        const auto v = value.get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) reject();
        result = static_cast<std::int64_t>(v);
      } else if (value.is_number_integer()) {
        result = value.get<std::int64_t>();
      } else if (value.is_number_float() && integral(value.get<double>(), -0x1p63, 0x1p63)) {
        result = static_cast<std::int64_t>(value.get<double>());
      } else {
        reject();
      }
      break;
    case ValueType::unsigned_integer:
      if (value.is_number_unsigned()) {
        result = value.get<std::uint64_t>();
      } else if (value.is_number_float() && integral(value.get<double>(), 0, 0x1p64)) {
        result = static_cast<std::uint64_t>(value.get<double>());
      } else {
        reject();
      }
      break;
    case ValueType::number:
      if (!value.is_number()) reject();
      result = value.get<double>();
      break;
    case ValueType::boolean:
      if (!value.is_boolean()) reject();
      result = value.get<bool>();
      break;
    case ValueType::string:
    case ValueType::enumeration:
      if (!value.is_string()) reject();
      result = value.get<std::string>();
      break;
    case ValueType::array:
      if (!value.is_array()) reject();
      result = value.dump();
      if (auto violation = field.check_array(std::get<std::string>(result))) {
        fail(pointer + violation->pointer, violation->rule);
      }
      break;
  }
  if (!field.accepts(result)) reject();
  return result;
}

void Reader::check_keys(const json& object, const std::vector<std::string_view>& allowed,
                        const std::string& pointer) const {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string rule = "unknown key";
    if (const auto suggestion = closest_key(key, allowed)) {
      rule.append(" (did you mean ").append(*suggestion).append("?)");
    }
    fail(child_pointer(pointer, key), rule);
  }
}

void Reader::read_fields(const json& object, const Section& section, const std::string& pointer,
                         Scenario& scenario) const {
  for (const auto& field : section.fields) {
    const auto it = object.find(field.key);
    if (it != object.end()) {
      field.set(scenario, convert(*it, field, child_pointer(pointer, field.key)));
    }
  }
}

void Reader::apply_preset(const json& object, const Section& section, bool shorthand,
                          Scenario& scenario) const {
  const std::string pointer(section.pointer);
  const auto it = object.find("preset");
  if (it == object.end()) {
    // Without a preset, every field that a preset would supply must be written out.
    for (const auto& field : section.fields) {
      if (field.default_kind == DefaultKind::preset_or_required && !object.contains(field.key)) {
        fail(child_pointer(pointer, field.key), "required when no preset is given");
      }
    }
    return;
  }
  const std::string preset_pointer = shorthand ? pointer : child_pointer(pointer, "preset");
  if (!it->is_string()) fail(preset_pointer, "must be a string, got " + describe(*it));
  const auto name = it->get<std::string>();
  if (!is_known_preset(section.preset, name)) {
    fail(preset_pointer, unknown_preset_rule(section.preset, name));
  }
  if (section.preset == PresetKind::gpu) {
    scenario.cluster.gpu = gpu_preset(name);
  } else {
    scenario.model = model_preset(name);
  }
}

void Reader::record_explicit_fields(const json& object, const Section& section, Scenario& scenario) {
  for (const auto& field : section.fields) {
    if (object.contains(field.key)) {
      scenario.explicit_preset_fields.insert(child_pointer(section.pointer, field.key));
    }
  }
}

Scenario Reader::read_scenario(const json& document, LayoutCheck check) const {
  Scenario scenario{};
  for (const auto& section : scenario_sections()) {
    const std::string pointer(section.pointer);
    const json* node = &document;
    if (!pointer.empty()) {
      // Parents come first in the table, so a parent present here was already checked to be an
      // object.
      const json::json_pointer parent(std::string(section.parent()));
      if (!document.contains(parent)) continue;
      const auto& parent_node = document.at(parent);
      const auto it = parent_node.find(section.key());
      node = it == parent_node.end() ? nullptr : &*it;
    }
    if (node == nullptr) {
      if (section.required) fail(pointer, "required");
      continue;
    }
    json object = *node;
    const bool shorthand = section.preset_shorthand && object.is_string();
    if (shorthand) object = json{{"preset", object}};
    if (!object.is_object()) {
      fail(pointer, std::string(section.preset_shorthand ? "must be a preset name or an object"
                                                         : "must be an object") +
                        ", got " + describe(object));
    }
    check_keys(object, allowed_keys(section), pointer);
    if (section.preset != PresetKind::none) {
      apply_preset(object, section, shorthand, scenario);
      if (object.contains("preset")) record_explicit_fields(object, section, scenario);
    }
    read_fields(object, section, pointer, scenario);
  }
  // Derived keys are filled in once every written key is known.
  std::optional<Violation> underivable;
  for (const auto& section : scenario_sections()) {
    for (const auto& field : section.fields) {
      const std::string pointer = child_pointer(section.pointer, field.key);
      if (field.default_kind != DefaultKind::derived ||
          document.contains(json::json_pointer(pointer))) {
        continue;
      }
      if (auto rule = field.derive(scenario); rule && !underivable) underivable = Violation{pointer, std::move(*rule)};
    }
  }
  const auto violation = find_violation(scenario, check);
  // A key that cannot be derived (dp, when tp * pp * cp does not divide num_gpus) breaks the
  // product rule of the layout; a rule checked before that one (tp against heads, say) names the
  // cause more closely. A searched layout's dp is the search's, so there it is no error.
  if (underivable && check == LayoutCheck::own_layout && (!violation || violation->pointer == "/parallelism")) {
    fail(underivable->pointer, underivable->rule);
  }
  if (violation) fail(violation->pointer, violation->rule);
  return scenario;
}

Scenario Reader::read_preset(const json& document, const Section& section,
                             std::string_view expected_name) const {
  if (!document.is_object()) fail("", "must be an object, got " + describe(document));
  std::vector<std::string_view> allowed{"name", "sources"};
  for (const auto& field : section.fields) allowed.push_back(field.key);
  // A GPU preset may name the bundled compute profile it runs with (presets.hpp).
  if (section.preset == PresetKind::gpu) allowed.push_back(kComputeProfileKey);
  check_keys(document, allowed, "");

  const auto name = document.find("name");
  if (name == document.end() || !name->is_string() || name->get<std::string>() != expected_name) {
    fail("/name", std::string("must be the file's name, \"").append(expected_name).append("\""));
  }
  const auto sources = document.find("sources");
  if (sources == document.end() || !sources->is_object()) {
    fail("/sources", "must be an object giving the source of every value");
  }
  const std::vector<std::string_view> valued(allowed.begin() + 2, allowed.end());
  for (const auto key : valued) {
    const bool optional = key == kComputeProfileKey;  // the one key a GPU preset may leave out
    const auto value = document.find(key);
    if (value == document.end()) {
      if (optional) continue;
      fail(child_pointer("", key), "required in a preset");
    }
    if (optional && (!value->is_string() || value->get<std::string>().empty()))
      fail(child_pointer("", key), "must be the name of a bundled compute profile");
    const auto source = sources->find(key);
    if (source == sources->end() || !source->is_string() || source->get<std::string>().empty()) {
      fail(child_pointer("/sources", key), "every preset value needs its source");
    }
  }
  check_keys(*sources, valued, "/sources");
  Scenario scenario{};
  read_fields(document, section, "", scenario);
  return scenario;
}

// path=value with a dotted path; the value is JSON if it parses, else a string. Returns the JSON
// pointer of the key it wrote.
std::string apply_set(json& document, std::string_view assignment) {
  const Reader reader(std::string("--set ").append(assignment));
  const auto equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0) reader.fail("", "expected path=value");
  const std::string_view path = assignment.substr(0, equals);
  const std::string text(assignment.substr(equals + 1));
  json value;
  try {
    value = parse_json_or_text(text);
  } catch (const JsonInputError& error) {
    std::string pointer;  // of the dotted path, as the loop below builds it
    for (std::size_t start = 0; start <= path.size();) {
      const std::size_t dot = std::min(path.find('.', start), path.size());
      pointer = child_pointer(pointer, path.substr(start, dot - start));
      start = dot + 1;
    }
    reader.fail(pointer + error.pointer(), error.rule());
  }

  std::vector<std::string> keys;
  for (std::size_t start = 0;;) {
    const auto dot = path.find('.', start);
    keys.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (keys.back().empty()) {
      reader.fail("", std::string("empty key in path \"").append(path).append("\""));
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }

  json* node = &document;
  std::string pointer;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (node->is_null()) *node = json::object();
    const Section* section = find_section(pointer);
    if (node->is_string() && section != nullptr && section->preset_shorthand) {
      // So that "cluster.gpu.hbm_gb=96" refines "cluster.gpu": "h100-sxm" instead of failing.
      *node = json{{"preset", *node}};
    }
    if (!node->is_object()) {
      reader.fail(pointer, "cannot set key \"" + keys[i] + "\" inside " + describe(*node));
    }
    node = &(*node)[keys[i]];
    pointer = child_pointer(pointer, keys[i]);
  }
  const Section* section = find_section(pointer);
  if (section != nullptr && section->preset_shorthand && node->is_object() && value.is_string()) {
    // "cluster.gpu=h200-sxm" names the preset; the fields written beside the old one stay, as
    // "cluster.gpu.preset=h200-sxm" keeps them.
    pointer = child_pointer(pointer, "preset");
    node = &(*node)["preset"];
  }
  *node = std::move(value);
  return pointer;
}

Scenario load(std::string_view text, const std::string& source, const std::vector<std::string>& sets,
              LayoutCheck check, std::vector<std::string>* notes) {
  const Reader reader(source);
  json document = reader.parse(text);
  if (!document.is_object()) reader.fail("", "must be a JSON object, got " + describe(document));
  if (sets.empty()) return reader.read_scenario(document, check);
  const json file = document;
  std::vector<std::string> set_pointers;
  for (const auto& assignment : sets) set_pointers.push_back(apply_set(document, assignment));
  rederive_after_sets(set_pointers, document);
  Scenario scenario = reader.read_scenario(document, check);
  if (notes != nullptr) {
    for (auto& note : kept_preset_value_notes(file, set_pointers, scenario)) {
      notes->push_back(printable(source) + ": " + printable(note));
    }
  }
  return scenario;
}

template <PresetKind kind>
Scenario preset(std::string_view name) {
  const bool gpu = kind == PresetKind::gpu;
  const std::string_view text = gpu ? gpu_preset_text(name) : model_preset_text(name);
  if (text.empty()) throw ScenarioError("", "", unknown_preset_rule(kind, name));
  const Reader reader(std::string(gpu ? "presets/gpus/" : "presets/models/") + std::string(name) +
                      ".json");
  const Section* section = find_section(gpu ? "/cluster/gpu" : "/model");
  return reader.read_preset(reader.parse(text), *section, name);
}

}  // namespace

models::GpuSpec gpu_preset(std::string_view name) {
  models::GpuSpec spec = preset<PresetKind::gpu>(name).cluster.gpu;
  spec.name = name;
  return spec;
}

models::TransformerSpec model_preset(std::string_view name) {
  models::TransformerSpec spec = preset<PresetKind::model>(name).model;
  spec.name = name;
  return spec;
}

Scenario load_scenario_file(const std::filesystem::path& path, const std::vector<std::string>& sets,
                            LayoutCheck check, std::vector<std::string>* notes) {
  return load(read_input_file_bounded(path), path.string(), sets, check, notes);
}

Scenario load_scenario_text(std::string_view text, std::string_view source_name,
                            const std::vector<std::string>& sets, LayoutCheck check,
                            std::vector<std::string>* notes) {
  return load(text, std::string(source_name), sets, check, notes);
}

Scenario default_scenario(const std::vector<std::string>& sets, LayoutCheck check,
                          std::vector<std::string>* notes) {
  const EmbeddedFile* file = find_embedded_file(default_scenario_path);
  if (file == nullptr) throw ScenarioError("default scenario", "", "not embedded in this build");
  return load(file->text, "default scenario", sets, check, notes);
}

}  // namespace clustersim::scenarios
