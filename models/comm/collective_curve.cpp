#include "models/comm/collective_curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace clustersim::models {

double CollectiveCurve::time_s(double bytes, double bus_factor) const {
  if (segments.empty()) throw std::logic_error("collective curve without segments");
  // The segment whose sizes contain `bytes`, else the nearest in log size.
  const CurveSegment* best = &segments.front();
  double best_distance = std::numeric_limits<double>::infinity();
  const double log_bytes = std::log(std::max(bytes, 1.0));
  for (const auto& s : segments) {
    const double lo = std::log(std::max(s.min_bytes, 1.0));
    const double hi = std::log(std::max(s.max_bytes, 1.0));
    const double distance = log_bytes < lo ? lo - log_bytes : (log_bytes > hi ? log_bytes - hi : 0.0);
    if (distance < best_distance) {
      best_distance = distance;
      best = &s;
    }
  }
  if (best->busbw_bytes_per_s <= 0.0) return best->alpha_s;
  return best->alpha_s + bytes * bus_factor / best->busbw_bytes_per_s;
}

}  // namespace clustersim::models
