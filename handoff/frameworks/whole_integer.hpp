#pragma once
/// A configuration's number read whole or refused, never in part: the frameworks' configs and
/// launch scripts are the user's text, and "12abc" or a value past 64 bits is an error to name, not
/// 12 or an exception nobody catches.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace clustersim::handoff {

/// `text` as a whole base-10 integer; nullopt for anything else (a trailing word, an empty text, a
/// value past 64 bits).
inline std::optional<std::int64_t> whole_integer(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace clustersim::handoff
