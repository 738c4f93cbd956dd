#pragma once
/// Numeric command-line options with a checked range, shared by every subcommand.
/// Boost.Program_options converts with lexical_cast, which wraps "-1" into an unsigned option's
/// largest value and takes "nan", "inf" and hexadecimal for a double. These options read the word
/// as text instead and, when the command line is checked (po::notify), accept only a plain decimal
/// number inside the option's range: an integer of digits (no sign, no exponent), or a finite
/// decimal with an optional sign, fraction and exponent. A word outside that raises po::error
/// "--NAME: must be RULE, got 'WORD'", which the CLI reports with the command's name (exit 2).
/// The rule is also appended to the option's --help line, so the range is stated where it is used.

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <boost/program_options.hpp>

namespace clustersim::tools {

/// Allowed values of an integer option, both ends included.
struct IntRange {
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  std::string rule() const;  // "an integer in 1..100000"
};

/// Allowed values of a real option; `min_exclusive`: the lower end itself is not allowed.
struct RealRange {
  double min = 0.0;
  double max = 0.0;
  bool min_exclusive = false;
  std::string rule() const;  // "a decimal number > 0 and <= 36500"
};

/// Most Monte Carlo runs `failures` and `tco` take per setting: the statistical error of a mean
/// falls as 1 / sqrt(runs), 0.3 % of a run's spread at 100,000, while the time grows with them.
inline constexpr std::uint64_t max_monte_carlo_runs = 100000;

/// Most threads --jobs takes: more than any single machine has cores.
inline constexpr std::uint64_t max_jobs = 1024;

/// A plain decimal integer of digits only; nullopt otherwise (sign, blanks, overflow, empty).
std::optional<std::uint64_t> parse_plain_unsigned(std::string_view text);

/// A finite plain decimal number ("12", "-0.5", "1.5e3"); nullopt for hexadecimal, inf, nan,
/// blanks, trailing text or a value that overflows a double.
std::optional<double> parse_plain_decimal(std::string_view text);

/// Whether `value` lies in `range`.
bool in_range(double value, const RealRange& range);

namespace detail {
boost::program_options::typed_value<std::string>* integer_option(const char* name, IntRange range,
                                                                  std::function<void(std::uint64_t)> store);
}  // namespace detail

/// The value semantic of an integer option bound to `target`, checked against `range` (which must
/// fit T). `name` is the option's long name, for the error message.
template <class T>
boost::program_options::typed_value<std::string>* integer_option(const char* name, T* target, IntRange range) {
  static_assert(std::numeric_limits<T>::is_integer);
  return detail::integer_option(name, range, [target](std::uint64_t value) { *target = static_cast<T>(value); });
}

/// The same for an option without a default: `target` holds a value only when the option was given.
template <class T>
boost::program_options::typed_value<std::string>* integer_option(const char* name, std::optional<T>* target,
                                                                  IntRange range) {
  static_assert(std::numeric_limits<T>::is_integer);
  return detail::integer_option(name, range, [target](std::uint64_t value) { *target = static_cast<T>(value); });
}

/// The value semantic of a real option bound to `target`, checked against `range`.
boost::program_options::typed_value<std::string>* real_option(const char* name, double* target, RealRange range);

/// The value semantic of a file path bound to `target`: an empty word names no file, and is refused
/// rather than taken as "not given". `name` is the option's name in the message ("trace", or
/// "SCENARIO" for a positional argument).
boost::program_options::typed_value<std::string>* path_option(const char* name, std::string* target);

/// `help` followed by the range's rule, for the option's --help line: "HELP; RULE".
std::string with_rule(std::string_view help, const std::string& rule);

}  // namespace clustersim::tools
