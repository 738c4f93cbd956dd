#pragma once
/// A simulated step's tasks as reports show them. A task of kind compute_then_tp (the analytic
/// fidelity's pass: compute, then its tensor-parallel collectives) is two pieces, its compute on
/// the stage's compute engine and then its collectives on the stage's NVLink, split where the
/// collectives' time before its finish begins, and a third where some of its collectives run
/// beside the compute from its start; every other task is one piece of its own kind, on its first
/// resource (0 for a task with none).

#include <algorithm>
#include <cstdint>

#include "models/step/step_builder.hpp"
#include "models/step/step_labels.hpp"
#include "sim/timeline.hpp"

namespace clustersim::models {

/// Where a compute_then_tp task run from begin to end splits: its compute ends at `split`, its
/// collectives after it run to the end, those beside the compute from begin to `beside_end`
/// (begin when none).
struct ComputeThenTpSplit {
  std::int64_t split = 0;
  std::int64_t beside_end = 0;
};
inline ComputeThenTpSplit compute_then_tp_split(const StepGraph& step, const sim::TaskLabel& label, std::int64_t begin,
                                                std::int64_t end) {
  const std::size_t index = step.tp_tail_index(label);
  const std::int64_t split = std::max(begin, end - step.tp_tail_ns[index]);
  return {.split = split, .beside_end = std::min(split, begin + step.tp_beside_ns[index])};
}

/// Calls visit(label, kind, resource, begin_ns, end_ns) for the pieces of task t, run from begin_ns
/// to end_ns.
template <class Visit>
void visit_pieces(const StepGraph& step, sim::TaskId t, std::int64_t begin, std::int64_t end, Visit&& visit) {
  const sim::TaskLabel& label = step.graph.label(t);
  const auto kind = static_cast<TaskKind>(label.kind);
  const sim::ResourceId resource = step.graph.first_resource(t);
  if (kind != TaskKind::compute_then_tp) {
    visit(label, kind, resource, begin, end);
    return;
  }
  const auto [split, beside_end] = compute_then_tp_split(step, label, begin, end);
  const sim::ResourceId nvlink = step.stages[static_cast<std::size_t>(label.stage)].nvlink;
  visit(label, TaskKind::compute, resource, begin, split);
  if (beside_end > begin) visit(label, TaskKind::tp_comm, nvlink, begin, beside_end);
  if (split < end) visit(label, TaskKind::tp_comm, nvlink, split, end);
}

/// Calls visit(label, kind, resource, begin_ns, end_ns) for every piece, in task order.
template <class Visit>
void for_each_piece(const StepGraph& step, const sim::Timeline& timeline, Visit&& visit) {
  // The count read once: the compiler cannot tell that visit() leaves the graph alone.
  const std::size_t tasks = step.graph.size();
  for (sim::TaskId t = 0; t < tasks; ++t)
    visit_pieces(step, t, timeline.tasks[t].start.ns(), timeline.tasks[t].finish.ns(), visit);
}

}  // namespace clustersim::models
