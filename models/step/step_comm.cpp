#include "models/step/step_comm.hpp"

namespace clustersim::models {

CommParts tp_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  const LayerCollectives& layer = plan.layer;
  const auto layers = static_cast<double>(chunk.layers);
  CommParts out;
  out.add({.first = &layer.tp[0],
           .second = layer.tp[1].group.ranks > 1 ? &layer.tp[1] : nullptr,
           .repeat = layer.tp_per_layer,
           .scale = forward ? layers : layers * layer.tp_backward_factor});
  return out;
}

CommParts blocking_dp_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  CommParts out;
  if (!plan.dp_per_pass) return out;
  if (!plan.overlap_param_gather) out.add({.first = &chunk.param_gather});
  if (!forward && !plan.overlap_grad_reduce) out.add({.first = &chunk.grad_reduce});
  return out;
}

CommParts overlap_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  const LayerCollectives& layer = plan.layer;
  const auto layers = static_cast<double>(chunk.layers);
  CommParts out;
  if (layer.cp_hops > 0.0)
    out.add({.first = &layer.cp_kv, .repeat = layer.cp_hops, .scale = forward ? layers : layers * 2.0});
  if (!plan.dp_per_pass) return out;
  if (plan.overlap_param_gather) out.add({.first = &chunk.param_gather});
  if (!forward && plan.overlap_grad_reduce) out.add({.first = &chunk.grad_reduce});
  return out;
}

CommParts send_comm(const StagePlan& stage, bool forward) {
  CommParts out;
  out.add({.first = forward ? &stage.send_forward : &stage.send_backward});
  return out;
}

CommParts grad_reduce_comm(const StepPlan& plan, const ChunkCosts& chunk, double share) {
  CommParts out;
  if (!plan.dp_per_pass) out.add({.first = &chunk.grad_reduce, .scale = share});
  return out;
}

CommParts param_gather_comm(const StepPlan& plan, const ChunkCosts& chunk) {
  CommParts out;
  if (!plan.dp_per_pass) out.add({.first = &chunk.param_gather});
  return out;
}

void set_comm_seconds(const StepPlan& plan, ChunkCosts& chunk) {
  chunk.tp_forward_s = comm_seconds(tp_comm(plan, chunk, true).span());
  chunk.tp_backward_s = comm_seconds(tp_comm(plan, chunk, false).span());
  chunk.blocking_dp_forward_s = comm_seconds(blocking_dp_comm(plan, chunk, true).span());
  chunk.blocking_dp_backward_s = comm_seconds(blocking_dp_comm(plan, chunk, false).span());
  chunk.overlap_forward_s = comm_seconds(overlap_comm(plan, chunk, true).span());
  chunk.overlap_backward_s = comm_seconds(overlap_comm(plan, chunk, false).span());
  chunk.grad_reduce_s = comm_seconds(grad_reduce_comm(plan, chunk).span());
  chunk.param_gather_s = comm_seconds(param_gather_comm(plan, chunk).span());
}

}  // namespace clustersim::models
