#pragma once
/// The FLOP and utilisation metrics of DESIGN.md "Metrics", defined once, and parameter counts.
/// Model FLOPs per step (Megatron-LM convention generalised to grouped-query attention and gated
/// MLPs): per layer and token, 2 x (matmul parameters) + 4 x seq_len x hidden for attention scores
/// and values (full, not causal; 2 x seq_len x heads x (query-key + value head widths) when the
/// heads are not hidden wide in all, attention_shape.hpp); plus 2 x hidden x vocab per token for the logits; x3 for forward
/// and backward; recomputation not counted. Hardware FLOPs add the recomputed forward work.
/// Units: FLOPs (2 per multiply-add), FLOP/s, seconds; MFU is a fraction in [0, 1].
/// Mixture of experts (moe.hpp): model FLOPs count the parameters a token is multiplied by (its
/// top-k routed experts, the shared ones and the router), the convention of the published MoE
/// benchmarks (DeepSeek-V3 section 4.1's 37B activated of 671B; Megatron-Core's
/// num_floating_point_operations); the parameter count holds every expert.
/// Limitations: decoder-only models; biases, norms, position embeddings and elementwise work
/// are not FLOPs here and are left out of parameter counts (under 0.02% for GPT-3 and Llama 3).
/// Source: Narayanan et al. 2021, eq. 3; Korthikanti et al. 2022 (model vs hardware FLOPs);
/// shared reference training-math.md.

#include <cstdint>

#include "models/spec/gpu_spec.hpp"
#include "models/spec/attention_shape.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// Matmul weights of one dense layer: the attention and the MLP matrices of ffn_hidden.
std::int64_t layer_matmul_parameters(const TransformerSpec& model);
/// Matmul weights of one MoE layer: the attention, the router and every expert.
std::int64_t moe_layer_matmul_parameters(const TransformerSpec& model);
/// Matmul weights plus the two norm gains (h each) of one dense layer.
std::int64_t layer_parameters(const TransformerSpec& model);
/// Vocabulary matrices: V x h, once if tied, twice if not.
std::int64_t embedding_parameters(const TransformerSpec& model);
/// All layers, the final norm and, when asked, the embedding and logits matrices.
std::int64_t parameter_count(const TransformerSpec& model, bool include_embeddings = true);
/// The same, with each MoE layer's routed experts cut to the top-k a token runs.
std::int64_t active_parameter_count(const TransformerSpec& model, bool include_embeddings = true);

double model_flops_per_token(const TransformerSpec& model, std::int64_t seq_len);
double model_flops_per_step(const TransformerSpec& model, const TrainingSpec& training);
/// Model FLOPs plus the recomputed forward: full recompute redoes every layer's forward (not the
/// logits); selective recompute redoes the attention scores and values forward.
double hardware_flops_per_step(const TransformerSpec& model, const TrainingSpec& training);

/// The dense tensor-core peak of `gpu` at `precision` (models::tensor_peak_flops_per_s), an error
/// where the GPU has none.
double peak_flops_per_s(const GpuSpec& gpu, Precision precision);
/// Model FLOPs per step / (step time x GPUs x peak per GPU).
double mfu(double model_flops, double step_time_s, std::int64_t gpus, double peak_flops_per_s);

}  // namespace clustersim::models
