#pragma once
/// The pictures of `clustersim failures`:
/// - "goodput-interval": mean goodput against the checkpoint interval as the sweep simulated it
///   (log axis of minutes), with Young's and Daly's intervals and the simulated best marked;
/// - "lost-gpu-hours": mean lost GPU-hours per run by cause;
/// - "time-to-train": the distribution of time-to-train over the Monte Carlo runs (runs that do
///   not finish counted at the horizon they were given up at), mean, P50 and P90 marked.

#include <array>
#include <string>
#include <vector>

#include "models/run/interval_sweep.hpp"
#include "models/run/monte_carlo.hpp"

namespace clustersim::tools::charts {

std::string goodput_interval_svg(const models::IntervalSweep& sweep);
/// `gpus`: the job's, to turn lost wall seconds into GPU-hours.
std::string lost_gpu_hours_svg(const models::RunStatistics& stats, double gpus);
/// `wall_s`: each run's time-to-train in seconds.
std::string time_to_train_svg(const std::vector<double>& wall_s, const models::RunStatistics& stats);

/// The histogram's bins: edges[i] .. edges[i + 1] holds counts[i] runs (days). Bins are half a
/// tick step of the axis wide, so their edges are round values.
struct Histogram {
  std::vector<double> edges;
  std::vector<std::int64_t> counts;
};
Histogram time_to_train_histogram(const std::vector<double>& wall_days);

}  // namespace clustersim::tools::charts
