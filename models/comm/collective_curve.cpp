#include "models/comm/collective_curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace clustersim::models {

namespace {

double segment_time_s(const CurveSegment& s, double bytes, double bus_factor) {
  if (s.busbw_bytes_per_s <= 0.0) return s.alpha_s;
  return s.alpha_s + bytes * bus_factor / s.busbw_bytes_per_s;
}

}  // namespace

double CollectiveCurve::time_s(double bytes, double bus_factor) const {
  if (segments.empty()) throw std::logic_error("collective curve without segments");
  const double size = std::max(bytes, 1.0);
  // The segments that end below `size` and start above it: the nearest of each side.
  const CurveSegment* below = nullptr;
  const CurveSegment* above = nullptr;
  for (const auto& s : segments) {
    if (s.min_bytes <= size && size <= s.max_bytes) return segment_time_s(s, bytes, bus_factor);
    if (s.max_bytes < size && (below == nullptr || s.max_bytes > below->max_bytes)) below = &s;
    if (s.min_bytes > size && (above == nullptr || s.min_bytes < above->min_bytes)) above = &s;
  }
  if (below == nullptr) return segment_time_s(*above, bytes, bus_factor);
  if (above == nullptr) return segment_time_s(*below, bytes, bus_factor);
  // Between two measured ranges: each segment's line holds only where it was fitted (a short
  // segment's bulk rate can exceed anything the hardware reaches), so the time runs from the lower
  // range's last measured size to the upper range's first along a straight line in log time
  // against log size, which keeps it between its neighbours and rising with the size.
  const double lo = std::max(below->max_bytes, 1.0);
  const double hi = std::max(above->min_bytes, 1.0);
  const double t_lo = segment_time_s(*below, lo, bus_factor);
  const double t_hi = segment_time_s(*above, hi, bus_factor);
  if (!(t_lo > 0.0) || !(t_hi > 0.0)) return segment_time_s(*below, bytes, bus_factor);  // no log of a zero time
  const double f = std::log(size / lo) / std::log(hi / lo);
  return std::exp(std::log(t_lo) + f * (std::log(t_hi) - std::log(t_lo)));
}

}  // namespace clustersim::models
