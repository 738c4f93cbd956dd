#include "handoff/toml/toml_subset.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace clustersim::handoff {

namespace {

using Json = nlohmann::ordered_json;

bool is_bare_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/// A cursor over the whole text that knows its line, for errors.
class Reader {
 public:
  Reader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Json document() {
    Json root = Json::object();
    Json* table = &root;
    while (true) {
      skip_blank_lines();
      if (at_end()) break;
      if (peek() == '[') {
        table = &open_table(root);
      } else {
        key_value(*table);
      }
      end_of_line();
    }
    return root;
  }

 private:
  [[noreturn]] void fail(std::string_view what, std::string_view rule) const {
    throw TomlError(fmt::format("{}:{}: {} ({})", source_, line_, what, rule));
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  char take() {
    const char c = text_[pos_++];
    if (c == '\n') ++line_;
    return c;
  }
  void skip_spaces() {
    while (!at_end() && (peek() == ' ' || peek() == '\t')) ++pos_;
  }
  void skip_comment() {
    if (peek() == '#')
      while (!at_end() && peek() != '\n') ++pos_;
  }
  void skip_blank_lines() {
    while (!at_end()) {
      skip_spaces();
      skip_comment();
      if (peek() == '\r') ++pos_;
      if (peek() != '\n') return;
      take();
    }
  }
  // Inside arrays: newlines and comments are whitespace.
  void skip_array_space() {
    while (!at_end()) {
      skip_spaces();
      skip_comment();
      if (peek() == '\r') ++pos_;
      if (peek() != '\n') return;
      take();
    }
  }
  void end_of_line() {
    skip_spaces();
    skip_comment();
    if (peek() == '\r') ++pos_;
    if (at_end()) return;
    if (peek() != '\n') fail(fmt::format("unexpected '{}' after a value", peek()), "one key = value or [table] per line");
    take();
  }

  std::string key_part() {
    skip_spaces();
    if (peek() == '"') return basic_string();
    if (peek() == '\'') return literal_string();
    std::string key;
    while (!at_end() && is_bare_key_char(peek())) key += take();
    if (key.empty()) fail("expected a key", "keys are bare (A-Za-z0-9_-) or quoted");
    return key;
  }
  std::vector<std::string> dotted_key() {
    std::vector<std::string> parts{key_part()};
    skip_spaces();
    while (peek() == '.') {
      ++pos_;
      parts.push_back(key_part());
      skip_spaces();
    }
    return parts;
  }
  static std::string joined(const std::vector<std::string>& parts) {
    std::string s;
    for (const std::string& p : parts) s += (s.empty() ? "" : ".") + p;
    return s;
  }

  Json& open_table(Json& root) {
    ++pos_;
    if (peek() == '[') fail("arrays of tables [[...]] are not supported", "TOML subset: [table] headers only");
    const std::vector<std::string> parts = dotted_key();
    if (peek() != ']') fail("expected ']' closing the table header", "[name] or [dotted.name]");
    ++pos_;
    const std::string name = joined(parts);
    if (!defined_tables_.insert(name).second) fail(fmt::format("table [{}] defined twice", name), "a table is defined once");
    Json* table = &root;
    for (const std::string& part : parts) {
      Json& next = (*table)[part];
      if (next.is_null()) next = Json::object();
      if (!next.is_object()) fail(fmt::format("[{}]: '{}' is already a value", name, part), "a key names a value or a table, not both");
      table = &next;
    }
    return *table;
  }

  void key_value(Json& table) {
    const std::vector<std::string> parts = dotted_key();
    if (peek() != '=') fail(fmt::format("expected '=' after key '{}'", joined(parts)), "key = value");
    ++pos_;
    skip_spaces();
    Json* target = &table;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      Json& next = (*target)[parts[i]];
      if (next.is_null()) next = Json::object();
      if (!next.is_object()) fail(fmt::format("'{}' is already a value", parts[i]), "a key names a value or a table, not both");
      target = &next;
    }
    if (target->contains(parts.back())) fail(fmt::format("key '{}' defined twice", joined(parts)), "a key is defined once");
    (*target)[parts.back()] = value();
  }

  Json value() {
    const char c = peek();
    if (c == '"') {
      if (text_.substr(pos_, 3) == "\"\"\"") fail("multi-line strings are not supported", "TOML subset: one-line strings");
      return basic_string();
    }
    if (c == '\'') {
      if (text_.substr(pos_, 3) == "'''") fail("multi-line strings are not supported", "TOML subset: one-line strings");
      return literal_string();
    }
    if (c == '[') return array();
    if (c == '{') fail("inline tables are not supported", "TOML subset: write the table as [name]");
    if (text_.substr(pos_, 4) == "true" && !is_bare_key_char(text_.size() > pos_ + 4 ? text_[pos_ + 4] : ' ')) {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "false" && !is_bare_key_char(text_.size() > pos_ + 5 ? text_[pos_ + 5] : ' ')) {
      pos_ += 5;
      return false;
    }
    return number();
  }

  Json array() {
    ++pos_;
    Json items = Json::array();
    while (true) {
      skip_array_space();
      if (at_end()) fail("array not closed", "arrays end with ']'");
      if (peek() == ']') break;
      items.push_back(value());
      skip_array_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (at_end()) fail("array not closed", "arrays end with ']'");
      if (peek() != ']') fail("expected ',' or ']' in an array", "values in an array are separated by commas");
      break;
    }
    ++pos_;
    return items;
  }

