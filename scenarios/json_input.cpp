#include "scenarios/json_input.hpp"

#include <optional>
#include <set>
#include <vector>

#include "scenarios/printable_text.hpp"

namespace clustersim::scenarios {
namespace {

std::string position_text(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The scan before the parse: depth and NUL bytes. Strings are skipped (a "[" in a string opens
// nothing); brackets are only counted, matching them is the parser's job.
void check_depth_and_nul(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  std::size_t line = 1, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (c == '\0') throw JsonInputError("", "a NUL byte at " + position_text(line, column) + " (JSON text holds none)");
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
        ++column;
        if (i < text.size() && text[i] == '\0') {
          throw JsonInputError("", "a NUL byte at " + position_text(line, column) + " (JSON text holds none)");
        }
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw JsonInputError("", "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at " +
                                     position_text(line, column));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// RFC 6901: "~" and "/" inside a key are escaped in a pointer.
std::string append_pointer(std::string_view parent, std::string_view key) {
  std::string pointer(parent);
  pointer += '/';
  for (const char c : key) {
    if (c == '~') pointer += "~0";
    else if (c == '/') pointer += "~1";
    else pointer += c;
  }
  return pointer;
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string library_message(const std::exception& error) {
  std::string what = error.what();
  if (const auto end = what.find("] "); end != std::string::npos) what = what.substr(end + 2);
  return what;
}

template <class Json>
Json parse_checked(std::string_view text) {
  check_depth_and_nul(text);
  struct Frame {
    bool is_object = false;
    std::string pointer;
    std::set<std::string> keys{};
    std::string last_key{};
    std::size_t elements = 0;
  };
  std::vector<Frame> open;
  const auto element_pointer = [&open]() -> std::string {
    if (open.empty()) return "";
    const Frame& parent = open.back();
    return append_pointer(parent.pointer, parent.is_object ? parent.last_key : std::to_string(parent.elements));
  };
  const auto element_done = [&open] {
    if (!open.empty() && !open.back().is_object) ++open.back().elements;
  };
  using Event = typename Json::parse_event_t;
  const typename Json::parser_callback_t callback = [&](int, Event event, Json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        open.push_back({.is_object = event == Event::object_start, .pointer = element_pointer()});
        break;
      case Event::object_end:
      case Event::array_end:
        open.pop_back();
        element_done();
        break;
      case Event::key: {
        Frame& frame = open.back();
        frame.last_key = parsed.template get<std::string>();
        if (!frame.keys.insert(frame.last_key).second) {
          throw JsonInputError(append_pointer(frame.pointer, frame.last_key), "duplicate key");
        }
        break;
      }
      case Event::value:
        element_done();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), callback);
  } catch (const typename Json::parse_error& error) {
    throw JsonInputError("", "malformed JSON: " + library_message(error));
  } catch (const typename Json::out_of_range& error) {
    // 406: a number too large for a double ("1e999"); the frames say where it stood.
    std::string number = library_message(error);
    if (const auto quote = number.find('\''); quote != std::string::npos) {
      number = number.substr(quote + 1);
      if (!number.empty() && number.back() == '\'') number.pop_back();
    }
    throw JsonInputError(element_pointer(), "must be a finite number (a double), got " + number);
  }
}

}  // namespace

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
    if (byte < 0x80) length = 1;
    else if (byte >= 0xc2 && byte <= 0xdf) length = 2;
    else if (byte >= 0xe0 && byte <= 0xef) {
      length = 3;
      if (byte == 0xe0) low = 0xa0;
      if (byte == 0xed) high = 0x9f;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      length = 4;
      if (byte == 0xf0) low = 0x90;
      if (byte == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return std::nullopt;
}

JsonInputError::JsonInputError(std::string pointer, std::string rule)
    : std::runtime_error(printable(pointer.empty() ? rule : pointer + ": " + rule)),
      pointer_(std::move(pointer)),
      rule_(std::move(rule)) {}

nlohmann::json parse_json_input(std::string_view text) { return parse_checked<nlohmann::json>(text); }

nlohmann::ordered_json parse_ordered_json_input(std::string_view text) {
  return parse_checked<nlohmann::ordered_json>(text);
}

nlohmann::json parse_json_or_text(std::string_view text) {
  try {
    return parse_checked<nlohmann::json>(text);
  } catch (const JsonInputError& error) {
    if (!error.rule().starts_with("malformed JSON")) throw;
  }
  if (const auto bad = first_invalid_utf8(text)) {
    throw JsonInputError("", "not UTF-8 text (byte " + std::to_string(*bad + 1) + ")");
  }
  return nlohmann::json(std::string(text));
}

}  // namespace clustersim::scenarios
