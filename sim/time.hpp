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
