#include "models/step_metrics.hpp"

#include <algorithm>
#include <utility>

#include "models/step_labels.hpp"
#include "models/step_pieces.hpp"

namespace clustersim::models {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;  // [start, finish) in ns

/// Sorts and merges overlapping intervals in place.
void merge(std::vector<Interval>& v) {
  // A stage's tasks come in the order they became ready, except that two ready at the same instant
  // may be listed the longer first. That usually leaves two sorted runs, and merging them is
  // linear, where sorting the whole list took a twentieth of the benchmark sweep.
  const auto run_end = std::is_sorted_until(v.begin(), v.end());
  if (run_end != v.end()) {
    if (std::is_sorted(run_end, v.end()))
      std::inplace_merge(v.begin(), run_end, v.end());
    else
      std::sort(v.begin(), v.end());
  }
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

/// Length of `a` not covered by `b`; both merged.
std::int64_t uncovered(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::int64_t total = 0;
  std::size_t j = 0;
  for (auto [start, end] : a) {
    while (j < b.size() && b[j].second <= start) ++j;
    std::size_t k = j;
    while (start < end && k < b.size() && b[k].first < end) {
      if (b[k].first > start) total += b[k].first - start;
      start = std::max(start, b[k].second);
      ++k;
    }
    if (start < end) total += end - start;
  }
  return total;
}

}  // namespace

StepTimes measure_step(const StepGraph& step, const sim::Timeline& timeline) {
  const std::size_t stages = step.stages.size();
  std::vector<std::vector<Interval>> compute(stages), comm(stages);
  // Stages hold about equal shares of the tasks: room for a share each saves regrowing the lists.
  for (auto& list : compute) list.reserve(step.graph.size() / stages);
  for (auto& list : comm) list.reserve(step.graph.size() / stages);
  // Flow fidelity: a collective is many concurrent flows (labelled with their sender's rank);
  // their busy time by kind is the union of their intervals, not the sum. By stage and kind, made
  // on the first flow.
  std::vector<std::vector<Interval>> flows;
  StepTimes out;
  out.stages.assign(stages, {});
  for_each_piece(step, timeline, [&](const sim::TaskLabel& label, TaskKind kind, sim::ResourceId, std::int64_t begin,
                                      std::int64_t end) {
    const auto s = static_cast<std::size_t>(label.stage);
    const Interval iv{begin, end};
    if (kind == TaskKind::compute) {
      compute[s].push_back(iv);
      return;
    }
    comm[s].push_back(iv);
    if (label.rank >= 0) {
      if (flows.empty()) flows.resize(stages * task_kind_count);
      flows[s * task_kind_count + label.kind].push_back(iv);
      return;
    }
    const double seconds = static_cast<double>(iv.second - iv.first) * 1e-9;
    StageTimes& st = out.stages[s];
    switch (kind) {
      case TaskKind::tp_comm: st.tp_comm_s += seconds; break;
      case TaskKind::pp_comm: st.pp_comm_s += seconds; break;
      case TaskKind::dp_comm: st.dp_comm_s += seconds; break;
      case TaskKind::overlap_comm: st.overlap_comm_s += seconds; break;
      case TaskKind::compute:
      case TaskKind::compute_then_tp: break;  // not a piece's kind
    }
  });
  const std::int64_t step_ns = timeline.makespan.ns();
  out.step_time_s = timeline.makespan.seconds();
  if (step_ns == 0) return out;
  for (std::size_t s = 0; s < stages; ++s) {
    merge(compute[s]);
    merge(comm[s]);
    StageTimes& st = out.stages[s];
    if (!flows.empty()) {
      const auto flow_s = [&](TaskKind kind) {
        std::vector<Interval>& list = flows[s * task_kind_count + static_cast<std::size_t>(kind)];
        merge(list);
        return static_cast<double>(length(list)) * 1e-9;
      };
      st.tp_comm_s += flow_s(TaskKind::tp_comm);
      st.pp_comm_s += flow_s(TaskKind::pp_comm);
      st.dp_comm_s += flow_s(TaskKind::dp_comm);
      st.overlap_comm_s += flow_s(TaskKind::overlap_comm);
    }
    const std::int64_t busy = length(compute[s]);
    const std::int64_t exposed = uncovered(comm[s], compute[s]);
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
