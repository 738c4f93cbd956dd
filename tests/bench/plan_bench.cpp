#include "tests/bench/plan_bench.hpp"

#include <chrono>

#include "planning/plan/plan.hpp"
#include "scenarios/scenario_io.hpp"

namespace clustersim::bench {

PlanBenchResult bench_plan(unsigned jobs) {
  const auto t0 = std::chrono::steady_clock::now();
  // `plan`'s defaults (PlanRequest's); the bands' published runs simulated on first use, inside the timing.
  const planning::PlanRequest request{.scenario = scenarios::default_scenario(), .deadline_days = 30, .jobs = jobs};
  const planning::PlanResult result = planning::make_plan(request);
  PlanBenchResult out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.options = result.options.size();
  out.layouts = result.layouts;
  out.set_aside = result.layouts_set_aside;
  out.simulations = result.layouts_simulated;
  out.flow_runs = result.flow_runs;
  return out;
}

}  // namespace clustersim::bench
