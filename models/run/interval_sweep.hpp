#pragma once
/// The best checkpoint interval found by simulation, next to Young's and Daly's formulas.
/// Every interval of a grid around Daly's is simulated with the same seeds (common random
/// numbers: the same failure times), and a parabola through the best grid point and its two
/// neighbours (in log interval) places the minimum of the mean time-to-train between grid points.
/// Units: seconds of compute between checkpoints.
/// Limitations: the formulas take delta = the stall per checkpoint (back-pressure and commit time
/// left out), M = the job's mean time to interrupt, R = the fixed restart plus the load after a
/// node loss; the simulation has none of these simplifications. The grid is centred on
/// max(Daly, commit time, one step).
/// Source: Young 1974, Daly 2006 (checkpoint_interval.hpp).

#include <cstdint>
#include <vector>

#include "models/run/monte_carlo.hpp"

namespace clustersim::models {

struct IntervalPoint {
  double interval_s = 0.0;
  double mean_wall_s = 0.0;  // a lower bound when some runs do not finish (monte_carlo.hpp)
  double mean_goodput = 0.0;
  std::int64_t unfinished = 0;
};

struct IntervalSweep {
  double mtti_s = 0.0;
  double delta_s = 0.0;
  double restart_s = 0.0;
  double young_s = 0.0;
  double daly_s = 0.0;
  std::vector<IntervalPoint> points;  // increasing interval
  double best_interval_s = 0.0;       // refined between grid points
  double best_goodput = 0.0;          // of the best grid point
  bool best_at_grid_edge = false;     // the minimum may lie outside the grid
};

/// The job's mean time to interrupt: 1 / (rate of arrivals that interrupt), with every node in.
double run_mtti_s(const RunInputs& in);

/// Sweeps the checkpoint interval of `in` (other inputs fixed); intervals are whole steps of
/// `step_time_s`, between one step and the whole run.
/// `progress` is called as simulate_runs calls it, once per interval.
IntervalSweep sweep_intervals(const RunInputs& in, double step_time_s, std::int64_t runs, std::uint64_t seed,
                              unsigned threads = 0, const Progress& progress = {});

}  // namespace clustersim::models
