#pragma once
/// Monte Carlo speed: many runs of a Llama 3-scale training run with failures and checkpoints.

#include <cstdint>

namespace clustersim::bench {

struct RunBenchResult {
  std::int64_t runs = 0;
  double seconds = 0.0;             // wall time of all runs
  double mean_interruptions = 0.0;  // per run, for the record
  double mean_goodput = 0.0;
};

/// `runs` runs of a 54-day (failure-free), 16,384-GPU run with the default (Llama 3) failure
/// rates, 30-minute checkpoints and 10-minute restarts, on `threads` threads (0: all cores).
RunBenchResult bench_failure_runs(std::int64_t runs, unsigned threads);

}  // namespace clustersim::bench
