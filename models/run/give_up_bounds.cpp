#include "models/run/give_up_bounds.hpp"

#include <cmath>

namespace clustersim::models {

double expected_commit_s(double rate, double restart_s, double compute_s, double stall_s) {
  if (!(rate > 0)) return compute_s + stall_s;
  return std::exp(rate * restart_s) * std::expm1(rate * (compute_s + stall_s)) / rate;
}

double chernoff_fraction(double intervals) {
  const double target = std::log(1e-9) / intervals;
  double low = 0.0, high = 1.0;
  // ln a + 1 - a rises on (0, 1): bisect for the a where it reaches the target.
  for (int i = 0; i < 60; ++i) {
    const double a = 0.5 * (low + high);
    (std::log(a) + 1.0 - a < target ? low : high) = a;
  }
  return low;
}

}  // namespace clustersim::models
