#pragma once
// The layouts every framework export is tested on: the twelve of scenarios/seed/twelve-layouts.json
// and the top 20 of `clustersim sweep --search` on the default scenario, searched in-process.

#include <cstddef>
#include <string>
#include <vector>

#include "calibration/step_inputs.hpp"
#include "planning/search/layout_search.hpp"
#include "planning/search/sweep_runner.hpp"
#include "planning/validation/band_table.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/sweep_configs.hpp"

namespace clustersim::handoff::layouts_under_test {

struct NamedLayout {
  std::string name;
  scenarios::Scenario scenario;  // model and cluster
  planning::Layout layout;
};

inline const scenarios::Scenario& twelve_layouts_scenario() {
  static const scenarios::Scenario s =
      scenarios::load_scenario_file(std::string(CLUSTERSIM_SOURCE_DIR) + "/scenarios/seed/twelve-layouts.json");
  return s;
}

inline std::vector<NamedLayout> twelve_layouts() {
  const scenarios::Scenario& base = twelve_layouts_scenario();
  std::vector<NamedLayout> out;
  for (const scenarios::SweepConfig& config : base.sweep.configs) {
    const scenarios::Scenario s = scenarios::apply_sweep_config(base, config);
    out.push_back({config.name, s, {s.parallelism, s.training}});
  }
  return out;
}

// The first `count` layouts of a search on `scenario`, ranked as `clustersim sweep --search` ranks
// them (built-in prediction bands, the top rows simulated exactly).
inline std::vector<planning::Layout> search_top(const scenarios::Scenario& scenario, std::size_t count) {
  const models::StepInputs base = calibration::step_inputs(scenario);
  const planning::PredictionBands bands(planning::built_in_band_table(), scenario);
  std::vector<planning::SweepRow> rows =
      planning::run_search(base, planning::search_layouts(base), bands, {}, 1, nullptr, count);
  planning::rank_rows(rows);
  std::vector<planning::Layout> top;
  for (const planning::SweepRow& row : rows) {
    if (top.size() == count) break;
    if (row.status == planning::RowStatus::simulated) top.push_back(row.layout);
  }
  return top;
}

// The top 20 layouts of `sweep --search` on the default scenario.
inline std::vector<NamedLayout> search_top20() {
  const scenarios::Scenario base = scenarios::default_scenario();
  std::vector<NamedLayout> out;
  for (const planning::Layout& layout : search_top(base, 20)) {
    scenarios::Scenario s = base;
    s.parallelism = layout.parallelism;
    s.training = layout.training;
    out.push_back({"search row " + std::to_string(out.size() + 1), s, layout});
  }
  return out;
}

}  // namespace clustersim::handoff::layouts_under_test
