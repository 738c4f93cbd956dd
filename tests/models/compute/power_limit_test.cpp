#include "models/compute/power_limit.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

namespace {

using namespace clustersim::models;

}  // namespace

TEST_CASE("power limit: the clock under a cap follows the cube root of the switching power left") {
  const PowerEnvelope hopper = power_envelope("h100-sxm");
  CHECK(hopper.rated_w.value == 700.0);
  CHECK(hopper.idle_w.value == 111.0);
  // Meta's 500 W of 700: (500 - 111) / (700 - 111) = 0.66044 of the switching power, whose cube
  // root is 0.87078 of the clock (0.87078^3 = 0.66028 checks it to four digits).
  CHECK(power_limited_clock_factor(hopper, 500.0) == doctest::Approx(0.87078).epsilon(1e-4));
  // Half the switching power: 2^(-1/3) of the clock.
  CHECK(power_limited_clock_factor(hopper, 111.0 + 589.0 / 2.0) == doctest::Approx(0.793700526).epsilon(1e-9));
  // At, above or without a limit: the profile's own clock.
  CHECK(power_limited_clock_factor(hopper, 700.0) == 1.0);
  CHECK(power_limited_clock_factor(hopper, 900.0) == 1.0);
  CHECK(power_limited_clock_factor(hopper, 0.0) == 1.0);
  // Lower caps, lower clocks.
  CHECK(power_limited_clock_factor(hopper, 400.0) < power_limited_clock_factor(hopper, 500.0));
  // No clock runs under the rest draw.
  CHECK_THROWS_AS(power_limited_clock_factor(hopper, 111.0), std::invalid_argument);
  CHECK_THROWS_AS(power_limited_clock_factor(hopper, 50.0), std::invalid_argument);
}

TEST_CASE("power limit: every bundled profile has an envelope, the rest draw below the rated limit") {
  for (const char* gpu : {"a100-80gb", "h100-sxm", "h200-sxm", "b200", "gb200", "gb300"}) {
    CAPTURE(gpu);
    const PowerEnvelope e = power_envelope(gpu);
    CHECK(e.idle_w.value > 0.0);
    CHECK(e.idle_w.value < e.rated_w.value);
    CHECK_FALSE(e.rated_w.source.empty());
    CHECK_FALSE(e.idle_w.source.empty());
  }
  // The boards without a measured rest draw take the H200's share of its limit: 1000 x 111 / 700.
  CHECK(power_envelope("b200").idle_w.value == doctest::Approx(158.571).epsilon(1e-5));
  CHECK_THROWS_AS(power_envelope("v100"), std::invalid_argument);
}
