#pragma once
/// Parsing JSON that comes from outside the program (scenario files, --set values, calibration
/// profiles, sweep configs, bench records, files to merge) with the rules every such document
/// meets:
///  - nesting at most kMaxJsonDepth levels (scenarios need 4, profiles 5): nlohmann::json has no
///    depth option, and a 100,000-deep "[[[...]]]" of 200 KB would take gigabytes or overflow the
///    stack, so the depth is checked by a scan before the parse;
///  - no NUL byte: nlohmann's lexer takes one for the end of the input, which would accept any
///    garbage after "{...}\0"; only whitespace may follow the document;
///  - numbers finite: 1e999 is an error naming the value's JSON pointer, not a library exception;
///  - no duplicate key in an object (nlohmann would keep the last one silently).
/// Every problem is a JsonInputError with the JSON pointer of the value (empty for the document)
/// and a rule; messages quote no raw control character.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace clustersim::scenarios {

inline constexpr int kMaxJsonDepth = 64;

class JsonInputError : public std::runtime_error {
 public:
  JsonInputError(std::string pointer, std::string rule);
  const std::string& pointer() const { return pointer_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string pointer_;
  std::string rule_;
};

/// The JSON document `text`; throws JsonInputError (rule "malformed JSON: ..." for a syntax
/// error, with nlohmann's line and column).
nlohmann::json parse_json_input(std::string_view text);
nlohmann::ordered_json parse_ordered_json_input(std::string_view text);

/// The offset of the first byte of `text` that does not belong to a well-formed UTF-8 sequence
/// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF); nullopt for UTF-8 text.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

/// A --set value: `text` as JSON if it is JSON, else `text` as a JSON string. Text that is JSON
/// but breaks a rule above (too deep, a number out of range) throws, and so does text that is not
/// UTF-8 (a JSON string holds UTF-8 only).
nlohmann::json parse_json_or_text(std::string_view text);

}  // namespace clustersim::scenarios
