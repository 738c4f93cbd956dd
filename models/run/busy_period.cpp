#include "models/run/busy_period.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace clustersim::models {

BusyPeriod sample_busy_period(double rate, double duration_s, Random& random) {
  const double x = rate * duration_s;
  if (!(x > 0)) return {.length_s = duration_s, .arrivals = 1};
  const double p_end = std::exp(-x);  // a gap is long enough to end the period
  if (!(p_end > 0)) return {.length_s = std::numeric_limits<double>::infinity(), .arrivals = 1};
  // N short gaps before the long one: geometric, P(N >= n) = (1 - p_end)^n.
  const double log_continue = std::log1p(-p_end);
  const double n_real = log_continue < 0 ? std::floor(std::log(random.uniform_open0()) / log_continue) : 0.0;
  // Beyond 2^53 gaps the period outlasts any horizon anyway.
  if (!(n_real < 9.0e15)) return {.length_s = std::numeric_limits<double>::infinity(), .arrivals = 1};
  const auto n = static_cast<std::int64_t>(n_real);
  const double short_mass = -std::expm1(-x);  // P(gap < duration)
  double gaps = 0.0;
  constexpr std::int64_t exact_up_to = 64;
  if (n <= exact_up_to) {
    // Inverse CDF of the exponential truncated to [0, duration).
    for (std::int64_t i = 0; i < n; ++i) gaps += -std::log1p(-random.uniform_open0() * short_mass) / rate;
  } else {
    const double odds = p_end / short_mass;
    const double mean = 1.0 / rate - duration_s * odds;
    const double second = 2.0 / (rate * rate) - (duration_s * duration_s + 2.0 * duration_s / rate) * odds;
    const double sd = std::sqrt(std::max(0.0, second - mean * mean));
    // Box-Muller: one standard normal from two uniforms.
    const double z = std::sqrt(-2.0 * std::log(random.uniform_open0())) *
                     std::cos(2.0 * std::numbers::pi * random.uniform_open0());
    const auto count = static_cast<double>(n);
    gaps = std::clamp(count * mean + std::sqrt(count) * sd * z, 0.0, count * duration_s);
  }
  return {.length_s = gaps + duration_s, .arrivals = n + 1};
}

double SlowPeriods::next_change() const {
  if (!started_) return std::numeric_limits<double>::infinity();
  return active_ ? until_ : next_start_;
}

void SlowPeriods::set_rate(double now, double rate) {
  constexpr double infinity = std::numeric_limits<double>::infinity();
  if (!started_) {
    // The first rate draws the first gap, as a unit exponential scaled by the rate.
    started_ = true;
    unit_gap_ = random_.exponential(1.0);
    rate_ = rate;
    next_start_ = rate > 0 ? now + unit_gap_ / rate : infinity;
    return;
  }
  if (rate == rate_) return;
  if (!active_) {
    if (rate_ > 0) unit_gap_ = (next_start_ - now) * rate_;
    next_start_ = rate > 0 ? now + unit_gap_ / rate : infinity;
  }
  rate_ = rate;
}

std::int64_t SlowPeriods::change(double now) {
  if (active_) {
    active_ = false;
    unit_gap_ = random_.exponential(1.0);
    next_start_ = rate_ > 0 ? now + unit_gap_ / rate_ : std::numeric_limits<double>::infinity();
    return 0;
  }
  const BusyPeriod period = sample_busy_period(rate_, duration_s_, random_);
  active_ = true;
  until_ = now + period.length_s;
  return period.arrivals;
}

}  // namespace clustersim::models
