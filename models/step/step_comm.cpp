#include "models/step/step_comm.hpp"

namespace clustersim::models {

namespace {

/// `units` units' reductions: the reduce-scatter in the shard group, then (hybrid sharding) the
/// all-reduce of the shard across groups; two parts, as the two run over different ranks.
void add_unit_reductions(CommParts& out, const ChunkCosts& chunk, double units) {
  out.add({.first = &chunk.unit_reduce, .scale = units});
  if (chunk.unit_replica_reduce.group.ranks > 1) out.add({.first = &chunk.unit_replica_reduce, .scale = units});
  // The chunk's MoE layers' expert shards, in proportion: they are spread over its units.
  if (chunk.expert_reduce.group.ranks > 1 && chunk.reduce_units > 0.0)
    out.add({.first = &chunk.expert_reduce,
             .scale = units * static_cast<double>(chunk.moe_layers) / chunk.reduce_units});
}

/// `gathers` of the chunk's unit gathers (`record`), and their share of its expert gathers.
void add_unit_gathers(CommParts& out, const ChunkCosts& chunk, const CollectiveRecord& record,
                      const CollectiveRecord& experts, double gathers, bool forward) {
  out.add({.first = &record, .scale = gathers});
  const double units = forward ? chunk.units : chunk.backward_units;
  if (experts.group.ranks > 1 && units > 0.0)
    out.add({.first = &experts, .scale = gathers * static_cast<double>(chunk.moe_layers) / units});
}

bool gathers(const StepPlan& plan, bool forward) { return forward || plan.reshard_after_forward; }

double gathers_of(const ChunkCosts& chunk, bool forward) { return forward ? chunk.units : chunk.backward_units; }

double prefetched_of(const ChunkCosts& chunk, bool forward) {
  return forward ? chunk.prefetched_forward : chunk.prefetched_backward;
}

}  // namespace

namespace {

/// `share` of the chunk's tensor-parallel collectives of one pass.
CommParts tp_share(const StepPlan& plan, const ChunkCosts& chunk, bool forward, double share) {
  const LayerCollectives& layer = plan.layer;
  const double tp_layers = chunk.tp_layers;
  CommParts out;
  if (!(share > 0.0)) return out;
  const auto add_pair = [&](const std::array<CollectiveRecord, 2>& pair, double layers) {
    out.add({.first = &pair[0],
             .second = pair[1].group.ranks > 1 ? &pair[1] : nullptr,
             .repeat = layer.tp_per_layer,
             .scale = layers * share});
  };
  if (forward) {
    add_pair(layer.tp, tp_layers);
    return out;
  }
  add_pair(layer.tp_backward, tp_layers);
  if (layer.tp_backward_factor > 1.0) add_pair(layer.tp, tp_layers * (layer.tp_backward_factor - 1.0));
  if (layer.tp_regathers > 0.0)
    out.add({.first = &layer.tp_regather, .repeat = layer.tp_regathers, .scale = tp_layers * share});
  return out;
}

}  // namespace

CommParts tp_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  return tp_share(plan, chunk, forward, forward ? chunk.tp_exposed_forward : chunk.tp_exposed_backward);
}

CommParts tp_hidden_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  return tp_share(plan, chunk, forward, 1.0 - (forward ? chunk.tp_exposed_forward : chunk.tp_exposed_backward));
}

CommParts dp_before_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  CommParts out;
  if (!plan.gathers_per_pass || !gathers(plan, forward)) return out;
  const double blocking = gathers_of(chunk, forward) - prefetched_of(chunk, forward);
  if (blocking > 0.0) add_unit_gathers(out, chunk, chunk.unit_gather, chunk.expert_gather, blocking, forward);
  return out;
}

CommParts dp_beside_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  CommParts out;
  if (!plan.reduces_per_pass) return out;
  const double ahead = prefetched_of(chunk, forward), other_reductions = chunk.reduce_units - 1.0;
  if (plan.gathers_per_pass && gathers(plan, forward) && ahead > 0.0)
    add_unit_gathers(out, chunk, chunk.unit_gather_ahead, chunk.expert_gather_ahead, ahead, forward);
  if (!forward && plan.overlap_grad_reduce && other_reductions > 0.0) add_unit_reductions(out, chunk, other_reductions);
  return out;
}

