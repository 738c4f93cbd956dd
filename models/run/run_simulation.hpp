#pragma once
/// Monte Carlo discrete-event simulation of a whole training run with failures, checkpoints,
/// restarts, spare nodes and slowdowns. Events are failures (and other Poisson arrivals), repairs,
/// ends of slowdowns and ends of restarts; between two events the job's progress is computed in
/// closed form, checkpoint cycles included (after the first cycle at a constant rate they repeat
/// with period stall + max(interval / rate, commit time)), so one run costs O(events), not
/// O(steps) or O(checkpoints).
/// The job: `work_s` seconds of failure-free compute, a checkpoint every `interval_work_s` of
/// compute; a failure rolls the job back to the last committed checkpoint, then the job is down
/// for detection + rescheduling + load + warm-up (a failure during a restart starts it over).
/// Lost nodes are replaced from a spare pool; without a free spare the job waits for a repair or
/// shrinks to the data-parallel replicas it still has (repaired nodes rejoin at the next restart).
/// Slowdown factors (thermal, straggler, degraded link, shrink) multiply the job's rate.
/// Units: seconds; rates per second; work in seconds of failure-free compute.
/// Limitations: every arrival is Poisson (rates change only with the node count); while any
/// straggler (or degraded link) is active the job runs at one straggler's (link's) slowdown, they
/// do not compound among themselves; planned maintenance takes a checkpoint first and loses no
/// work; an interval given in minutes is converted to steps at the failure-free step time; a spot
/// preemption is a node loss whose node comes back after repair_s like a failed one.
/// Stragglers arrive as whole busy periods (busy_period.hpp), drawn from a stream of their own.
/// Reproducibility: all randomness comes from Random (random.hpp) seeded per run, and every Poisson
/// arrival draws the same numbers whatever the checkpoint settings, so runs with different
/// intervals see the same failure times (common random numbers) and their difference is not noise.

#include <array>
#include <cstdint>
#include <string_view>

#include "models/run/checkpoint_model.hpp"
#include "models/run/failure_model.hpp"

namespace clustersim::models {

/// Where wall time beyond the failure-free run goes. The failure kinds come first, in FailureKind
/// order (rolled-back work plus restart time), then the rest.
enum class LossCause : std::uint8_t {
  checkpoint = failure_kind_count,  // stalls, back-pressure, the checkpoint before planned work
  spare_wait,                       // waiting for a repaired node
  straggler,
  degraded_link,
  thermal,
  shrink,                           // running with fewer data-parallel replicas
};
inline constexpr std::size_t loss_cause_count = failure_kind_count + 6;

std::string_view loss_cause_name(std::size_t cause);

struct RunInputs {
  double work_s = 0.0;           // failure-free compute time of the whole run
  double interval_work_s = 0.0;  // compute time between checkpoints
  double stall_s = 0.0;          // blocked per checkpoint
  double commit_after_stall_s = 0.0;
  double load_s = 0.0;
  double load_after_node_loss_s = 0.0;
  double detect_s = 0.0;
  double restart_fixed_s = 0.0;  // detection + rescheduling + warm-up

  std::int64_t nodes = 1;         // in the job
  std::int64_t gpus = 8;
  std::int64_t gpus_per_node = 8;
  std::int64_t replicas = 1;      // data-parallel replicas
  std::int64_t spare_nodes = 0;
  NoSparePolicy no_spare = NoSparePolicy::wait;
  double repair_s = 86400.0;

  std::array<double, failure_kind_count> per_node_rate_s{};  // rack and planned entries unused
  double rack_rate_s = 0.0;       // per rack
  std::int64_t nodes_per_rack = 1;
  double planned_rate_s = 0.0;    // per job
  double link_reroute_fraction = 0.0;
  double degraded_link_factor = 1.0;  // job rate while a routed-around link is down (< 1)
  double link_repair_s = 0.0;
  double straggler_rate_s = 0.0;  // per node
  double straggler_factor = 1.0;  // job rate while a straggler is active
  double straggler_duration_s = 0.0;
  double thermal_factor = 1.0;    // job rate under thermal throttling
};

/// How a run ended. A run that cannot finish is given up rather than followed to the end, so that
/// a run's cost is bounded whatever the failure rates: its wall time stops at the first of
/// - the horizon, run_horizon_factor x the failure-free time (past_horizon): a job that needs
///   more has a goodput below 10 %, and what a plan needs to know is that it does not work, not
///   how many years it would take;
/// - a failure-rate bound (too_many_failures): checked at every interruption, the expected time
///   to commit the remaining checkpoint intervals (Daly's expected time per interval, R = the
///   shortest restart, at the lowest interruption rate a running job can have), scaled down by a
///   Chernoff margin, ends past the horizon; the chance that such a run still finishes within it is
///   below about 1e-9 (for exponential interval times);
/// - a node bound (too_few_nodes): once a tenth of the horizon and ten repair times have passed, the
///   job was able to run
///   (not waiting for nodes) for too short a share of its wall time to fit the remaining work into
///   the horizon even at ten times that share;
/// - run_event_budget events (event_budget), a safety net that no run inside the bounds above
///   should reach.
enum class RunEnd : std::uint8_t { finished, past_horizon, too_many_failures, too_few_nodes, event_budget };
inline constexpr std::size_t run_end_count = 5;

std::string_view to_string(RunEnd end);

inline constexpr double run_horizon_factor = 10.0;
inline constexpr std::int64_t run_event_budget = 200'000;

struct RunOutcome {
  RunEnd end = RunEnd::finished;
  double wall_s = 0.0;       // when it finished, or when it was given up
  double work_done_s = 0.0;  // failure-free compute done by then (work_s when finished)
  std::array<std::int64_t, failure_kind_count> interruptions{};
  std::int64_t degraded_links = 0;  // link failures routed around
  std::int64_t stragglers = 0;
  std::int64_t checkpoints = 0;
  std::array<double, loss_cause_count> lost_s{};  // wall seconds, whole job

  bool finished() const { return end == RunEnd::finished; }
  std::int64_t total_interruptions() const;
};

/// The wall time after which a run is given up: run_horizon_factor x in.work_s.
double run_horizon_s(const RunInputs& in);

/// One run, given up as RunEnd describes.
RunOutcome simulate_run(const RunInputs& in, std::uint64_t seed);

}  // namespace clustersim::models
