#pragma once
/// Busy periods of a Poisson stream of events that each last a fixed time: from an arrival while
/// none is active until no event is active any more. A straggler slows the whole job while it
/// lasts, and several at once slow it no more than one (run_simulation.hpp), so only these periods
/// matter, not each arrival. Sampling a period at once keeps a run's cost bounded however frequent
/// the arrivals: one period costs O(1) draws instead of one event per arrival.
/// A period holds N further arrivals, each within `duration` of the previous one, then a gap of at
/// least `duration`: N is geometric with P(gap >= duration) = e^(-rate duration), each short gap an
/// exponential truncated to [0, duration). The period lasts the N short gaps plus `duration`.
/// Units: seconds, arrivals per second.
/// Limitations: the rate is the one at the period's start (the job's node count may change within
/// it); more than 64 short gaps are summed by the normal approximation of their sum (mean and
/// variance of the truncated exponential), exact in distribution only as N grows.

#include <cstdint>

#include "models/run/random.hpp"

namespace clustersim::models {

struct BusyPeriod {
  double length_s = 0.0;      // infinity when the arrivals never leave a gap (rate x duration > ~700)
  std::int64_t arrivals = 1;  // the one that opened the period and the N after it
};

/// One busy period of arrivals at `rate` lasting `duration_s` each, opened by an arrival now.
BusyPeriod sample_busy_period(double rate, double duration_s, Random& random);

/// A stream of such periods with its own random numbers: alternately idle until the next arrival
/// (exponential at the current rate; a rate change scales the time left by old / new, and a rate
/// of 0 holds it) and busy for a sampled period.
class SlowPeriods {
 public:
  SlowPeriods(std::uint64_t seed, double duration_s) : random_(seed), duration_s_(duration_s) {}

  bool active() const { return active_; }
  /// When the state changes next: the period's end while busy, else the next arrival.
  double next_change() const;
  /// Sets the arrival rate from time `now` on.
  void set_rate(double now, double rate);
  /// At next_change(): starts or ends a period. Returns the arrivals a started period holds (0 at
  /// an end).
  std::int64_t change(double now);

 private:
  Random random_;
  double duration_s_;
  bool active_ = false;
  double until_ = 0.0;
  double next_start_ = 0.0;
  double rate_ = 0.0;
  double unit_gap_ = 0.0;  // the next arrival's exponential at rate 1 while the rate is 0
  bool started_ = false;
};

}  // namespace clustersim::models
