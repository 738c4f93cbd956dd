#include "tests/bench/sweep_bench.hpp"

#include <chrono>

#include "models/layout_search.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/step_inputs.hpp"
#include "tools/sweep_runner.hpp"

namespace clustersim::bench {

SearchBenchResult bench_search(const std::vector<std::string>& sets, unsigned jobs) {
  const models::StepInputs base = scenarios::step_inputs(scenarios::default_scenario(sets));
  const auto t0 = std::chrono::steady_clock::now();
  const auto candidates = models::search_layouts(base);
  // As `clustersim sweep --search` runs by default: its top 20 rows exact, layouts that cannot
  // reach them set apart by their step-time bound.
  std::vector<tools::SweepRow> rows = tools::run_search(base, candidates, {}, jobs, nullptr, 20);
  tools::rank_rows(rows);
  SearchBenchResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.layouts = candidates.size();
  for (const auto& c : candidates) result.fitting += c.memory.fits ? 1 : 0;
  for (const auto& row : rows) result.simulated += row.status == tools::RowStatus::simulated ? 1 : 0;
  return result;
}

}  // namespace clustersim::bench
