#pragma once
/// A simulated step's tasks as reports show them. A task of kind compute_then_tp (the analytic
/// fidelity's pass: compute, then its tensor-parallel collectives) is two pieces, its compute and
/// then its collectives, split where the collectives' time before its finish begins; every other
/// task is one piece of its own kind.

#include <algorithm>
#include <cstdint>

#include "models/step_builder.hpp"
#include "models/step_labels.hpp"
#include "sim/timeline.hpp"

namespace clustersim::models {

/// Calls visit(task, label, kind, begin_ns, end_ns) for every piece, in task order.
template <class Visit>
void for_each_piece(const StepGraph& step, const sim::Timeline& timeline, Visit&& visit) {
  for (sim::TaskId t = 0; t < step.graph.size(); ++t) {
    const sim::TaskLabel& label = step.graph.label(t);
    const auto kind = static_cast<TaskKind>(label.kind);
    const std::int64_t begin = timeline.tasks[t].start.ns();
    const std::int64_t end = timeline.tasks[t].finish.ns();
    if (kind != TaskKind::compute_then_tp) {
      visit(t, label, kind, begin, end);
      continue;
    }
    const std::int64_t split = std::max(begin, end - step.tp_tail_ns[step.tp_tail_index(label)]);
    visit(t, label, TaskKind::compute, begin, split);
    visit(t, label, TaskKind::tp_comm, split, end);
  }
}

}  // namespace clustersim::models
