#pragma once
/// What the step builder's task labels mean: the phase and kind codes stored in sim::TaskLabel.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace clustersim::models {

enum class TaskPhase : std::uint8_t { forward, backward, optimizer, step_end };
enum class TaskKind : std::uint8_t {
  compute,      // GPU kernels of a pass
  tp_comm,      // tensor-parallel collectives inside a pass
  pp_comm,      // activations or gradients between stages
  dp_comm,      // gradient reduction / parameter gather across data-parallel replicas, ZeRO-3's
                // per-unit gathers and reductions included
  cp_comm,      // context-parallel ring attention, beside the compute
  compute_then_tp,  // analytic fidelity: a pass's compute and then its tensor-parallel collectives,
                    // one task on the compute stream (step_pieces.hpp splits it again)
  ep_comm,          // mixture of experts: token dispatch and combine all-to-alls, on the stream
};
constexpr std::size_t task_kind_count = static_cast<std::size_t>(TaskKind::ep_comm) + 1;

constexpr std::string_view kind_name(TaskKind kind) {
  switch (kind) {
    case TaskKind::compute: return "compute";
    case TaskKind::tp_comm: return "tp_comm";
    case TaskKind::pp_comm: return "pp_comm";
    case TaskKind::dp_comm: return "dp_comm";
    case TaskKind::cp_comm: return "cp_comm";
    case TaskKind::compute_then_tp: return "compute_then_tp";
    case TaskKind::ep_comm: return "ep_comm";
  }
  return "?";
}

constexpr std::string_view phase_name(TaskPhase phase) {
  switch (phase) {
    case TaskPhase::forward: return "forward";
    case TaskPhase::backward: return "backward";
    case TaskPhase::optimizer: return "optimizer";
    case TaskPhase::step_end: return "step_end";
  }
  return "?";
}

}  // namespace clustersim::models
