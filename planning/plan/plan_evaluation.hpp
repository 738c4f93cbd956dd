#pragma once
/// Simulates every kept layout of every cluster of a plan (analytic or flow fidelity, as the
/// scenario says), as one list on `jobs` threads so that all threads stay busy whatever the
/// clusters' sizes, and ranks each cluster's layouts by the slow end of their band (the cluster's
/// PredictionBands). Results do not depend on the thread count.

#include <cstddef>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/plan/plan_clusters.hpp"
#include "planning/search/sweep_runner.hpp"

namespace clustersim::planning {

struct LayoutRun {
  std::size_t cluster = 0;  // index into the clusters
  std::size_t layout = 0;   // index into that cluster's layouts
  models::StepReport report{};
};

struct LayoutRuns {
  std::vector<LayoutRun> runs;                   // cluster by cluster, each cluster's layouts in order
  std::vector<std::vector<std::size_t>> ranked;  // per cluster: indices into runs, least slow end first
};

/// The number of simulations simulate_layouts runs (for sizing progress).
std::size_t layout_count(const std::vector<SizedCluster>& clusters);

/// `progress` (may be empty) is told of each layout done, from any thread. Equal slow ends keep
/// enumeration order.
LayoutRuns simulate_layouts(const std::vector<SizedCluster>& clusters, unsigned jobs, const ProgressFn& progress);

}  // namespace clustersim::planning
