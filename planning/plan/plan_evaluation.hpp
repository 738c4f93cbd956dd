#pragma once
/// Simulates the layouts of every cluster of a plan (analytic or flow fidelity, as the scenario
/// says) on `jobs` threads, and ranks each cluster's layouts by the slow end of their band (the
/// cluster's PredictionBands). A plan needs only each cluster's best few layouts (`keep`): a
/// layout whose step-time lower bound (planning/search/step_bound.hpp; under the flow fidelity,
/// that of compute alone),
/// times its band's slow factor, exceeds the keep-th best slow end already simulated on its
/// cluster is set aside unsimulated, as `sweep --search` does, so the best `keep` are exactly those
/// of a full evaluation. Layouts run in rounds: each round takes the next kRoundLayouts of every
/// cluster (in the order of their bounds) that the rounds before have not excluded, and simulates
/// them all at once. What is set aside depends on the rounds before only, never on the threads'
/// timing: results (and counts) do not depend on the thread count.

#include <cstddef>
#include <optional>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/plan/plan_clusters.hpp"
#include "planning/search/sweep_runner.hpp"

namespace clustersim::planning {

/// Layouts of one cluster a round simulates: enough for the cut to form after one round (a plan
/// keeps 3), few enough that little is simulated past it.
inline constexpr std::size_t kRoundLayouts = 4;

struct LayoutRun {
  std::size_t cluster = 0;  // index into the clusters
  std::size_t layout = 0;   // index into that cluster's layouts
  bool simulated = false;   // false: set aside by the bound (report empty)
  models::StepReport report{};
};

struct LayoutRuns {
  std::vector<LayoutRun> runs;                   // cluster by cluster, each cluster's layouts in order
  std::vector<std::vector<std::size_t>> ranked;  // per cluster: indices into runs of the simulated, least slow end first
  std::size_t simulated = 0;                     // runs simulated; the rest were set aside by the bound
};

/// Keeps the reports of finished rounds of simulate_layouts, so that an interrupted plan can go on
/// where it stopped (`plan --resume FILE`, tools/plan_resume.hpp). A round kept() gives back is
/// not simulated again; since a round's layouts depend on the rounds before only, a resumed plan
/// retraces the same rounds and its output does not depend on whether a round was resumed.
class LayoutRunStore {
 public:
  virtual ~LayoutRunStore() = default;
  /// Told, once before any round, the most rounds the plan can take.
  virtual void rounds(std::size_t most) = 0;
  /// The reports of a finished round, one per layout of the round in order, or nullopt.
  virtual std::optional<std::vector<models::StepReport>> kept(std::size_t round) = 0;
  virtual void keep(std::size_t round, const std::vector<models::StepReport>& reports) = 0;
};

/// The number of layouts simulate_layouts considers (for sizing progress).
std::size_t layout_count(const std::vector<SizedCluster>& clusters);

/// `progress` (may be empty) is told of each layout done or set aside, from any thread. Equal slow
/// ends keep enumeration order. `keep` = 0 simulates every layout. With a `store`, round by round
/// through it. With a `shard`, only the clusters it contains (by index) are simulated; the others'
/// runs stay unsimulated and unranked.
LayoutRuns simulate_layouts(const std::vector<SizedCluster>& clusters, unsigned jobs, const ProgressFn& progress,
                            std::size_t keep, LayoutRunStore* store = nullptr, const Shard* shard = nullptr);

}  // namespace clustersim::planning
