#include "models/step/op_breakdown.hpp"

#include "models/compute/compute_time.hpp"
#include "models/spec/moe.hpp"

namespace clustersim::models {

std::string_view op_part_name(OpPart part) {
  switch (part) {
    case OpPart::layer_forward: return "layer forward";
    case OpPart::layer_backward: return "layer backward";
    case OpPart::layer_recompute: return "layer recompute";
    case OpPart::moe_layer_forward: return "moe layer forward";
    case OpPart::moe_layer_backward: return "moe layer backward";
    case OpPart::moe_layer_recompute: return "moe layer recompute";
    case OpPart::embedding_forward: return "embedding forward";
    case OpPart::embedding_backward: return "embedding backward";
    case OpPart::output_forward: return "output forward";
    case OpPart::output_backward: return "output backward";
  }
  return "?";
}

std::vector<TimedOp> op_breakdown(const StepInputs& in) {
  check_layout(in);
  std::vector<TimedOp> out;
  const auto add = [&](OpPart part, const OpList& ops) {
    for (const OpCost& op : ops)
      out.push_back({part, op, op_time_s(op, in.cluster.gpu, in.compute, in.training.precision)});
  };
  const std::int64_t moe_layers = moe_layer_count(in.model);
  const HeadCosts head = head_costs(in.model, in.parallelism, in.training);
  add(OpPart::embedding_forward, head.embedding_forward);
  if (moe_layers < in.model.layers) {
    const LayerCosts layer = layer_costs(in.model, in.parallelism, in.training);
    add(OpPart::layer_forward, layer.forward);
    add(OpPart::layer_recompute, layer.recompute);
    add(OpPart::layer_backward, layer.backward);
  }
  if (moe_layers > 0) {
    const LayerCosts layer = moe_layer_costs(in.model, in.parallelism, in.training);
    add(OpPart::moe_layer_forward, layer.forward);
    add(OpPart::moe_layer_recompute, layer.recompute);
    add(OpPart::moe_layer_backward, layer.backward);
  }
  add(OpPart::output_forward, head.output_forward);
  add(OpPart::output_backward, head.output_backward);
  add(OpPart::embedding_backward, head.embedding_backward);
  return out;
}

}  // namespace clustersim::models
