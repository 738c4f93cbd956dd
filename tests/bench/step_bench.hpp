#pragma once
/// Step-model speed: one full step simulation of large published layouts, and a layout sweep.

#include <cstddef>
#include <string>
#include <vector>

namespace clustersim::bench {

struct StepBenchResult {
  std::size_t tasks = 0;
  double seconds = 0.0;     // wall time of one simulate_step, median of the repeats
  double step_time_s = 0.0; // the simulated step, for the record
};

/// Simulates the built-in default scenario with `sets` overrides, `repeats` times.
StepBenchResult bench_step(const std::vector<std::string>& sets, int repeats);

/// Simulates every (tp, pp, micro-batch) layout of the default 70B / 256 H100 scenario that
/// passes the layout rules, `rounds` times over; returns configurations per second.
double bench_sweep(int rounds, std::size_t& configurations);

}  // namespace clustersim::bench
