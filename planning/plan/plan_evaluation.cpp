#include "planning/plan/plan_evaluation.hpp"

#include <algorithm>
#include <stdexcept>

#include "planning/parallel_for.hpp"
#include "planning/search/step_bound.hpp"
#include "planning/search/sweep_rows.hpp"

namespace clustersim::planning {
namespace {

// One cluster's progress through the rounds.
struct ClusterRounds {
  std::vector<std::size_t> order;  // indices into runs, by bound x slow factor
  std::size_t next = 0;            // into order
  std::vector<double> best;        // the least slow ends simulated, ascending, at most `keep`
};

}  // namespace

std::size_t layout_count(const std::vector<SizedCluster>& clusters) {
  std::size_t n = 0;
  for (const auto& c : clusters) n += c.layouts.size();
  return n;
}

LayoutRuns simulate_layouts(const std::vector<SizedCluster>& clusters, unsigned jobs, const ProgressFn& progress,
                            std::size_t keep, LayoutRunStore* store, const Shard* shard) {
  LayoutRuns result;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    for (std::size_t l = 0; l < clusters[c].layouts.size(); ++l) result.runs.push_back({.cluster = c, .layout = l});
  }
  const std::size_t n = result.runs.size();
  const auto layout_of = [&](std::size_t i) -> const Layout& {
    return clusters[result.runs[i].cluster].layouts[result.runs[i].layout];
  };
  const auto slow_factor = [&](std::size_t i) { return clusters[result.runs[i].cluster].bands.slow_factor(layout_of(i)); };

  // Under the flow fidelity the bound counts compute alone: its traffic runs at its own pace.
  std::vector<double> bounds(n, 0.0);
  parallel_for(n, jobs, [&](std::size_t i) {
    if (keep == 0) return;
    if (shard != nullptr && !shard->contains(result.runs[i].cluster)) return;
    const SizedCluster& cluster = clusters[result.runs[i].cluster];
    const Layout& layout = layout_of(i);
    bounds[i] = step_time_lower_bound_s(models::plan_step(cluster.base, layout.parallelism, layout.training),
                                        cluster.base.fidelity) *
                slow_factor(i);
  });
  std::vector<ClusterRounds> rounds(clusters.size());
  std::size_t most_rounds = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (shard == nullptr || shard->contains(result.runs[i].cluster)) rounds[result.runs[i].cluster].order.push_back(i);
  }
  for (auto& r : rounds) {
    std::stable_sort(r.order.begin(), r.order.end(), [&](std::size_t a, std::size_t b) { return bounds[a] < bounds[b]; });
    most_rounds = std::max(most_rounds, (r.order.size() + kRoundLayouts - 1) / kRoundLayouts);
  }
  if (store) store->rounds(most_rounds);

  for (std::size_t round = 0;; ++round) {
    std::vector<std::size_t> batch;
    std::size_t set_aside = 0;
    for (auto& r : rounds) {
      for (std::size_t taken = 0; taken < kRoundLayouts && r.next < r.order.size(); ++taken) {
        const std::size_t i = r.order[r.next];
        if (keep > 0 && r.best.size() == keep && bound_excludes(bounds[i], r.best.back())) {
          set_aside += r.order.size() - r.next;  // and every later one: their bounds are no less
          r.next = r.order.size();
          break;
        }
        batch.push_back(i);
        ++r.next;
      }
    }
    if (progress && set_aside > 0) progress(set_aside);
    if (batch.empty()) break;
    if (round >= most_rounds) throw std::logic_error("simulate_layouts: more rounds than counted");
    std::optional<std::vector<models::StepReport>> reports = store ? store->kept(round) : std::nullopt;
    if (reports) {
      if (reports->size() != batch.size()) throw std::runtime_error("simulate_layouts: a kept round has the wrong size");
      if (progress) progress(batch.size());
    } else {
      reports.emplace(batch.size());
      parallel_for(batch.size(), jobs, [&](std::size_t k) {
        const SizedCluster& cluster = clusters[result.runs[batch[k]].cluster];
        (*reports)[k] = models::step_report(with_layout(cluster.base, layout_of(batch[k])));
        if (progress) progress(1);
      });
      if (store) store->keep(round, *reports);
    }
    for (std::size_t k = 0; k < batch.size(); ++k) {
      const std::size_t i = batch[k];
      LayoutRun& run = result.runs[i];
      run.report = std::move((*reports)[k]);
      run.simulated = true;
      ++result.simulated;
      check_bound_holds(bounds[i] / slow_factor(i), run.report.times.step_time_s, layout_label(layout_of(i)));
      const double slow_end = run.report.times.step_time_s * slow_factor(i);
      if (keep == 0) continue;
      std::vector<double>& best = rounds[run.cluster].best;
      best.insert(std::upper_bound(best.begin(), best.end(), slow_end), slow_end);
      if (best.size() > keep) best.pop_back();
    }
  }

  result.ranked.resize(clusters.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (result.runs[i].simulated) result.ranked[result.runs[i].cluster].push_back(i);
  }
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const auto slow_end = [&](std::size_t i) { return result.runs[i].report.times.step_time_s * slow_factor(i); };
    std::stable_sort(result.ranked[c].begin(), result.ranked[c].end(),
                     [&](std::size_t a, std::size_t b) { return slow_end(a) < slow_end(b); });
  }
  return result;
}

}  // namespace clustersim::planning