CommParts dp_after_comm(const StepPlan& plan, const ChunkCosts& chunk) {
  CommParts out;
  if (plan.reduces_per_pass && !plan.overlap_grad_reduce) add_unit_reductions(out, chunk, chunk.reduce_units);
  return out;
}

CommParts dp_tail_comm(const StepPlan& plan, const ChunkCosts& chunk) {
  CommParts out;
  if (plan.reduces_per_pass && plan.overlap_grad_reduce) add_unit_reductions(out, chunk, 1.0);
  return out;
}

namespace {

// The share `share` of a pass's ring hops: p2p's ring carries K and V forward, and K, V and their
// gradients backward; behind a gather the ring carries the gradients alone.
void add_ring_hops(CommParts& out, const LayerCollectives& layer, double layers, bool forward, double share) {
  if (layer.cp_hops <= 0.0 || share <= 0.0) return;
  const bool gathered = layer.cp_gather.group.ranks > 1;
  const double blocks = forward ? (gathered ? 0.0 : 1.0) : (gathered ? 1.0 : 2.0);
  if (blocks > 0.0) out.add({.first = &layer.cp_kv, .repeat = layer.cp_hops, .scale = layers * blocks * share});
}

// One pass's context-parallel parts, without a recomputed forward's.
CommParts cp_beside_parts(const LayerCollectives& layer, double layers, bool forward) {
  CommParts out;
  const double hidden = forward ? layer.cp_gather_hidden_forward : layer.cp_gather_hidden_backward;
  if (layer.cp_gather.group.ranks > 1 && hidden > 0.0) out.add({.first = &layer.cp_gather, .scale = layers * hidden});
  add_ring_hops(out, layer, layers, forward, forward ? layer.cp_kv_hidden_forward : layer.cp_kv_hidden_backward);
  return out;
}

CommParts cp_before_parts(const LayerCollectives& layer, double layers, bool forward) {
  CommParts out;
  const double hidden = forward ? layer.cp_gather_hidden_forward : layer.cp_gather_hidden_backward;
  if (layer.cp_gather.group.ranks > 1 && hidden < 1.0)
    out.add({.first = &layer.cp_gather, .scale = layers * (1.0 - hidden)});
  // The ring's hops, as far as a step's attention does not hide them.
  add_ring_hops(out, layer, layers, forward, 1.0 - (forward ? layer.cp_kv_hidden_forward : layer.cp_kv_hidden_backward));
  // Ulysses: the forward's queries, keys and values in; the backward's output gradient, the size
  // of the output.
  const CollectiveRecord& heads = forward ? layer.cp_heads_in : layer.cp_heads_out;
  if (heads.group.ranks > 1) out.add({.first = &heads, .scale = layers});
  return out;
}

CommParts cp_after_parts(const LayerCollectives& layer, double layers, bool forward) {
  CommParts out;
  if (!forward && layer.cp_scatter.group.ranks > 1) out.add({.first = &layer.cp_scatter, .scale = layers});
  const CollectiveRecord& heads = forward ? layer.cp_heads_out : layer.cp_heads_in;
  if (heads.group.ranks > 1) out.add({.first = &heads, .scale = layers});
  return out;
}

// A full recompute redoes each layer's forward in the backward, its context-parallel exchange
// included (tp_backward_factor - 1 more forwards).
CommParts cp_pass_parts(const StepPlan& plan, const ChunkCosts& chunk, bool forward,
                        CommParts (*parts)(const LayerCollectives&, double, bool)) {
  const auto layers = static_cast<double>(chunk.layers);
  CommParts out = parts(plan.layer, layers, forward);
  if (!forward && plan.layer.tp_backward_factor > 1.0) {
    const CommParts again = parts(plan.layer, layers * (plan.layer.tp_backward_factor - 1.0), true);
    for (const CommPart& part : again.span()) out.add(part);
  }
  return out;
}

}  // namespace

CommParts cp_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  return cp_pass_parts(plan, chunk, forward, cp_beside_parts);
}

CommParts cp_before_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  return cp_pass_parts(plan, chunk, forward, cp_before_parts);
}

