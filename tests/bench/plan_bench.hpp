#pragma once
/// Sizing speed: `clustersim plan --deadline-days 30` with the command's defaults (4 GPU types,
/// 32 to 1,024 GPUs, 3 topologies, the flow check of the options shown), timed end to end.

#include <cstddef>

namespace clustersim::bench {

struct PlanBenchResult {
  std::size_t options = 0;
  std::size_t layouts = 0;       // that fit, over every cluster
  std::size_t set_aside = 0;     // of them, not simulated: the bound excludes them
  std::size_t simulations = 0;   // layout runs, topology reruns and flow runs
  std::size_t flow_runs = 0;
  double seconds = 0.0;
};

/// The default scenario's plan on `jobs` threads.
PlanBenchResult bench_plan(unsigned jobs);

}  // namespace clustersim::bench