  Json number() {
    std::string token;
    while (!at_end() && (is_bare_key_char(peek()) || peek() == '.' || peek() == '+' || peek() == ':')) token += take();
    if (token.empty()) fail(fmt::format("unexpected '{}' where a value belongs", peek()), "a value is a string, number, boolean or array");
    const std::string_view body = token.front() == '+' || token.front() == '-' ? std::string_view(token).substr(1) : token;
    if (body == "inf" || body == "nan") fail("inf and nan are not supported", "TOML subset: finite numbers");
    if (body.starts_with("0x") || body.starts_with("0o") || body.starts_with("0b"))
      fail(fmt::format("'{}': hexadecimal, octal and binary integers are not supported", token), "TOML subset: decimal numbers");
    const bool year_first = body.size() > 4 && body[4] == '-' &&
                            std::all_of(body.begin(), body.begin() + 4, [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
    if (token.find(':') != std::string::npos || year_first)
      fail(fmt::format("'{}': dates and times are not supported", token), "TOML subset: no date-time values");
    std::string digits;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] != '_') {
        digits += token[i];
        continue;
      }
      const bool between_digits = i > 0 && i + 1 < token.size() && std::isdigit(static_cast<unsigned char>(token[i - 1])) &&
                                  std::isdigit(static_cast<unsigned char>(token[i + 1]));
      if (!between_digits) fail(fmt::format("'{}': '_' must sit between digits", token), "TOML numbers");
    }
    const bool is_float = digits.find_first_of(".eE") != std::string::npos;
    const char* first = digits.data() + (digits.front() == '+' ? 1 : 0);
    const char* last = digits.data() + digits.size();
    const std::string_view unsigned_digits = std::string_view(digits).substr(digits.front() == '+' || digits.front() == '-' ? 1 : 0);
    if (unsigned_digits.empty() || !std::isdigit(static_cast<unsigned char>(unsigned_digits.front())))
      fail(fmt::format("'{}' is not a value", token), "a value is a string, number, boolean or array; strings are quoted");
    if (unsigned_digits.size() > 1 && unsigned_digits[0] == '0' && std::isdigit(static_cast<unsigned char>(unsigned_digits[1])))
      fail(fmt::format("'{}': leading zeros are not allowed", token), "TOML numbers");
    if (is_float) {
      double v = 0;
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || end != last || !std::isfinite(v)) fail(fmt::format("'{}' is not a number", token), "TOML floats");
      return v;
    }
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || end != last) fail(fmt::format("'{}' is not a 64-bit integer", token), "TOML integers");
    return v;
  }

  std::string literal_string() {
    ++pos_;
    std::string s;
    while (!at_end() && peek() != '\'' && peek() != '\n') s += take();
    if (peek() != '\'') fail("string not closed on its line", "one-line strings end with their quote");
    ++pos_;
    return s;
  }

  std::string basic_string() {
    ++pos_;
    std::string s;
    while (true) {
      if (at_end() || peek() == '\n') fail("string not closed on its line", "one-line strings end with their quote");
      const char c = take();
      if (c == '"') break;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (at_end()) fail("string not closed on its line", "one-line strings end with their quote");
      const char e = take();
      switch (e) {
        case '"': s += '"'; break;
        case '\\': s += '\\'; break;
        case 'n': s += '\n'; break;
        case 't': s += '\t'; break;
        case 'r': s += '\r'; break;
        case 'u': s += unicode_escape(); break;
        default: fail(fmt::format("escape '\\{}' is not supported", e), "TOML subset: \\\" \\\\ \\n \\t \\r \\uXXXX");
      }
    }
    return s;
  }
  std::string unicode_escape() {
    if (pos_ + 4 > text_.size()) fail("\\u needs four hex digits", "\\uXXXX");
    unsigned code = 0;
    const auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code, 16);
    if (ec != std::errc() || end != text_.data() + pos_ + 4) fail("\\u needs four hex digits", "\\uXXXX");
    pos_ += 4;
    std::string out;
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
    return out;
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::set<std::string> defined_tables_{};
};

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string key_text(const std::string& key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), is_bare_key_char);
  return bare ? key : quoted(key);
}

std::string value_text(const Json& v, const std::string& where) {
  if (v.is_string()) return quoted(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_number_float()) {
    std::string s = fmt::format("{}", v.get<double>());
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // TOML reads "2" as an integer
    return s;
  }
  if (v.is_array() && !v.empty() && v[0].is_array()) {
    // An array of arrays (torchtitan's module_fqns_per_model_part): one inner array a line.
    std::string s = "[\n";
    for (const Json& item : v) s += "  " + value_text(item, where) + ",\n";
    return s + "]";
  }
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + value_text(v[i], where);
    return s + "]";
  }
  throw std::invalid_argument(fmt::format("write_toml: {} is {}, which TOML cannot hold", where, v.type_name()));
}

void write_table(const Json& table, const std::string& name, std::string& out) {
  // A table holding only tables needs no header of its own: [a.b] defines [a] (TOML's super-tables).
  const bool has_values = table.empty() || std::any_of(table.begin(), table.end(), [](const Json& v) { return !v.is_object(); });
  if (!name.empty() && has_values) out += fmt::format("{}[{}]\n", out.empty() ? "" : "\n", name);
  for (const auto& [key, v] : table.items())
    if (!v.is_object()) out += fmt::format("{} = {}\n", key_text(key), value_text(v, name + "." + key));
  for (const auto& [key, v] : table.items())
    if (v.is_object()) write_table(v, name.empty() ? key_text(key) : name + "." + key_text(key), out);
}

}  // namespace

nlohmann::ordered_json parse_toml_subset(std::string_view text, std::string_view source) {
  return Reader(text, source).document();
}

std::string write_toml(const nlohmann::ordered_json& document, const std::vector<std::string>& header) {
  std::string out;
  for (const std::string& line : header) out += "# " + line + "\n";
  std::string body;
  write_table(document, "", body);
  return out + body;
}

}  // namespace clustersim::handoff