CommParts cp_after_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  return cp_pass_parts(plan, chunk, forward, cp_after_parts);
}

CommParts ep_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward) {
  const LayerCollectives& layer = plan.layer;
  CommParts out;
  if (layer.ep_per_layer > 0.0 && chunk.moe_layers > 0) {
    const double backward_factor = layer.tp_backward_factor;  // full recompute redoes the forward's
    out.add({.first = &layer.ep_dispatch, .repeat = layer.ep_per_layer,
             .scale = static_cast<double>(chunk.moe_layers) * (forward ? 1.0 : backward_factor)});
  }
  if (layer.etp[0].group.ranks > 1 && chunk.moe_layers > 0) {
    out.add({.first = &layer.etp[0], .second = &layer.etp[1],
             .scale = static_cast<double>(chunk.moe_layers) * (forward ? 1.0 : layer.tp_backward_factor)});
  }
  return out;
}

CommParts send_comm(const StagePlan& stage, bool forward) {
  CommParts out;
  out.add({.first = forward ? &stage.send_forward : &stage.send_backward});
  return out;
}

CommParts grad_reduce_comm(const StepPlan& plan, const ChunkCosts& chunk, double share) {
  CommParts out;
  if (plan.reduces_per_pass) return out;
  out.add({.first = &chunk.grad_reduce, .scale = share});
  // FSDP2 under a pipeline with hybrid sharding: the reduced shard, all-reduced across the groups.
  if (chunk.unit_replica_reduce.group.ranks > 1) out.add({.first = &chunk.unit_replica_reduce, .scale = share});
  if (chunk.expert_grad_reduce.group.ranks > 1) out.add({.first = &chunk.expert_grad_reduce, .scale = share});
  return out;
}

CommParts param_gather_comm(const StepPlan& plan, const ChunkCosts& chunk) {
  CommParts out;
  if (plan.gathers_per_pass) return out;
  out.add({.first = &chunk.param_gather});
  if (chunk.expert_param_gather.group.ranks > 1) out.add({.first = &chunk.expert_param_gather});
  return out;
}

void set_comm_seconds(const StepPlan& plan, ChunkCosts& chunk) {
  chunk.tp_forward_s = comm_seconds(tp_comm(plan, chunk, true).span());
  chunk.tp_backward_s = comm_seconds(tp_comm(plan, chunk, false).span());
  chunk.tp_hidden_forward_s = comm_seconds(tp_hidden_comm(plan, chunk, true).span());
  chunk.tp_hidden_backward_s = comm_seconds(tp_hidden_comm(plan, chunk, false).span());
  chunk.dp_before_forward_s = comm_seconds(dp_before_comm(plan, chunk, true).span());
  chunk.dp_before_backward_s = comm_seconds(dp_before_comm(plan, chunk, false).span());
  chunk.dp_beside_forward_s = comm_seconds(dp_beside_comm(plan, chunk, true).span());
  chunk.dp_beside_backward_s = comm_seconds(dp_beside_comm(plan, chunk, false).span());
  chunk.dp_after_backward_s = comm_seconds(dp_after_comm(plan, chunk).span());
  chunk.dp_tail_backward_s = comm_seconds(dp_tail_comm(plan, chunk).span());
  chunk.cp_forward_s = comm_seconds(cp_comm(plan, chunk, true).span());
  chunk.cp_backward_s = comm_seconds(cp_comm(plan, chunk, false).span());
  chunk.cp_before_forward_s = comm_seconds(cp_before_comm(plan, chunk, true).span());
  chunk.cp_before_backward_s = comm_seconds(cp_before_comm(plan, chunk, false).span());
  chunk.cp_after_forward_s = comm_seconds(cp_after_comm(plan, chunk, true).span());
  chunk.cp_after_backward_s = comm_seconds(cp_after_comm(plan, chunk, false).span());
  chunk.ep_forward_s = comm_seconds(ep_comm(plan, chunk, true).span());
  chunk.ep_backward_s = comm_seconds(ep_comm(plan, chunk, false).span());
  chunk.grad_reduce_s = comm_seconds(grad_reduce_comm(plan, chunk).span());
  chunk.param_gather_s = comm_seconds(param_gather_comm(plan, chunk).span());
}

}  // namespace clustersim::models
