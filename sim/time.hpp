#pragma once
/// Simulated time as integer nanoseconds.
/// Integer time keeps event order exact and runs byte-identical; 2^63 ns is about 292 years,
/// far beyond any training run. Conversions to and from seconds round to the nearest nanosecond.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace clustersim::sim {

class Time {
 public:
  constexpr Time() = default;

  static constexpr Time from_ns(std::int64_t ns) { return Time(ns); }
  static Time from_seconds(double seconds) { return Time(static_cast<std::int64_t>(std::llround(seconds * 1e9))); }
  /// A duration of `ns` >= 0 nanoseconds rounded up to a whole nanosecond, so that an event set
  /// by it never fires before the work it waits for is done. Beyond 2^62 ns (146 years) it is
  /// 2^62 ns, which any time a run reaches can still be added to.
  /// (std::ceil is a library call on baseline x86-64, and the engine rounds once per event.)
  static constexpr Time from_ns_rounded_up(double ns) {
    constexpr std::int64_t limit = std::int64_t{1} << 62;
    if (!(ns < static_cast<double>(limit))) return Time(limit);
    const auto whole = static_cast<std::int64_t>(ns);
    return Time(whole + (static_cast<double>(whole) < ns ? 1 : 0));
  }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t ns() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }

  constexpr Time operator+(Time other) const { return Time(ns_ + other.ns_); }
  constexpr Time operator-(Time other) const { return Time(ns_ - other.ns_); }
  constexpr Time& operator+=(Time other) {
    ns_ += other.ns_;
    return *this;
  }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

}  // namespace clustersim::sim
