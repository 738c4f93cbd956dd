#include "models/run/checkpoint_interval.hpp"

#include <cmath>

namespace clustersim::models {

double young_interval_s(double delta_s, double mtti_s) { return std::sqrt(2.0 * delta_s * mtti_s); }

double daly_interval_s(double delta_s, double mtti_s) {
  if (delta_s >= 2.0 * mtti_s) return mtti_s;
  const double x = delta_s / (2.0 * mtti_s);
  return std::sqrt(2.0 * delta_s * mtti_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

double first_order_waste(double tau_s, double delta_s, double restart_s, double mtti_s) {
  return delta_s / tau_s + (tau_s / 2.0 + restart_s) / mtti_s;
}

double daly_expected_wall_s(double solve_s, double tau_s, double delta_s, double restart_s, double mtti_s) {
  return mtti_s * std::exp(restart_s / mtti_s) * std::expm1((tau_s + delta_s) / mtti_s) * solve_s / tau_s;
}

}  // namespace clustersim::models
