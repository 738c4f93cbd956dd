#include "models/run/interval_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/run/checkpoint_interval.hpp"

namespace clustersim::models {

double run_mtti_s(const RunInputs& in) {
  const auto nodes = static_cast<double>(in.nodes);
  double rate = in.rack_rate_s * std::ceil(nodes / static_cast<double>(in.nodes_per_rack)) + in.planned_rate_s;
  for (std::size_t k = 0; k < failure_kind_count; ++k) {
    const auto kind = static_cast<FailureKind>(k);
    if (kind == FailureKind::rack || kind == FailureKind::planned) continue;
    const double share = kind == FailureKind::link ? 1.0 - in.link_reroute_fraction : 1.0;
    rate += in.per_node_rate_s[k] * nodes * share;
  }
  return rate > 0 ? 1.0 / rate : std::numeric_limits<double>::infinity();
}

IntervalSweep sweep_intervals(const RunInputs& in, double step_time_s, std::int64_t runs, std::uint64_t seed,
                              unsigned threads, const Progress& progress) {
  IntervalSweep sweep;
  sweep.mtti_s = run_mtti_s(in);
  sweep.delta_s = in.stall_s;
  sweep.restart_s = in.restart_fixed_s + in.load_after_node_loss_s;
  sweep.young_s = young_interval_s(sweep.delta_s, sweep.mtti_s);
  sweep.daly_s = daly_interval_s(sweep.delta_s, sweep.mtti_s);

  // Centre the grid on Daly's interval (on the current one when the formula has nothing to say:
  // no failures, or no stall). An asynchronous write slower than Daly's interval holds every
  // checkpoint back until the previous one commits, so the grid starts no shorter than the commit.
  double centre = sweep.daly_s;
  if (!std::isfinite(centre) || !(centre > 0)) centre = in.interval_work_s;
  centre = std::max({centre, in.commit_after_stall_s, step_time_s});
  constexpr double factors[] = {0.25, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 2.0, 2.8, 4.0};
  std::vector<double> intervals;
  for (const double factor : factors) {
    double interval = std::max(1.0, std::round(centre * factor / step_time_s)) * step_time_s;
    interval = std::min(interval, in.work_s);
    if (intervals.empty() || interval > intervals.back()) intervals.push_back(interval);
  }
  for (const double interval : intervals) {
    RunInputs variant = in;
    variant.interval_work_s = interval;
    const RunStatistics stats = simulate_runs(variant, runs, seed, threads, progress);
    sweep.points.push_back({.interval_s = interval,
                            .mean_wall_s = stats.mean_wall_s,
                            .mean_goodput = stats.mean_goodput,
                            .unfinished = stats.unfinished});
  }

  const auto best = std::min_element(sweep.points.begin(), sweep.points.end(),
                                     [](const IntervalPoint& a, const IntervalPoint& b) { return a.mean_wall_s < b.mean_wall_s; });
  sweep.best_interval_s = best->interval_s;
  sweep.best_goodput = best->mean_goodput;
  const auto i = static_cast<std::size_t>(best - sweep.points.begin());
  sweep.best_at_grid_edge = i == 0 || i + 1 == sweep.points.size();
  if (!sweep.best_at_grid_edge) {
    // Vertex of the parabola through three points, in x = log(interval).
    const double x0 = std::log(sweep.points[i - 1].interval_s), y0 = sweep.points[i - 1].mean_wall_s;
    const double x1 = std::log(sweep.points[i].interval_s), y1 = sweep.points[i].mean_wall_s;
    const double x2 = std::log(sweep.points[i + 1].interval_s), y2 = sweep.points[i + 1].mean_wall_s;
    const double denominator = (x0 - x1) * (x0 - x2) * (x1 - x2);
    const double a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denominator;
    const double b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denominator;
    if (a > 0) {
      const double vertex = std::clamp(-b / (2.0 * a), x0, x2);
      sweep.best_interval_s = std::exp(vertex);
    }
  }
  return sweep;
}

}  // namespace clustersim::models
