#include "models/run/monte_carlo.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "models/run/random.hpp"

namespace clustersim::models {
namespace {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  // Linear interpolation between closest ranks.
  const double position = p * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  // Unfinished runs sort last as infinity; a percentile that reaches them is infinity too.
  if (fraction == 0 || !std::isfinite(values[upper])) return fraction == 0 ? values[lower] : values[upper];
  return values[lower] + fraction * (values[upper] - values[lower]);
}

}  // namespace

RunStatistics simulate_runs(const RunInputs& in, std::int64_t runs, std::uint64_t seed, unsigned threads,
                            const Progress& progress) {
  std::vector<RunOutcome> outcomes(static_cast<std::size_t>(std::max<std::int64_t>(runs, 0)));
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::int64_t>(threads, std::max<std::int64_t>(runs, 1)));
  // Runs are handed out in blocks; each outcome lands in its own slot, so the statistics below read
  // them in run order whatever thread computed them.
  constexpr std::int64_t block = 16;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> done{0};
  const auto worker = [&] {
    for (;;) {
      const std::int64_t first = next.fetch_add(block);
      if (first >= runs) return;
      const std::int64_t last = std::min(runs, first + block);
      for (std::int64_t i = first; i < last; ++i) {
        outcomes[static_cast<std::size_t>(i)] = simulate_run(in, run_seed(seed, static_cast<std::uint64_t>(i)));
      }
      done.fetch_add(last - first);
    }
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
    if (progress) {
      // The calling thread reports progress while it also works, one block at a time.
      for (;;) {
        const std::int64_t first = next.fetch_add(block);
        if (first >= runs) break;
        const std::int64_t last = std::min(runs, first + block);
        for (std::int64_t i = first; i < last; ++i) {
          outcomes[static_cast<std::size_t>(i)] = simulate_run(in, run_seed(seed, static_cast<std::uint64_t>(i)));
        }
        done.fetch_add(last - first);
        progress(done.load(), runs);
      }
    } else {
      worker();
    }
  }
  if (progress) progress(runs, runs);

  RunStatistics s;
  s.runs = runs;
  s.work_s = in.work_s;
  s.horizon_s = run_horizon_s(in);
  if (runs <= 0) return s;
  const auto n = static_cast<double>(runs);
  std::vector<double> walls;
  std::vector<double> counts;
  walls.reserve(outcomes.size());
  counts.reserve(outcomes.size());
  std::vector<double> bounded_walls;
  bounded_walls.reserve(outcomes.size());
  for (const auto& o : outcomes) {
    ++s.runs_by_end[static_cast<std::size_t>(o.end)];
    if (!o.finished()) ++s.unfinished;
    const double bounded = o.finished() ? o.wall_s : s.horizon_s;
    walls.push_back(o.finished() ? o.wall_s : std::numeric_limits<double>::infinity());
    bounded_walls.push_back(bounded);
    counts.push_back(static_cast<double>(o.total_interruptions()));
    s.mean_wall_s += bounded / n;
    s.mean_goodput += (o.finished() ? in.work_s / o.wall_s : o.work_done_s / s.horizon_s) / n;
    for (std::size_t k = 0; k < failure_kind_count; ++k) {
      s.mean_interruptions[k] += static_cast<double>(o.interruptions[k]) / n;
    }
    s.mean_total_interruptions += static_cast<double>(o.total_interruptions()) / n;
    s.mean_degraded_links += static_cast<double>(o.degraded_links) / n;
    s.mean_stragglers += static_cast<double>(o.stragglers) / n;
    s.mean_checkpoints += static_cast<double>(o.checkpoints) / n;
    for (std::size_t c = 0; c < loss_cause_count; ++c) s.mean_lost_s[c] += o.lost_s[c] / n;
  }
  double variance = 0.0;
  for (const double w : bounded_walls) variance += (w - s.mean_wall_s) * (w - s.mean_wall_s);
  s.stddev_wall_s = runs > 1 ? std::sqrt(variance / (n - 1.0)) : 0.0;
  s.p50_wall_s = percentile(walls, 0.5);
  s.p90_wall_s = percentile(walls, 0.9);
  s.p10_interruptions = percentile(counts, 0.1);
  s.p90_interruptions = percentile(counts, 0.9);
  return s;
}

}  // namespace clustersim::models
