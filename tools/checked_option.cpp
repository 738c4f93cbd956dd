#include "tools/checked_option.hpp"

#include <charconv>
#include <cmath>
#include <functional>

#include <fmt/format.h>

namespace clustersim::tools {
namespace {

namespace po = boost::program_options;

// Integers below 1e12 print in full, others as %g without the exponent's '+' ("1e15").
std::string rule_number_text(double value) {
  if (std::abs(value) < 1e12 && value == std::floor(value)) return fmt::format("{:.0f}", value);
  std::string text = fmt::format("{:g}", value);  // "1e+15" -> "1e15"
  if (const auto plus = text.find("e+"); plus != std::string::npos) text.erase(plus + 1, 1);
  return text;
}

[[noreturn]] void reject_option_word(const char* name, const std::string& rule, const std::string& word) {
  throw po::error(fmt::format("--{}: must be {}, got '{}'", name, rule, word));
}

}  // namespace

std::string IntRange::rule() const { return fmt::format("an integer in {}..{}", min, max); }

std::string RealRange::rule() const {
  return fmt::format("a decimal number {} {} and <= {}", min_exclusive ? ">" : ">=", rule_number_text(min),
                     rule_number_text(max));
}

std::optional<std::uint64_t> parse_plain_unsigned(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_plain_decimal(std::string_view text) {
  // sign? digits* (. digits*)? with at least one digit, then (e sign? digits+)?
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  // from_chars does not take a leading '+'.
  const std::string_view number = text.front() == '+' ? text.substr(1) : text;
  double value = 0.0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc{} || end != number.data() + number.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool in_range(double value, const RealRange& range) {
  const bool above_min = range.min_exclusive ? value > range.min : value >= range.min;
  return above_min && value <= range.max;
}

namespace detail {

po::typed_value<std::string>* integer_option(const char* name, IntRange range,
                                             std::function<void(std::uint64_t)> store) {
  return po::value<std::string>()->notifier([name, range, store = std::move(store)](const std::string& word) {
    const auto value = parse_plain_unsigned(word);
    if (!value || *value < range.min || *value > range.max) reject_option_word(name, range.rule(), word);
    store(*value);
  });
}

}  // namespace detail

po::typed_value<std::string>* real_option(const char* name, double* target, RealRange range) {
  return po::value<std::string>()->notifier([name, target, range](const std::string& word) {
    const auto value = parse_plain_decimal(word);
    if (!value || !in_range(*value, range)) reject_option_word(name, range.rule(), word);
    *target = *value;
  });
}

po::typed_value<std::string>* path_option(const char* name, std::string* target) {
  return po::value(target)->notifier([name](const std::string& path) {
    if (!path.empty()) return;
    const bool positional = std::string_view(name).find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string_view::npos;
    throw po::error(fmt::format("{}{}: must be a non-empty path, got ''{}", positional ? "" : "--", name,
                                positional ? " (leave it out for the built-in default)" : ""));
  });
}

std::string with_rule(std::string_view help, const std::string& rule) {
  return fmt::format("{}; {}", help, rule);
}

}  // namespace clustersim::tools
