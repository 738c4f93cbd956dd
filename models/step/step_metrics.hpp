#pragma once
/// What one simulated step shows, by the definitions of DESIGN.md (written once, here):
/// - bubble: time a stage's compute engine idles while none of its communication runs either
///   (it waits on pipeline dependencies), over the step time;
/// - exposed communication: time the stage's communication runs while its compute engine idles;
/// - compute: time its compute engine is busy. The three add up to 1 per stage; the step-level
///   figures are averages over stages;
/// - TP / PP / DP / CP communication of a stage: the union of the intervals in which that kind of
///   communication ran (concurrent buckets, gathers and flows counted once), overlapped or not.
/// MFU and HFU divide model and hardware FLOPs (models/compute/flops.hpp) by step time x GPUs x dense peak.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/step/step_builder.hpp"
#include "models/step/step_labels.hpp"
#include "sim/timeline.hpp"

namespace clustersim::models {

struct StageTimes {
  double compute_s = 0.0;
  double exposed_comm_s = 0.0;
  double bubble_s = 0.0;
  double tp_comm_s = 0.0;       // time each kind ran, union of its intervals (may overlap compute)
  double pp_comm_s = 0.0;
  double dp_comm_s = 0.0;
  double cp_comm_s = 0.0;
  double ep_comm_s = 0.0;
};

struct StepTimes {
  double step_time_s = 0.0;
  double bubble_fraction = 0.0;
  double exposed_comm_fraction = 0.0;
  double compute_fraction = 0.0;
  std::vector<StageTimes> stages;
};

/// The figures above from a step's pieces (step_pieces.hpp), given in any order: by stage, the
/// intervals in which its compute engine was busy, anything ran, and each kind of communication ran.
class StepMeter {
 public:
  /// `pieces`: about how many will come, to size the lists.
  StepMeter(std::size_t stages, std::size_t pieces);
  void add(std::int32_t stage, TaskKind kind, std::int64_t begin_ns, std::int64_t end_ns) {
    const auto s = static_cast<std::size_t>(stage);
    join(any_[s], begin_ns, end_ns);
    if (kind == TaskKind::compute)
      join(compute_[s], begin_ns, end_ns);
    else
      join(comm_[s * task_kind_count + static_cast<std::size_t>(kind)], begin_ns, end_ns);
  }
  /// The figures of a step that ended at `makespan`.
  StepTimes finish(sim::Time makespan);

 private:
  using Interval = std::pair<std::int64_t, std::int64_t>;  // [start, finish) in ns
  /// Appends [begin, end) to `v`, or joins it to the last interval when it starts within or right
  /// at the end of that one: a stage's pieces arrive about in the order they ran, so its lists stay
  /// one interval per gap (a bubble, a tensor-parallel collective) rather than one per piece.
  /// finish() sorts and merges the rest whatever the order; the union is the same.
  static void join(std::vector<Interval>& v, std::int64_t begin, std::int64_t end) {
    if (end <= begin) return;  // empty: merging would drop it
    if (!v.empty() && begin >= v.back().first && begin <= v.back().second)
      v.back().second = std::max(v.back().second, end);
    else
      v.push_back({begin, end});
  }
  std::vector<std::vector<Interval>> compute_, any_;
  // By stage and communication kind, when that kind ran: concurrent tasks (gradient buckets
  // sharing the port, a collective's flows labelled with their senders' ranks) count once.
  std::vector<std::vector<Interval>> comm_;
};

StepTimes measure_step(const StepGraph& step, const sim::Timeline& timeline);

}  // namespace clustersim::models
