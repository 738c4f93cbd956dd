#pragma once
/// Runs the layouts of a sweep: named configs applied to a scenario, or every layout a search
/// enumerates. Layouts are simulated on `jobs` threads; rows come back in config or enumeration
/// order whatever the thread count. A shard I/N takes every N-th layout starting at the I-th, so
/// N shards cover each layout exactly once and each gets a fair mix of cheap and costly ones.

#include <cstddef>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

#include "planning/search/layout_search.hpp"
#include "scenarios/scenario.hpp"
#include "planning/search/sweep_rows.hpp"

namespace clustersim::planning {

struct Shard {
  std::size_t index = 1;  // 1-based
  std::size_t count = 1;
  // Only the layouts in [begin, end) of it: one chunk of a resumable search (tools/resume_file.hpp).
  std::size_t begin = 0;
  std::size_t end = std::numeric_limits<std::size_t>::max();

  bool contains(std::size_t layout) const { return layout >= begin && layout < end && layout % count == index - 1; }
};

/// Told how many layouts were just done, from any thread; may be empty.
using ProgressFn = std::function<void(std::size_t done)>;

/// One row per config of the shard: simulated (fitting or not) with its band from `bands`, or
/// invalid with the broken rule.
std::vector<SweepRow> run_configs(const scenarios::Scenario& base, const std::vector<scenarios::SweepConfig>& configs,
                                  const PredictionBands& bands, const Shard& shard, unsigned jobs,
                                  const ProgressFn& progress);

/// One row per layout of the shard (candidates from planning::search_layouts on `base`): simulated
/// where the memory estimate fits, too_large (not simulated) elsewhere. `progress` counts the
/// layouts that fit. Simulated rows carry their band from `bands`. With keep_top = N > 0 only the
/// first N ranked rows must be exact: a layout whose step-time lower bound
/// (planning/search/step_bound.hpp), times its band's slow factor, exceeds the N-th best slow end
/// simulated is set apart unsimulated as `pruned` (it fits, and ranks after those N). The first N rows are then
/// exactly those of a full search; keep_top = 0 simulates every layout that fits. Under the flow
/// fidelity the bound is that of compute alone, which holds there too, and sets fewer aside.
std::vector<SweepRow> run_search(const models::StepInputs& base, const std::vector<planning::LayoutCandidate>& candidates,
                                 const PredictionBands& bands, const Shard& shard, unsigned jobs, const ProgressFn& progress, std::size_t keep_top = 0);

/// The layouts to simulate in a search shard (what run_search would simulate), for sizing progress.
std::size_t search_simulations(const std::vector<planning::LayoutCandidate>& candidates, const Shard& shard);

/// Default thread count: the machine's hardware threads (at least 1).
unsigned default_jobs();

}  // namespace clustersim::planning
