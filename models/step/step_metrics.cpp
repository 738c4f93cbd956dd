#include "models/step/step_metrics.hpp"

#include <algorithm>
#include <utility>

#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"

namespace clustersim::models {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;  // [start, finish) in ns

/// Appends [begin, end) to `v`, or joins it to the last interval when it starts within or right at
/// the end of that one: a stage's pieces arrive about in the order they ran, so its lists stay one
/// interval per gap (a bubble, a tensor-parallel collective) rather than one per piece. merge()
/// finishes the job whatever the order; the union is the same. Declared inline: it runs once or
/// twice per piece, and GCC would otherwise call it.
inline void add(std::vector<Interval>& v, std::int64_t begin, std::int64_t end) {
  if (end <= begin) return;  // empty: merge() would drop it
  if (!v.empty() && begin >= v.back().first && begin <= v.back().second)
    v.back().second = std::max(v.back().second, end);
  else
    v.push_back({begin, end});
}

/// Sorts and merges overlapping intervals in place, in a list built by add().
void merge(std::vector<Interval>& v) {
  // Intervals that all arrived in order are already merged by add(), and sorted.
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

StepTimes measure_step(const StepGraph& step, const sim::Timeline& timeline) {
  const std::size_t stages = step.stages.size();
  // By stage, when its compute engine is busy and when anything (compute or communication) runs:
  // exposed communication, the time communication runs but compute does not, is the difference.
  std::vector<std::vector<Interval>> compute(stages), any(stages);
  // Stages hold about equal shares of the tasks: room for a share each saves regrowing the lists.
  for (auto& list : compute) list.reserve(step.graph.size() / stages);
  for (auto& list : any) list.reserve(step.graph.size() / stages);
  // By stage and communication kind, when that kind ran: concurrent tasks (gradient buckets
  // sharing the port, a collective's flows labelled with their senders' ranks) count once.
  std::vector<std::vector<Interval>> comm(stages * task_kind_count);
  StepTimes out;
  out.stages.assign(stages, {});
  for_each_piece(step, timeline, [&](const sim::TaskLabel& label, TaskKind kind, sim::ResourceId, std::int64_t begin,
                                      std::int64_t end) {
    const auto s = static_cast<std::size_t>(label.stage);
    add(any[s], begin, end);
    if (kind == TaskKind::compute)
      add(compute[s], begin, end);
    else
      add(comm[s * task_kind_count + static_cast<std::size_t>(kind)], begin, end);
  });
  const std::int64_t step_ns = timeline.makespan.ns();
  out.step_time_s = timeline.makespan.seconds();
  if (step_ns == 0) return out;
  for (std::size_t s = 0; s < stages; ++s) {
    merge(compute[s]);
    merge(any[s]);
    StageTimes& st = out.stages[s];
    const auto comm_s = [&](TaskKind kind) {
      std::vector<Interval>& list = comm[s * task_kind_count + static_cast<std::size_t>(kind)];
      merge(list);
      return static_cast<double>(length(list)) * 1e-9;
    };
    st.tp_comm_s = comm_s(TaskKind::tp_comm);
    st.pp_comm_s = comm_s(TaskKind::pp_comm);
    st.dp_comm_s = comm_s(TaskKind::dp_comm);
    st.cp_comm_s = comm_s(TaskKind::cp_comm);
    st.ep_comm_s = comm_s(TaskKind::ep_comm);
    const std::int64_t busy = length(compute[s]);
    const std::int64_t exposed = length(any[s]) - busy;
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

}  // namespace clustersim::models
