#pragma once
/// Many Monte Carlo runs of a training run (run_simulation.hpp) and their statistics: mean,
/// percentiles and spread of the time-to-train, goodput, interruptions and losses by cause.
/// Run i is seeded with run_seed(seed, i) and lands in its own slot, so the statistics do not
/// depend on how many threads computed them.
/// Units: seconds; counts per run.
/// Limitations: percentiles interpolate linearly between order statistics.

#include <array>
#include <cstdint>
#include <functional>

#include "models/run/run_simulation.hpp"

namespace clustersim::models {

/// A run that does not finish (RunEnd) has no time-to-train: the mean and spread count it at the
/// horizon, a lower bound (exact only when every run finished), and a percentile that falls on such
/// runs is infinity. Its goodput is the compute it did over the horizon: below 1 / run_horizon_factor,
/// as it does not finish within the horizon, and not inflated by a run given up early.
struct RunStatistics {
  std::int64_t runs = 0;
  std::int64_t unfinished = 0;
  std::array<std::int64_t, run_end_count> runs_by_end{};  // indexed by RunEnd
  double work_s = 0.0;
  double horizon_s = 0.0;
  double mean_wall_s = 0.0;
  double p50_wall_s = 0.0;
  double p90_wall_s = 0.0;
  double stddev_wall_s = 0.0;
  double mean_goodput = 0.0;  // mean over runs of work / wall (unfinished: work done / horizon)
  std::array<double, failure_kind_count> mean_interruptions{};
  double mean_total_interruptions = 0.0;
  double p10_interruptions = 0.0;
  double p90_interruptions = 0.0;
  double mean_degraded_links = 0.0;
  double mean_stragglers = 0.0;
  double mean_checkpoints = 0.0;
  std::array<double, loss_cause_count> mean_lost_s{};
};

/// Progress callback: runs finished so far, out of the total. Called from the calling thread.
using Progress = std::function<void(std::int64_t done, std::int64_t total)>;

/// `runs` runs, run i seeded with run_seed(seed, i); spread over `threads` threads (0: hardware
/// concurrency). The result does not depend on the thread count.
RunStatistics simulate_runs(const RunInputs& in, std::int64_t runs, std::uint64_t seed,
                            unsigned threads = 0, const Progress& progress = {});

}  // namespace clustersim::models
