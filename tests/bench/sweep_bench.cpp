#include "tests/bench/sweep_bench.hpp"

#include <chrono>

#include "planning/search/layout_search.hpp"
#include "scenarios/scenario_io.hpp"
#include "calibration/step_inputs.hpp"
#include "planning/search/sweep_runner.hpp"
#include "planning/validation/band_table.hpp"

namespace clustersim::bench {

SearchBenchResult bench_search(const std::vector<std::string>& sets, unsigned jobs) {
  const scenarios::Scenario scenario = scenarios::default_scenario(sets);
  const models::StepInputs base = calibration::step_inputs(scenario);
  const auto t0 = std::chrono::steady_clock::now();
  // As `clustersim sweep --search` runs by default: bands from the built-in validation study (its
  // families for this GPU simulated on first use, inside the timing), its top 20 rows exact,
  // layouts that cannot reach them set apart by their step-time bound.
  const planning::PredictionBands bands(planning::built_in_band_table(), scenario);
  const auto candidates = planning::search_layouts(base);
  std::vector<planning::SweepRow> rows = planning::run_search(base, candidates, bands, {}, jobs, nullptr, 20);
  planning::rank_rows(rows);
  SearchBenchResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.layouts = candidates.size();
  for (const auto& c : candidates) result.fitting += c.memory.fits ? 1 : 0;
  for (const auto& row : rows) result.simulated += row.status == planning::RowStatus::simulated ? 1 : 0;
  return result;
}

}  // namespace clustersim::bench
