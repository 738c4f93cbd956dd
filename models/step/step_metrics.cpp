#include "models/step/step_metrics.hpp"

#include <algorithm>
#include <utility>

#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"

namespace clustersim::models {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;  // [start, finish) in ns

/// Sorts and merges overlapping intervals in place, in a list built by StepMeter::join().
void merge(std::vector<Interval>& v) {
  // Intervals that all arrived in order are already merged by join(), and sorted.
  const auto run_end = std::is_sorted_until(v.begin(), v.end());
  if (run_end == v.end()) return;
  // A stage's tasks come in the order they became ready, except that two ready at the same instant
  // may be listed the longer first. That usually leaves two sorted runs, and merging them is
  // linear, where sorting the whole list took a twentieth of the benchmark sweep.
  if (std::is_sorted(run_end, v.end()))
    std::inplace_merge(v.begin(), run_end, v.end());
  else
    std::sort(v.begin(), v.end());
  std::size_t out = 0;
  for (const Interval& iv : v) {
    if (iv.second <= iv.first) continue;
    if (out > 0 && iv.first <= v[out - 1].second)
      v[out - 1].second = std::max(v[out - 1].second, iv.second);
    else
      v[out++] = iv;
  }
  v.resize(out);
}

std::int64_t length(const std::vector<Interval>& merged) {
  std::int64_t total = 0;
  for (const auto& [a, b] : merged) total += b - a;
  return total;
}

}  // namespace

StepMeter::StepMeter(std::size_t stages, std::size_t pieces)
    : compute_(stages), any_(stages), comm_(stages * task_kind_count) {
  // Stages hold about equal shares of the pieces: room for a share each saves regrowing the lists.
  for (auto& list : compute_) list.reserve(pieces / stages);
  for (auto& list : any_) list.reserve(pieces / stages);
}

StepTimes StepMeter::finish(sim::Time makespan) {
  const std::size_t stages = any_.size();
  StepTimes out;
  out.stages.assign(stages, {});
  const std::int64_t step_ns = makespan.ns();
  out.step_time_s = makespan.seconds();
  if (step_ns == 0) return out;
  for (std::size_t s = 0; s < stages; ++s) {
    merge(compute_[s]);
    merge(any_[s]);
    StageTimes& st = out.stages[s];
    const auto comm_s = [&](TaskKind kind) {
      std::vector<Interval>& list = comm_[s * task_kind_count + static_cast<std::size_t>(kind)];
      merge(list);
      return static_cast<double>(length(list)) * 1e-9;
    };
    st.tp_comm_s = comm_s(TaskKind::tp_comm);
    st.pp_comm_s = comm_s(TaskKind::pp_comm);
    st.dp_comm_s = comm_s(TaskKind::dp_comm);
    st.cp_comm_s = comm_s(TaskKind::cp_comm);
    st.ep_comm_s = comm_s(TaskKind::ep_comm);
    const std::int64_t busy = length(compute_[s]);
    const std::int64_t exposed = length(any_[s]) - busy;
    st.compute_s = static_cast<double>(busy) * 1e-9;
    st.exposed_comm_s = static_cast<double>(exposed) * 1e-9;
    st.bubble_s = static_cast<double>(step_ns - busy - exposed) * 1e-9;
    out.compute_fraction += st.compute_s / out.step_time_s;
    out.exposed_comm_fraction += st.exposed_comm_s / out.step_time_s;
    out.bubble_fraction += st.bubble_s / out.step_time_s;
  }
  const auto n = static_cast<double>(stages);
  out.compute_fraction /= n;
  out.exposed_comm_fraction /= n;
  out.bubble_fraction /= n;
  return out;
}

StepTimes measure_step(const StepGraph& step, const sim::Timeline& timeline) {
  StepMeter meter(step.stages.size(), step.graph.size());
  for_each_piece(step, timeline, [&](const sim::TaskLabel& label, TaskKind kind, sim::ResourceId, std::int64_t begin,
                                      std::int64_t end) { meter.add(label.stage, kind, begin, end); });
  return meter.finish(timeline.makespan);
}

}  // namespace clustersim::models
