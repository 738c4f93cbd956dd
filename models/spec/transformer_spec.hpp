#pragma once
/// The shape of a decoder-only transformer (GPT, Llama): enough to count its FLOPs, bytes and memory.

#include <cstdint>
#include <string>

namespace clustersim::models {

enum class MlpKind { gelu, swiglu };  // gelu: 2 matrices (also squared ReLU); swiglu: 3 matrices
// mha and gqa: heads query heads over kv_heads key/value heads of head_dim (mha: as many);
// mla: DeepSeek's multi-head latent attention, keys and values projected up from a shared latent.
enum class AttentionKind { mha, gqa, mla };

struct TransformerSpec {
  std::string name;
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t ffn_hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  // = heads for multi-head attention; fewer for grouped-query attention
  std::int64_t head_dim = 0;  // width of one head; 0: hidden / heads (Qwen3 and GPT-OSS set it apart)
  AttentionKind attention = AttentionKind::gqa;
  // Multi-head latent attention (attention = mla; DeepSeek-V2/V3 config.json names): queries
  // through a q_lora_rank latent (0: projected directly), keys and values up from one
  // kv_lora_rank latent; each head's query and key are qk_nope_head_dim + qk_rope_head_dim wide
  // (the rope part of the key shared by all heads), its value v_head_dim.
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  // Sliding-window attention (GPT-OSS, Mistral 7B): layer i attends only its sliding_window
  // previous keys when sliding_window_layers > 0 and i is a multiple of it (GPT-OSS: 2, its even
  // layers banded, its odd ones full); 0: every layer full.
  std::int64_t sliding_window = 0;
  std::int64_t sliding_window_layers = 0;
  std::int64_t vocab = 0;
  MlpKind mlp = MlpKind::swiglu;
  bool tied_embeddings = false;  // input embedding and logits share one matrix
  // Dropout probability of the hidden states (after attention, after the MLP, after the
  // embedding) and of the attention probabilities; 0: the model trains without dropout and stores
  // no dropout masks (PyTorch's dropout returns its input unchanged at p = 0).
  double dropout = 0.0;
  // ALiBi (Press et al. 2022): a per-head linear bias on the attention scores in place of position
  // embeddings (BLOOM). Only the unfused attention pays for it (transformer_costs.hpp); fused
  // kernels add the bias inside the kernel.
  bool alibi = false;
  // QK-Norm (Qwen3, OLMo 2): an RMSNorm over each query and each key head, head_dim wide, before
  // RoPE and the attention kernel.
  bool qk_norm = false;
  // Mixture of experts (models/spec/moe.hpp); experts = 0: a dense model, the fields below unread.
  std::int64_t experts = 0;            // routed experts of a MoE layer
  std::int64_t experts_per_token = 0;  // top-k: routed experts each token runs
  std::int64_t shared_experts = 0;     // experts every token runs besides its routed ones
  std::int64_t expert_ffn_hidden = 0;  // inner dimension of one expert's MLP (mlp gives its matrices)
  bool expert_bias = false;            // each routed expert's projections add a bias (GPT-OSS)
  std::int64_t dense_layers = 0;       // leading layers that keep the dense MLP (ffn_hidden)
  std::int64_t moe_layer_freq = 1;     // after those, every n-th layer is a MoE layer

  friend bool operator==(const TransformerSpec&, const TransformerSpec&) = default;
};

}  // namespace clustersim::models
