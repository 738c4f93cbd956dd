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

struct RunOutcome {
  bool finished = true;  // false: gave up at the wall-time cap (the job could not make progress)
  double wall_s = 0.0;
  std::array<std::int64_t, failure_kind_count> interruptions{};
  std::int64_t degraded_links = 0;  // link failures routed around
  std::int64_t stragglers = 0;
  std::int64_t checkpoints = 0;
  std::array<double, loss_cause_count> lost_s{};  // wall seconds, whole job

  std::int64_t total_interruptions() const;
};

/// One run. The wall time is capped at 1000 x work_s (then finished = false).
RunOutcome simulate_run(const RunInputs& in, std::uint64_t seed);

}  // namespace clustersim::models
