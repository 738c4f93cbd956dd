#pragma once
/// The compute of one micro-batch on one GPU, op by op, as the step model times it: each op of a
/// Transformer layer's forward, backward and redone forward (recomputation), of a mixture-of-
/// experts layer where the model has them, and of the embedding and the output layer with its
/// loss. It is the list a user sets against a profiler's kernel table (Nsight Systems' CUDA GPU
/// kernel summary, PyTorch's profiler) to find which op the prediction has wrong.
///
/// Each op's time is models::op_time_s: the roofline of its FLOPs and HBM bytes at the profile's
/// efficiencies, plus its kernels' launch gaps. Not in it: the CPU's issue of the kernels where the
/// GPU waits for it (host_launch.hpp), the slowdown of compute beside communication kernels
/// (overlap_cost.hpp), communication itself, and the optimizer step; the stage times of `run`
/// include them.

#include <string_view>
#include <vector>

#include "models/compute/transformer_costs.hpp"
#include "models/step/step_model.hpp"

namespace clustersim::models {

/// Which pass of which part of the model an op belongs to.
enum class OpPart {
  layer_forward,
  layer_backward,
  layer_recompute,
  moe_layer_forward,
  moe_layer_backward,
  moe_layer_recompute,
  embedding_forward,
  embedding_backward,
  output_forward,
  output_backward,
};
std::string_view op_part_name(OpPart part);

struct TimedOp {
  OpPart part = OpPart::layer_forward;
  OpCost op{};
  double seconds = 0.0;  // models::op_time_s, one micro-batch on one GPU
};

/// Every op of `in`'s model for one micro-batch on one GPU, in the order the passes run them. A
/// dense layer's ops are listed once (every dense layer has them), as are a MoE layer's; the
/// embedding's run on the first pipeline stage only and the output layer's on the last.
std::vector<TimedOp> op_breakdown(const StepInputs& in);

}  // namespace clustersim::models
