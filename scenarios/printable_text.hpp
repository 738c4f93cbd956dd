#pragma once
/// Text as it may appear inside a one-line error message: control characters (a NUL from a JSON
/// key "\u0000", a newline, an escape sequence) are written as \n, \t, \r or \u00XX, so that a
/// message is never cut at a NUL, split over lines or able to move the terminal's cursor.
/// Bytes 0x80 and above (UTF-8) are kept as they are.

#include <string>
#include <string_view>

namespace clustersim::scenarios {

inline std::string printable(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  constexpr char hex[] = "0123456789abcdef";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      result += c;
    } else if (c == '\n') {
      result += "\\n";
    } else if (c == '\t') {
      result += "\\t";
    } else if (c == '\r') {
      result += "\\r";
    } else {
      result += "\\u00";
      result += hex[byte >> 4];
      result += hex[byte & 0xf];
    }
  }
  return result;
}

}  // namespace clustersim::scenarios
