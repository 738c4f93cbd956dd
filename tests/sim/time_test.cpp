#include "sim/time.hpp"

#include <cstdint>
#include <limits>

#include <doctest/doctest.h>

#include "sim/engine.hpp"

using clustersim::sim::Time;
using clustersim::sim::TimeRangeError;

namespace {
constexpr std::int64_t kMaxNs = std::numeric_limits<std::int64_t>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("time: seconds convert to the nearest nanosecond inside the range") {
  CHECK(Time::from_seconds(1.5).ns() == 1'500'000'000);
  CHECK(Time::from_seconds(-2e-9).ns() == -2);
  // 9.2e9 s is just inside 2^63 ns (9.223e9 s); a step of 6.9e12 s, as a GPU of 1e-6 TFLOP/s
  // gives, is far outside.
  CHECK(Time::from_seconds(9.2e9).ns() == 9'200'000'000'000'000'000);
  CHECK_THROWS_AS(Time::from_seconds(9.3e9), TimeRangeError);
  CHECK_THROWS_AS(Time::from_seconds(-9.3e9), TimeRangeError);
  CHECK_THROWS_AS(Time::from_seconds(6.9e12), TimeRangeError);
  CHECK_THROWS_AS(Time::from_seconds(kInfinity), TimeRangeError);
  CHECK_THROWS_AS(Time::from_seconds(std::numeric_limits<double>::quiet_NaN()), TimeRangeError);
  CHECK_THROWS_WITH(Time::from_seconds(1e10),
                    "a duration of 1e+10 s is beyond the 292 years (2^63 ns) simulated time holds");
}

TEST_CASE("time: a rounded-up duration is refused beyond the range instead of saturating") {
  // 2^63 - 1024 is the largest double below 2^63: it still fits.
  CHECK(Time::from_ns_rounded_up(0x1p63 - 1024.0).ns() == kMaxNs - 1023);
  CHECK_THROWS_AS(Time::from_ns_rounded_up(0x1p63), TimeRangeError);
  CHECK_THROWS_AS(Time::from_ns_rounded_up(1e30), TimeRangeError);
  CHECK_THROWS_AS(Time::from_ns_rounded_up(kInfinity), TimeRangeError);
  CHECK_THROWS_AS(Time::from_ns_rounded_up(std::numeric_limits<double>::quiet_NaN()), TimeRangeError);
}

TEST_CASE("time: sums and differences that overflow throw instead of wrapping") {
  const Time almost = Time::from_ns(kMaxNs - 10);
  CHECK((almost + Time::from_ns(10)).ns() == kMaxNs);
  CHECK_THROWS_AS(almost + Time::from_ns(11), TimeRangeError);
  Time accumulated = almost;
  CHECK_THROWS_AS(accumulated += Time::from_ns(kMaxNs), TimeRangeError);
  CHECK(accumulated == almost);  // unchanged by the failed sum
  CHECK((Time::from_ns(-5) - Time::from_ns(kMaxNs - 5)).ns() == -kMaxNs);
  CHECK_THROWS_AS(Time::from_ns(-5) - Time::from_ns(kMaxNs), TimeRangeError);
  CHECK((Time::from_ns(3) + Time::from_ns(-7)).ns() == -4);
  // Two halves of the range: what the engine's saturation at 2^62 once added to a wrapped time.
  const Time half = Time::from_ns(std::int64_t{1} << 62);
  CHECK_THROWS_WITH(half + half,
                    "simulated time 4.61169e+09 s + 4.61169e+09 s is beyond the 292 years (2^63 ns) "
                    "simulated time holds");
}

TEST_CASE("engine: a task too slow for simulated time is an error, not a wrapped or never-finished task") {
  using namespace clustersim::sim;
  // A link of 1 bit/s (0.125 B/s): 1e12 bytes take 8e12 s.
  Engine engine({Resource{"slow-link", 0.125}});
  TaskGraph g;
  const ResourceId link[] = {0};
  const TaskId first = g.add_task({.work = 1e3}, link);
  const TaskId second = g.add_task({.work = 1e12}, link);
  g.add_dependency(first, second);
  CHECK_THROWS_AS(engine.run(g), TimeRangeError);
  // Two durations under the range each whose sum is not.
  TaskGraph chain;
  const TaskId a = chain.add_task({.work = 0.6e9}, link);  // 4.8e9 s each, 9.6e9 s in all
  const TaskId b = chain.add_task({.work = 0.6e9}, link);
  chain.add_dependency(a, b);
  CHECK_THROWS_AS(engine.run(chain), TimeRangeError);
}
