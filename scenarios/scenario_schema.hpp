#pragma once
/// The scenario JSON format as data: for every key its JSON pointer, type, unit, default, meaning
/// and bounds, with accessors into Scenario that convert between the written unit and SI.
/// The loader, the writer, field validation and `clustersim explain` all read this one table, so
/// the format and its documentation cannot drift apart. To add a key, add one Field; to add a
/// section, add one Section (see scenario_schema.cpp).

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {

/// `array`: a JSON array held as its compact JSON text in the string alternative of FieldValue,
/// its items checked by Field::check_array (sweep.configs).
enum class ValueType { integer, unsigned_integer, number, boolean, string, enumeration, array };

/// A scalar as written in the JSON (in the key's unit): integer, unsigned integer (seeds),
/// number, boolean, or string (also enumeration names).
using FieldValue = std::variant<std::int64_t, std::uint64_t, double, bool, std::string>;

/// Allowed range of a numeric key, in the key's unit. Integers and numbers only.
/// `or_zero`: 0 is allowed too, outside the range (a key whose 0 means "none").
struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  double max = std::numeric_limits<double>::infinity();
  bool or_zero = false;

  bool contains(double x) const {
    return (or_zero && x == 0.0) || ((min_exclusive ? x > min : x >= min) && x <= max);
  }
  /// The range as explain shows it: "1..1048576" (integers), "(0, 24]", "0 or [1, 200000]",
  /// ">= 0"; "any" without bounds.
  std::string text(bool integer) const;
};

/// The unit a key is written in and its conversion to SI: si = value * mul / div.
/// Exactly one of mul, div differs from 1, so each direction rounds once.
struct Unit {
  std::string_view symbol{};  // as shown by explain; empty for plain counts
  double mul = 1.0;
  double div = 1.0;
};

/// Where the value of an absent key comes from.
enum class DefaultKind {
  value,              // the Scenario{} default
  preset_or_required, // the section's preset; required when the section names none
  preset_or_value,    // the section's preset; else the Scenario{} default
  derived,            // computed from other keys after loading (Field::derive)
};

struct Field {
  std::string_view key{};
  ValueType type = ValueType::integer;
  Unit unit{};
  std::string_view meaning{};
  Bounds bounds{};
  std::vector<std::string_view> choices{};  // enumeration names, in the enum's order
  DefaultKind default_kind = DefaultKind::value;
  std::string_view derived_from{};          // derived: the rule, as shown by explain
  // derived: the keys (JSON pointers) the rule reads whose change by --set or by a sweep config
  // makes a value the document writes stale, so that it is derived again unless set as well.
  std::vector<std::string_view> rederived_when{};
  std::function<FieldValue(const Scenario&)> get{};         // in the key's unit
  std::function<void(Scenario&, const FieldValue&)> set{};  // value must pass check()
  // derived: fills the value in; returns the broken rule when it cannot.
  std::function<std::optional<std::string>(Scenario&)> derive{};
  // array: the first broken rule of a value (its JSON text), pointer relative to the key.
  std::function<std::optional<Violation>(std::string_view json_text)> check_array{};

  /// What a valid value looks like: "a positive integer", "one of gpipe|1f1b|interleaved".
  std::string requirement() const;
  /// Whether a value of the right type is allowed (bounds, enumeration names).
  bool accepts(const FieldValue& value) const;
};

enum class PresetKind { none, gpu, model };

/// A JSON object of the scenario: the document root, a top-level section, or a nested object.
struct Section {
  std::string_view pointer{};  // "" for the root, "/cluster/gpu"
  std::string_view meaning{};
  bool required = false;
  PresetKind preset = PresetKind::none;  // the object may name a preset in its "preset" key
  bool preset_shorthand = false;         // a bare string stands for {"preset": string}
  std::size_t index_in_parent = 0;       // written after this many of the parent's fields
  std::vector<Field> fields{};

  /// The last token of the pointer ("gpu" for "/cluster/gpu"; "" for the root).
  std::string_view key() const;
  /// The parent's pointer ("/cluster" for "/cluster/gpu"); the root has none.
  std::string_view parent() const;
  const Field* find_field(std::string_view key) const;
};

/// Every section, parents before children, in the order the normalised JSON writes them.
const std::vector<Section>& scenario_sections();
const Section* find_section(std::string_view pointer);
/// The direct children of a section, in order.
std::vector<const Section*> child_sections(const Section& parent);
/// Every key an object of this section may hold: fields, "preset", child sections.
std::vector<std::string_view> allowed_keys(const Section& section);

/// Shortest text that reads back as the same value; strings in JSON quotes.
std::string format_value(const FieldValue& value);

/// SI <-> written unit. to_unit picks a written value that converts back to exactly `si`,
/// so a normalised scenario reloads bit-identically.
double from_unit(double value, const Unit& unit);
double to_unit(double si, const Unit& unit);

/// One row of `clustersim explain`.
struct KeyDoc {
  std::string pointer{};
  std::string type{};  // integer, number, boolean, string, enum, "string|object"
  std::vector<std::string> choices{};
  std::optional<FieldValue> default_value{};  // when the default is a plain value
  // Always set: the value; "preset" (from the section's preset, required without one);
  // "preset, else <value>"; "required"; "none"; or the rule deriving it.
  std::string default_text{};
  std::string unit{};
  std::optional<Bounds> bounds{};  // numeric keys: the allowed range, in `unit`
  std::string range{};             // its text (Bounds::text); empty for other keys
  std::string meaning{};
};

/// Every key of the format, in document order.
std::vector<KeyDoc> explain_keys();

}  // namespace clustersim::scenarios
