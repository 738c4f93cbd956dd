#pragma once
/// The parameter tensors of one transformer layer on one tensor-parallel rank, as a framework that
/// shards tensor by tensor sees them (DeepSpeed ZeRO-3, sharding.hpp).
/// GPT-style layers (GELU MLP) carry biases and two-parameter LayerNorms: the fused QKV and its
/// bias, the projection and its bias, two LayerNorms of weight and bias, two MLP matrices and their
/// biases (12 tensors). Llama-style layers (SwiGLU) have none: q, k, v, o, gate, up, down and two
/// RMSNorm weights (9). Column-parallel matrices and their biases are split over the TP ranks; the
/// row-parallel ones' biases and the norms are not (Megatron-LM's ColumnParallelLinear and
/// RowParallelLinear); grouped-query K/V heads are replicated where there are fewer than TP ranks.
/// Units: elements.

#include <cstdint>

#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// Width of the K (or V) projection on one TP rank: its heads x head dim.
double kv_width_per_rank(const TransformerSpec& model, std::int64_t tp);

struct LayerTensors {
  double tensors = 0;          // every parameter tensor of the layer
  double gathered = 0;         // those of at least the persistence threshold's elements
  double gathered_params = 0;  // their elements
};

/// The layer's tensors on one of `tp` ranks; tensors under `persistence_threshold` elements are not
/// counted as gathered (0: every tensor is).
LayerTensors layer_parameter_tensors(const TransformerSpec& model, std::int64_t tp, double persistence_threshold);

}  // namespace clustersim::models
