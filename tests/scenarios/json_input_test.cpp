#include "scenarios/json_input.hpp"

#include <doctest/doctest.h>

#include <string>

namespace clustersim::scenarios {
namespace {

std::string json_error_of(std::string_view text) {
  try {
    (void)parse_json_input(text);
  } catch (const JsonInputError& error) {
    return error.what();
  }
  return "(accepted)";
}

std::string nested(int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); }

TEST_CASE("json input: nesting up to the limit parses, one level more is refused before parsing") {
  CHECK(parse_json_input(nested(kMaxJsonDepth)).is_array());
  CHECK(json_error_of(nested(kMaxJsonDepth + 1)) == "nested deeper than 64 levels at line 1, column 65");
  // 100,000 levels: the crash (stack overflow) and the gigabytes of the issue's reproducer.
  CHECK(json_error_of(nested(100'000)).starts_with("nested deeper than 64 levels"));
  CHECK(json_error_of("{\"a\":" + std::string(70, '{')).starts_with("nested deeper than 64 levels at line 1, column 69"));
  // Brackets inside strings open nothing, escaped quotes included.
  const std::string brackets = "[\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\"]";
  CHECK(parse_json_input(brackets).at(0).get<std::string>().size() == 201);
}

TEST_CASE("json input: a NUL byte, and garbage after it, is refused") {
  using namespace std::string_literals;
  CHECK(json_error_of("{\"a\": 1}\0garbage"s) == "a NUL byte at line 1, column 9 (JSON text holds none)");
  CHECK(json_error_of("{\"a\":\n 1}\n\0"s) == "a NUL byte at line 3, column 1 (JSON text holds none)");
  CHECK(json_error_of("{\"a\": 1} x").starts_with("malformed JSON: parse error at line 1, column 10"));
  CHECK(parse_json_input("{\"a\": 1} \n\t ").at("a") == 1);
}

TEST_CASE("json input: a number beyond a double names its pointer and the rule") {
  CHECK(json_error_of(R"({"training": {"tokens": 1e999}})") == "/training/tokens: must be a finite number (a double), got 1e999");
  CHECK(json_error_of(R"({"a": [1, 2, -1e309]})") == "/a/2: must be a finite number (a double), got -1e309");
  CHECK(json_error_of("1e400") == "must be a finite number (a double), got 1e400");
  CHECK(parse_json_input("[1e308, 1e-400]").at(1).get<double>() == 0.0);  // underflow is a zero, not an error
}

TEST_CASE("json input: duplicate keys are refused, control characters are escaped in messages") {
  CHECK(json_error_of(R"({"a": {"b": 1, "b": 2}})") == "/a/b: duplicate key");
  CHECK(json_error_of(R"({"a/b~": 1, "a/b~": 2})") == "/a~1b~0: duplicate key");
  const JsonInputError error("/\u0001\n", "rule");
  CHECK(std::string(error.what()) == "/\\u0001\\n: rule");
  CHECK(error.pointer() == "/\u0001\n");
  // The key "\u0000" keeps the message whole.
  const std::string message = json_error_of(R"({"\u0000": 1, "\u0000": 2})");
  CHECK(message == "/\\u0000: duplicate key");
}

TEST_CASE("json input: ordered documents keep their key order") {
  const auto document = parse_ordered_json_input(R"({"z": 1, "a": 2})");
  CHECK(document.begin().key() == "z");
  CHECK_THROWS_AS((void)parse_ordered_json_input(nested(65)), JsonInputError);
}

TEST_CASE("json input: a --set value is JSON when it parses, text otherwise, an error when out of range") {
  CHECK(parse_json_or_text("8") == nlohmann::json(8));
  CHECK(parse_json_or_text("[1, 2]") == nlohmann::json::array({1, 2}));
  CHECK(parse_json_or_text("h200-sxm") == nlohmann::json("h200-sxm"));
  CHECK(parse_json_or_text("") == nlohmann::json(""));
  CHECK(parse_json_or_text("Grüße") == nlohmann::json("Grüße"));
  CHECK_THROWS_WITH_AS((void)parse_json_or_text("1e999"), "must be a finite number (a double), got 1e999", JsonInputError);
  CHECK_THROWS_AS((void)parse_json_or_text(nested(1000)), JsonInputError);
  // Text that is no UTF-8 cannot be a JSON string (nlohmann would throw when writing it).
  CHECK_THROWS_WITH_AS((void)parse_json_or_text("ab\xff"), "not UTF-8 text (byte 3)", JsonInputError);
  CHECK_THROWS_WITH_AS((void)parse_json_or_text("\xc0\x80"), "not UTF-8 text (byte 1)", JsonInputError);  // overlong NUL
  CHECK_THROWS_WITH_AS((void)parse_json_or_text("\xed\xa0\x80"), "not UTF-8 text (byte 1)", JsonInputError);  // surrogate
}

}  // namespace
}  // namespace clustersim::scenarios
