#pragma once
// Well-known models and GPUs for the models/ tests, written out here so that the tests do not
// depend on the scenario presets. Shapes from the published papers and model cards; GPU numbers
// from shared reference measurements.md section 4, HBM as CUDA reports it (the GPU presets).

#include <doctest/doctest.h>

#include <cstdint>

#include "models/spec/cluster_spec.hpp"
#include "models/spec/gpu_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models::test {

// Brown et al. 2020, table 2.1: 96 layers, d_model 12288, 96 heads; GPT-2 vocabulary (51200 as
// padded by Megatron-LM, as in Narayanan et al. 2021); tied input and output embeddings; dropout
// 0.1 (Megatron-LM's default, which Korthikanti et al. 2022 count).
inline TransformerSpec gpt3_175b() {
  return {.name = "gpt3-175b", .layers = 96, .hidden = 12288, .ffn_hidden = 4 * 12288, .heads = 96,
          .kv_heads = 96, .vocab = 51200, .mlp = MlpKind::gelu, .tied_embeddings = true, .dropout = 0.1};
}

// Llama 3 model cards / config.json: untied embeddings, vocabulary 128256, 8 key/value heads, no
// dropout.
inline TransformerSpec llama3_8b() {
  return {.name = "llama3-8b", .layers = 32, .hidden = 4096, .ffn_hidden = 14336, .heads = 32,
          .kv_heads = 8, .vocab = 128256, .mlp = MlpKind::swiglu, .tied_embeddings = false};
}
inline TransformerSpec llama3_70b() {
  return {.name = "llama3-70b", .layers = 80, .hidden = 8192, .ffn_hidden = 28672, .heads = 64,
          .kv_heads = 8, .vocab = 128256, .mlp = MlpKind::swiglu, .tied_embeddings = false};
}
inline TransformerSpec llama3_405b() {
  return {.name = "llama3-405b", .layers = 126, .hidden = 16384, .ffn_hidden = 53248, .heads = 128,
          .kv_heads = 8, .vocab = 128256, .mlp = MlpKind::swiglu, .tied_embeddings = false};
}

// Mixtral 8x7B (Jiang et al. 2024, arXiv:2401.04088, Table 1; Hugging Face config.json): every
// layer routes each token to 2 of 8 SwiGLU experts of width 14336; untied embeddings, no dropout.
inline TransformerSpec mixtral_8x7b() {
  return {.name = "mixtral-8x7b", .layers = 32, .hidden = 4096, .ffn_hidden = 14336, .heads = 32, .kv_heads = 8,
          .vocab = 32000, .mlp = MlpKind::swiglu, .tied_embeddings = false, .experts = 8, .experts_per_token = 2,
          .expert_ffn_hidden = 14336};
}

// DeepSeek-V3 (arXiv:2412.19437 section 4.2; Hugging Face config.json): multi-head latent
// attention, three dense layers, then 256 routed experts (top-8) and one shared expert of 2048.
inline TransformerSpec deepseek_v3() {
  return {.name = "deepseek-v3", .layers = 61, .hidden = 7168, .ffn_hidden = 18432, .heads = 128, .kv_heads = 128,
          .attention = AttentionKind::mla, .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_rope_head_dim = 64,
          .qk_nope_head_dim = 128, .v_head_dim = 128, .vocab = 129280, .mlp = MlpKind::swiglu,
          .tied_embeddings = false, .experts = 256, .experts_per_token = 8, .shared_experts = 1,
          .expert_ffn_hidden = 2048, .dense_layers = 3};
}

// Qwen3-30B-A3B (Hugging Face config.json): heads of 128, wider than hidden / heads = 64.
inline TransformerSpec qwen3_30b_a3b() {
  return {.name = "qwen3-30b-a3b", .layers = 48, .hidden = 2048, .ffn_hidden = 6144, .heads = 32, .kv_heads = 4,
          .head_dim = 128, .vocab = 151936, .mlp = MlpKind::swiglu, .tied_embeddings = false, .experts = 128,
          .experts_per_token = 8, .expert_ffn_hidden = 768};
}

inline GpuSpec a100() {
  return {.name = "a100-80gb", .bf16_flops_per_s = 312e12, .fp8_flops_per_s = 0.0, .hbm_bytes = 85.2e9,
          .hbm_bytes_per_s = 2.039e12, .nvlink_bytes_per_s = 300e9, .power_w = 400.0};
}
inline GpuSpec h100() {
  return {.name = "h100-sxm", .bf16_flops_per_s = 989e12, .fp8_flops_per_s = 1979e12, .hbm_bytes = 85.0e9,
          .hbm_bytes_per_s = 3.35e12, .nvlink_bytes_per_s = 450e9, .power_w = 700.0};
}

inline GpuSpec gb200() {
  return {.name = "gb200", .bf16_flops_per_s = 2450e12, .fp8_flops_per_s = 4900e12, .fp4_flops_per_s = 10000e12,
          .hbm_bytes = 186e9, .hbm_bytes_per_s = 8.0e12, .nvlink_bytes_per_s = 900e9, .power_w = 0.0};
}

/// GB200 NVL72: compute trays of 4 GPUs with four 400 Gb/s NICs, `domain` GPUs on one NVLink fabric.
inline ClusterSpec gb200_cluster(std::int64_t gpus, std::int64_t domain = 72) {
  return {.gpu = gb200(), .num_gpus = gpus, .gpus_per_node = 4, .nvlink_domain_gpus = domain,
          .nic_bytes_per_s = 50e9, .nics_per_node = 4};
}

/// Nodes of 8 H100 with eight 400 Gb/s NICs each.
inline ClusterSpec h100_cluster(std::int64_t gpus) {
  return {.gpu = h100(), .num_gpus = gpus, .gpus_per_node = 8, .nic_bytes_per_s = 50e9, .nics_per_node = 8};
}

/// doctest's Approx allows epsilon x (1 + |value|): for seconds that is an absolute tolerance of
/// epsilon seconds. scale(0) makes the tolerance relative, as the flow tests mean it.
inline doctest::Approx relative(double value) { return doctest::Approx(value).scale(0.0); }

}  // namespace clustersim::models::test
