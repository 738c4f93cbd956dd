#include "tests/bench/step_bench.hpp"

#include <algorithm>
#include <chrono>

#include "models/step/step_model.hpp"
#include "scenarios/scenario_io.hpp"
#include "calibration/step_inputs.hpp"

namespace clustersim::bench {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

StepBenchResult bench_step(const std::vector<std::string>& sets, int repeats) {
  const models::StepInputs in = calibration::step_inputs(scenarios::default_scenario(sets));
  std::vector<double> times;
  StepBenchResult result;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    const models::StepSimulation sim = models::simulate_step(in);
    times.push_back(since(t0));
    result.tasks = sim.step.graph.size();
    result.step_time_s = sim.report.times.step_time_s;
  }
  std::sort(times.begin(), times.end());
  result.seconds = times[times.size() / 2];
  return result;
}

double bench_sweep(int rounds, std::size_t& configurations) {
  const models::StepInputs base = calibration::step_inputs(scenarios::default_scenario());
  std::vector<models::StepInputs> layouts;
  for (std::int64_t tp : {1, 2, 4, 8})
    for (std::int64_t pp : {1, 2, 4, 8, 16})
      for (std::int64_t micro_batch : {1, 2, 4}) {
        models::StepInputs in = base;
        in.parallelism.tp = tp;
        in.parallelism.pp = pp;
        in.parallelism.dp = in.cluster.num_gpus / (tp * pp);
        in.parallelism.sp = tp > 1;
        in.training.micro_batch = micro_batch;
        if (!models::layout_violation(in.model, in.parallelism, in.training, in.cluster)) layouts.push_back(in);
      }
  configurations = layouts.size();
  const auto t0 = Clock::now();
  for (int r = 0; r < rounds; ++r)
    for (const auto& in : layouts) models::simulate_step(in);
  return static_cast<double>(layouts.size() * static_cast<std::size_t>(rounds)) / since(t0);
}

}  // namespace clustersim::bench
