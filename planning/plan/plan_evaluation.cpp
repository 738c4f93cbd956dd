#include "planning/plan/plan_evaluation.hpp"

#include <algorithm>
#include <stdexcept>

#include "planning/parallel_for.hpp"

namespace clustersim::planning {

std::size_t layout_count(const std::vector<SizedCluster>& clusters) {
  std::size_t n = 0;
  for (const auto& c : clusters) n += c.layouts.size();
  return n;
}

LayoutRuns simulate_layouts(const std::vector<SizedCluster>& clusters, unsigned jobs, const ProgressFn& progress,
                            LayoutRunStore* store) {
  LayoutRuns result;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    for (std::size_t l = 0; l < clusters[c].layouts.size(); ++l) result.runs.push_back({.cluster = c, .layout = l});
  }
  const std::size_t n = result.runs.size();
  const auto simulate = [&](std::size_t begin, std::size_t end) {
    parallel_for(end - begin, jobs, [&](std::size_t k) {
      LayoutRun& run = result.runs[begin + k];
      const SizedCluster& cluster = clusters[run.cluster];
      run.report = models::simulate_step(with_layout(cluster.base, cluster.layouts[run.layout])).report;
      if (progress) progress(1);
    });
  };
  if (store == nullptr) {
    simulate(0, n);
  } else {
    const std::size_t parts = std::max<std::size_t>(1, store->parts(n));
    for (std::size_t p = 0; p < parts; ++p) {
      // Part p: runs [p n / parts, (p + 1) n / parts), without the product's overflow.
      const auto start = [&](std::size_t q) { return n / parts * q + n % parts * q / parts; };
      const std::size_t begin = start(p), end = start(p + 1);
      std::optional<std::vector<models::StepReport>> reports = store->kept(p);
      if (reports) {
        if (progress) progress(end - begin);
      } else {
        simulate(begin, end);
        std::vector<models::StepReport> done;
        for (std::size_t i = begin; i < end; ++i) done.push_back(std::move(result.runs[i].report));
        store->keep(p, done);
        reports = store->kept(p);
      }
      if (!reports || reports->size() != end - begin) throw std::runtime_error("simulate_layouts: a kept part has the wrong size");
      for (std::size_t i = begin; i < end; ++i) result.runs[i].report = std::move((*reports)[i - begin]);
    }
  }
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
