#pragma once
/// The widths an attention layer's projections and kernel work on, for each AttentionKind
/// (transformer_spec.hpp): one place for what the FLOP counts, the parameter counts, the kernels
/// and the memory model read.
/// mha / gqa: queries heads x head_dim, keys and values kv_heads x head_dim each.
/// mla (DeepSeek-V3, arXiv:2412.19437 section 2.1.1): W_DQ h x q_lora, W_UQ q_lora x heads x
/// (nope + rope) (or W_Q h x heads x (nope + rope) without q_lora), W_DKV h x (kv_lora + rope)
/// (the latent and the shared rope key), W_UKV kv_lora x heads x (nope + v), W_O heads x v x h.
/// The kernel sees heads keys of nope + rope and heads values of v.

#include <cstdint>

#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

inline std::int64_t head_dim_of(const TransformerSpec& m) { return m.head_dim > 0 ? m.head_dim : m.hidden / m.heads; }

inline bool is_mla(const TransformerSpec& m) { return m.attention == AttentionKind::mla; }

/// Width of one head's query and key, and of its value.
inline std::int64_t qk_head_dim(const TransformerSpec& m) {
  return is_mla(m) ? m.qk_nope_head_dim + m.qk_rope_head_dim : head_dim_of(m);
}
inline std::int64_t value_head_dim(const TransformerSpec& m) { return is_mla(m) ? m.v_head_dim : head_dim_of(m); }

/// Whether queries and keys are rotated by rotary position embeddings (RoPE) in every layer. The
/// convention every exporter here follows: a gated MLP is the Llama family's block, whose
/// positions are rotary (Llama, Mixtral, Qwen3, DeepSeek-V3's decoupled rope key, GPT-OSS); a GeLU
/// MLP is GPT-3's, with learned absolute positions; ALiBi (BLOOM) biases the scores instead.
/// Nemotron-4 (squared ReLU, rotary) is the one model it misreads.
inline bool rotary_positions(const TransformerSpec& m) { return m.mlp == MlpKind::swiglu && !m.alibi; }

/// Key (= value) heads the kernel reads: kv_heads, or every head under mla.
inline std::int64_t attention_kv_heads(const TransformerSpec& m) { return is_mla(m) ? m.heads : m.kv_heads; }

/// Whether the model code copies each key-value group to the query heads it serves before the
/// kernel (`repeat_kv`: training.repeat_kv): only where there are fewer key-value heads than query
/// heads, so never under mla.
inline bool copies_kv_groups(const TransformerSpec& m, bool repeat_kv) {
  return repeat_kv && attention_kv_heads(m) < m.heads;
}

/// Whether layer `index` (0-based) attends a sliding window.
inline bool is_windowed_layer(const TransformerSpec& m, std::int64_t index) {
  return m.sliding_window > 0 && m.sliding_window_layers > 0 && index % m.sliding_window_layers == 0;
}

/// The share of the model's layers that attend a sliding window.
inline double windowed_layer_fraction(const TransformerSpec& m) {
  if (m.sliding_window <= 0 || m.sliding_window_layers <= 0 || m.layers <= 0) return 0.0;
  const std::int64_t windowed = (m.layers + m.sliding_window_layers - 1) / m.sliding_window_layers;
  return static_cast<double>(windowed) / static_cast<double>(m.layers);
}

/// Matmul weights of the attention's projections.
inline std::int64_t attention_matmul_parameters(const TransformerSpec& m) {
  const std::int64_t h = m.hidden, heads = m.heads;
  if (is_mla(m)) {
    const std::int64_t qk = qk_head_dim(m);
    const std::int64_t q = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank * heads * qk : h * heads * qk;
    const std::int64_t kv = h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim);
    return q + kv + heads * m.v_head_dim * h;
  }
  const std::int64_t d = head_dim_of(m);
  return h * heads * d + 2 * h * m.kv_heads * d + heads * d * h;
}

/// Of those, the ones each tensor-parallel rank holds whole rather than a 1/tp share: MLA's down
/// projections (Megatron-Core's linear_q_down_proj and linear_kv_down_proj are not split).
inline std::int64_t attention_replicated_parameters(const TransformerSpec& m) {
  if (!is_mla(m)) return 0;
  return m.hidden * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim);
}

}  // namespace clustersim::models
