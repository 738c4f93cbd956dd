#pragma once
/// The part of TOML (toml.io, v1.0.0) that torchtitan's job configs use, read into JSON (tables
/// become objects, keys keep their file order) and written back. Read: comments; [table] and
/// [dotted.table] headers; bare, quoted and dotted keys; basic "strings" (escapes \" \\ \n \t \r
/// \uXXXX) and literal 'strings'; decimal integers (sign, _ separators); floats (fraction and/or
/// exponent); true and false; arrays of these, nested, over several lines, with a trailing comma.
/// Not read (an error names the line and what is not supported): inline tables, arrays of tables
/// [[...]], multi-line strings, dates and times, hexadecimal, octal and binary integers, inf and
/// nan; a key or table defined twice is an error, as TOML has it.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::handoff {

/// A TOML text outside the subset or not TOML at all: "<source>:<line>: <what> (<rule>)".
class TomlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The document as one object: top-level keys, then a member object per table.
nlohmann::ordered_json parse_toml_subset(std::string_view text, std::string_view source);

/// `document` as TOML: its scalar and array members first, then each object member as a
/// [table] (nested objects as [table.sub]), in member order, each table after a blank line.
/// `header` lines are written first as comments. Members must be strings, integers, floats,
/// booleans, arrays of these, or objects of them; null is an error (TOML has none).
std::string write_toml(const nlohmann::ordered_json& document, const std::vector<std::string>& header = {});

}  // namespace clustersim::handoff
