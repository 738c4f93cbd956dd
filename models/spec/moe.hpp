#pragma once
/// Which layers of a mixture-of-experts model route their tokens to experts, and how many
/// parameters those layers hold in all and per token.
/// Layer i (0-based) is a MoE layer when i >= dense_layers and (i - dense_layers) is a multiple of
/// moe_layer_freq (DeepSeek-V3's first_k_dense_replace, Megatron-Core's --moe-layer-freq); the
/// others keep the dense MLP of ffn_hidden. A MoE layer's MLP is a router (hidden x experts), the
/// routed experts (expert_ffn_hidden each) and the shared experts (expert_ffn_hidden each, run by
/// every token).
/// Sources: Mixtral (arXiv:2401.04088) section 2.1; DeepSeek-V3 (arXiv:2412.19437) section 2.1.2;
/// Megatron-Core transformer_config.py (moe_layer_freq).

#include <cstdint>
#include <span>

#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

inline bool is_moe(const TransformerSpec& model) { return model.experts > 0; }

/// Whether layer `index` (0-based) of the model routes its tokens to experts.
bool is_moe_layer(const TransformerSpec& model, std::int64_t index);

/// MoE layers among the `count` layers from `first` on.
std::int64_t moe_layers_in(const TransformerSpec& model, std::int64_t first, std::int64_t count);

/// MoE layers of pipeline stage `stage`: its chunks c x pp + stage of `split` (layers per chunk,
/// model order; split_layers).
std::int64_t moe_layers_of_stage(const TransformerSpec& model, std::span<const std::int64_t> split, std::int64_t pp,
                                 std::int64_t stage);

/// MoE layers of the whole model.
inline std::int64_t moe_layer_count(const TransformerSpec& model) { return moe_layers_in(model, 0, model.layers); }

/// Matrices of one MLP: 3 for a gated (SwiGLU) MLP, 2 otherwise.
inline std::int64_t mlp_matrices(const TransformerSpec& model) { return model.mlp == MlpKind::swiglu ? 3 : 2; }

/// The expected number of holders a token's routed experts lie on, when `holders` hold the experts
/// in order, experts / holders each (the ranks of an expert-parallel group, or its nodes):
/// - uniform: k distinct experts at random; a holder is missed with probability
///   C(E - e, k) / C(E, k), e = E / holders;
/// - consecutive: token i takes experts k i .. k i + k - 1 mod E; the mean over one cycle of starts.
/// What a deduplicating dispatcher (DeepEP) sends a token: once per such holder.
double expert_holders_per_token(const TransformerSpec& model, MoeRouting routing, std::int64_t holders);

/// Matmul weights of one routed (or shared) expert.
inline std::int64_t expert_parameters(const TransformerSpec& model) {
  return mlp_matrices(model) * model.hidden * model.expert_ffn_hidden;
}

/// Matmul weights of a MoE layer's MLP: router, routed and shared experts.
inline std::int64_t moe_mlp_parameters(const TransformerSpec& model) {
  return model.hidden * model.experts + (model.experts + model.shared_experts) * expert_parameters(model);
}

/// Of those, the ones a token multiplies by: router, its top-k routed experts, the shared ones.
inline std::int64_t moe_mlp_active_parameters(const TransformerSpec& model) {
  return model.hidden * model.experts + (model.experts_per_token + model.shared_experts) * expert_parameters(model);
}

}  // namespace clustersim::models
