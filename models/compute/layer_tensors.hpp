#pragma once
/// The parameter tensors of one transformer layer on one tensor-parallel rank, as a framework that
/// shards tensor by tensor sees them (DeepSpeed ZeRO-3, sharding.hpp), module by module in the
/// order the forward runs them.
/// GPT-style layers (GELU MLP) carry biases and two-parameter LayerNorms: the first LayerNorm, the
/// fused QKV and its bias, the projection and its bias, the second LayerNorm, the two MLP matrices
/// and their biases (12 tensors in 6 modules). Llama-style layers (SwiGLU) have none: an RMSNorm,
/// q, k, v, o, an RMSNorm, gate, up and down (9 tensors, each its own module). Column-parallel
/// matrices and their biases are split over the TP ranks; the row-parallel ones' biases and the
/// norms are not (Megatron-LM's ColumnParallelLinear and RowParallelLinear); grouped-query K/V heads
/// are replicated where there are fewer than TP ranks.
/// Recomputation: with full activation recomputation, a layer's backward first runs its forward
/// again. DeepSpeed releases a module's gathered parameters after each forward, the recomputed one
/// included, unless the parameters used before the module's next use (its backward) number fewer
/// than its reuse distance limit; between a module's recomputed forward and its backward run the
/// recomputed forwards of the modules after it and then their backwards, 2 x their parameters. A
/// released module is gathered again for its backward.
/// Prefetch: while a module computes, DeepSpeed issues the gather of the next parameters not yet
/// gathered (skipping the persistent ones), but only while fewer parameters than its live limit
/// are gathered (stage3_max_live_parameters); the module at work holds its own. A gather issued
/// ahead runs beside the compute of the module before it; the others block.
/// Units: elements.

#include <cstdint>

#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// Width of the K (or V) projection on one TP rank: its heads x head dim.
double kv_width_per_rank(const TransformerSpec& model, std::int64_t tp);

/// How a framework treats a layer's tensors, in elements.
struct TensorRules {
  double persistence_threshold = 0;  // smaller tensors are never gathered (0: every tensor is)
  double reuse_distance = 0;         // > 0: a recomputed forward releases modules further apart than this
  double max_live = 0;               // > 0: no prefetch while this many parameters are gathered
};

struct LayerTensors {
  double tensors = 0;             // every parameter tensor of the layer
  double gathered = 0;            // those of at least the persistence threshold's elements
  double gathered_params = 0;     // their elements
  double regathered = 0;          // gathered tensors gathered again after a recomputed forward
  double prefetched_forward = 0;  // gathers of the forward issued ahead, beside the module before
  double prefetched_backward = 0; // likewise in the backward (its recomputed forward included)
};

/// The layer's tensors on one of `tp` ranks under `rules`, for a backward that does (`recomputed`)
/// or does not first run the layer's forward again. The pass's sequence repeats layer after layer.
LayerTensors layer_parameter_tensors(const TransformerSpec& model, std::int64_t tp, const TensorRules& rules,
                                     bool recomputed = false);

}  // namespace clustersim::models
