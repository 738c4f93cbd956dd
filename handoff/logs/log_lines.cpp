#include "handoff/logs/log_lines.hpp"

#include <charconv>
#include <cmath>

namespace clustersim::handoff {

std::vector<LogLine> log_lines(std::string_view text) {
  std::vector<LogLine> lines;
  int number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({.number = ++number, .text = line});
    start = end + 1;
  }
  return lines;
}

std::optional<double> number_after(std::string_view line, std::string_view label, bool grouped) {
  const std::size_t at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + label.size();
  while (i < line.size() && line[i] == ' ') ++i;
  std::string digits;
  while (i < line.size()) {
    const char c = line[i];
    const bool part = (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
                      (c == '-' && (digits.empty() || digits.back() == 'e' || digits.back() == 'E'));
    if (part) {
      digits += c;
    } else if (!(grouped && c == ',' && !digits.empty())) {
      break;
    }
    ++i;
  }
  double value = 0.0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> step_after(std::string_view line, std::string_view label, std::int64_t least) {
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  const auto value = number_after(line, label);
  if (!value || *value < static_cast<double>(least) || *value >= kExactLimit || *value != std::floor(*value))
    return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

}  // namespace clustersim::handoff
