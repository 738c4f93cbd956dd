#include "planning/plan/plan_evaluation.hpp"

#include <algorithm>

#include "planning/parallel_for.hpp"

namespace clustersim::planning {

std::size_t layout_count(const std::vector<SizedCluster>& clusters) {
  std::size_t n = 0;
  for (const auto& c : clusters) n += c.layouts.size();
  return n;
}

LayoutRuns simulate_layouts(const std::vector<SizedCluster>& clusters, unsigned jobs, const ProgressFn& progress) {
  LayoutRuns result;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    for (std::size_t l = 0; l < clusters[c].layouts.size(); ++l) result.runs.push_back({.cluster = c, .layout = l});
  }
  parallel_for(result.runs.size(), jobs, [&](std::size_t i) {
    LayoutRun& run = result.runs[i];
    const SizedCluster& cluster = clusters[run.cluster];
    run.report = models::simulate_step(with_layout(cluster.base, cluster.layouts[run.layout])).report;
    if (progress) progress(1);
  });
  result.ranked.resize(clusters.size());
  for (std::size_t i = 0; i < result.runs.size(); ++i) result.ranked[result.runs[i].cluster].push_back(i);
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const auto slow_end = [&](std::size_t i) {
      const LayoutRun& run = result.runs[i];
      return run.report.times.step_time_s * clusters[c].bands.slow_factor(clusters[c].layouts[run.layout]);
    };
    std::stable_sort(result.ranked[c].begin(), result.ranked[c].end(),
                     [&](std::size_t a, std::size_t b) { return slow_end(a) < slow_end(b); });
  }
  return result;
}

}  // namespace clustersim::planning
