#pragma once
/// Simulates every kept layout of every cluster of a plan (analytic or flow fidelity, as the
/// scenario says), as one list on `jobs` threads so that all threads stay busy whatever the
/// clusters' sizes, and ranks each cluster's layouts by the slow end of their band (the cluster's
/// PredictionBands). Results do not depend on the thread count.

#include <cstddef>
#include <optional>
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

/// Keeps the reports of finished parts of simulate_layouts, so that an interrupted plan can go on
/// where it stopped (`plan --resume FILE`, tools/plan_resume.hpp). The runs are split into parts of
/// contiguous runs, each simulated on the threads and handed to keep() when done; a part kept()
/// gives back is not simulated again. What kept() gives back is used either way, so a plan's
/// output does not depend on whether a part was resumed.
class LayoutRunStore {
 public:
  virtual ~LayoutRunStore() = default;
  /// Told the number of runs once, before any; returns how many parts to split them into (>= 1).
  virtual std::size_t parts(std::size_t runs) = 0;
  /// The reports of a finished part, one per run in order, or nullopt.
  virtual std::optional<std::vector<models::StepReport>> kept(std::size_t part) = 0;
  virtual void keep(std::size_t part, const std::vector<models::StepReport>& reports) = 0;
};

/// The number of simulations simulate_layouts runs (for sizing progress).
std::size_t layout_count(const std::vector<SizedCluster>& clusters);

/// `progress` (may be empty) is told of each layout done, from any thread. Equal slow ends keep
/// enumeration order.
/// With a `store`, part by part through it.
LayoutRuns simulate_layouts(const std::vector<SizedCluster>& clusters, unsigned jobs, const ProgressFn& progress,
                            LayoutRunStore* store = nullptr);

}  // namespace clustersim::planning
