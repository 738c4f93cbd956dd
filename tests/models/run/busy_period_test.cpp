#include "models/run/busy_period.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace clustersim::models::busy_period_test {
namespace {

// A busy period of Poisson arrivals at rate L, each lasting d, lasts (e^(L d) - 1) / L on average
// and holds e^(L d) arrivals (the M/G/infinity busy period; Takacs).
void check_mean(double rate, double duration, int samples) {
  Random random(17);
  double length = 0.0, arrivals = 0.0;
  for (int i = 0; i < samples; ++i) {
    const BusyPeriod period = sample_busy_period(rate, duration, random);
    length += period.length_s / samples;
    arrivals += static_cast<double>(period.arrivals) / samples;
  }
  CAPTURE(rate * duration);
  CHECK(length == doctest::Approx(std::expm1(rate * duration) / rate).epsilon(0.03));
  CHECK(arrivals == doctest::Approx(std::exp(rate * duration)).epsilon(0.03));
}

TEST_CASE("busy period: mean length and arrivals match the closed form") {
  check_mean(1.0 / 3600.0, 1800.0, 40000);  // L d = 0.5: a few gaps, each drawn exactly
  check_mean(6.0 / 1800.0, 1800.0, 20000);  // L d = 6: about 400 gaps, their sum by the normal law
}

TEST_CASE("busy period: no rate, and a rate that never leaves a gap") {
  Random random(1);
  CHECK(sample_busy_period(0.0, 60.0, random).length_s == 60.0);
  CHECK(std::isinf(sample_busy_period(1.0, 1e4, random).length_s));
}

}  // namespace
}  // namespace clustersim::models::busy_period_test
