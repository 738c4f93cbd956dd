#pragma once
/// Simulated time as integer nanoseconds.
/// Integer time keeps event order exact and runs byte-identical; 2^63 ns is about 292 years,
/// far beyond any training run. Conversions to and from seconds round to the nearest nanosecond.
/// Every conversion and sum is checked: a duration or instant that does not fit (not finite, or
/// beyond +-2^63 ns) throws TimeRangeError instead of wrapping into a negative time. Callers that
/// know what the duration stands for catch it and name the quantity and its inputs.

#include <cmath>
#include <compare>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace clustersim::sim {

/// A duration or instant outside what Time holds (|t| < 2^63 ns, about 292 years).
class TimeRangeError : public std::range_error {
 public:
  using std::range_error::range_error;
};

namespace time_detail {
inline std::string seconds_text(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g s", ns * 1e-9);
  return text;
}
// Out of line and cold, so that the checks cost the callers one predictable branch each.
[[noreturn, gnu::cold, gnu::noinline]] inline void duration_out_of_range(double ns) {
  throw TimeRangeError("a duration of " + seconds_text(ns) + " is beyond the 292 years (2^63 ns) simulated time holds");
}
[[noreturn, gnu::cold, gnu::noinline]] inline void sum_out_of_range(std::int64_t a, std::int64_t b, char op) {
  throw TimeRangeError("simulated time " + seconds_text(static_cast<double>(a)) + ' ' + op + ' ' +
                       seconds_text(static_cast<double>(b)) + " is beyond the 292 years (2^63 ns) simulated time holds");
}
}  // namespace time_detail

class Time {
 public:
  constexpr Time() = default;

  /// The longest duration, in seconds, that converts: 2^63 ns less the rounding.
  static constexpr double max_seconds = 0x1p63 * 1e-9;

  static constexpr Time from_ns(std::int64_t ns) { return Time(ns); }
  /// Throws TimeRangeError for a value that is not finite or beyond +-2^63 ns.
  static Time from_seconds(double seconds) {
    const double ns = seconds * 1e9;
    if (!(std::abs(ns) < 0x1p63)) [[unlikely]] time_detail::duration_out_of_range(ns);
    return Time(static_cast<std::int64_t>(std::llround(ns)));
  }
  /// A duration of `ns` >= 0 nanoseconds rounded up to a whole nanosecond, so that an event set
  /// by it never fires before the work it waits for is done. Throws TimeRangeError at 2^63 ns or
  /// more, and for NaN. (std::ceil is a library call on baseline x86-64, and the engine rounds
  /// once per event.)
  static constexpr Time from_ns_rounded_up(double ns) {
    if (!(ns < 0x1p63)) [[unlikely]] time_detail::duration_out_of_range(ns);
    const auto whole = static_cast<std::int64_t>(ns);
    return Time(whole + (static_cast<double>(whole) < ns ? 1 : 0));
  }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t ns() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  /// Seconds from `earlier` to this instant, unchecked: for two instants of one run (0 <= earlier
  /// <= this), whose difference cannot overflow. The engine takes one per rate change.
  constexpr double seconds_since(Time earlier) const { return static_cast<double>(ns_ - earlier.ns_) * 1e-9; }

  /// Sums and differences throw TimeRangeError where they would overflow.
  constexpr Time operator+(Time other) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(ns_, other.ns_, &sum)) [[unlikely]] time_detail::sum_out_of_range(ns_, other.ns_, '+');
    return Time(sum);
  }
  constexpr Time operator-(Time other) const {
    std::int64_t difference = 0;
    if (__builtin_sub_overflow(ns_, other.ns_, &difference)) [[unlikely]]
      time_detail::sum_out_of_range(ns_, other.ns_, '-');
    return Time(difference);
  }
  constexpr Time& operator+=(Time other) { return *this = *this + other; }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

}  // namespace clustersim::sim
