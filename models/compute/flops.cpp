#include "models/compute/flops.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/spec/moe.hpp"

namespace clustersim::models {

std::int64_t layer_matmul_parameters(const TransformerSpec& model) {
  return attention_matmul_parameters(model) + mlp_matrices(model) * model.hidden * model.ffn_hidden;
}

std::int64_t moe_layer_matmul_parameters(const TransformerSpec& model) {
  return attention_matmul_parameters(model) + moe_mlp_parameters(model);
}

std::int64_t layer_parameters(const TransformerSpec& model) {
  return layer_matmul_parameters(model) + 2 * model.hidden;
}

std::int64_t embedding_parameters(const TransformerSpec& model) {
  return (model.tied_embeddings ? 1 : 2) * model.vocab * model.hidden;
}

std::int64_t parameter_count(const TransformerSpec& model, bool include_embeddings) {
  const std::int64_t moe = moe_layer_count(model);
  const std::int64_t body = (model.layers - moe) * layer_parameters(model) +
                            moe * (moe_layer_matmul_parameters(model) + 2 * model.hidden) + model.hidden;
  return include_embeddings ? body + embedding_parameters(model) : body;
}

std::int64_t active_parameter_count(const TransformerSpec& model, bool include_embeddings) {
  const std::int64_t moe = moe_layer_count(model);
  const std::int64_t inactive = (model.experts - model.experts_per_token) * expert_parameters(model);
  return parameter_count(model, include_embeddings) - moe * inactive;
}

namespace {

/// Matmul weights all layers apply to one token: the dense layers' and the MoE layers' active.
double active_layer_matmul_parameters(const TransformerSpec& model) {
  const auto moe = static_cast<double>(moe_layer_count(model));
  const double moe_active = static_cast<double>(attention_matmul_parameters(model) + moe_mlp_active_parameters(model));
  return (static_cast<double>(model.layers) - moe) * static_cast<double>(layer_matmul_parameters(model)) +
         moe * moe_active;
}

}  // namespace

/// Attention scores and values of one layer's forward per token, full (not causal): 2 x seq_len x
/// the query-key width plus 2 x seq_len x the value width, over all heads (4 s h for MHA).
/// A windowed layer scores each query against its window alone: min(seq_len, window) keys
/// (averaged over the layers, windowed_layer_fraction).
double attention_score_flops(const TransformerSpec& model, std::int64_t seq_len) {
  const double per_key = 2.0 * static_cast<double>(model.heads) * static_cast<double>(qk_head_dim(model) + value_head_dim(model));
  const double f = windowed_layer_fraction(model);
  if (f == 0.0) return static_cast<double>(seq_len) * per_key;
  const auto window_keys = static_cast<double>(std::min(seq_len, model.sliding_window));
  return per_key * ((1.0 - f) * static_cast<double>(seq_len) + f * window_keys);
}

double model_flops_per_token(const TransformerSpec& model, std::int64_t seq_len) {
  const auto h = static_cast<double>(model.hidden);
  const double attention_scores = attention_score_flops(model, seq_len);
  const double logits = 2.0 * h * static_cast<double>(model.vocab);
  return 3.0 * (2.0 * active_layer_matmul_parameters(model) + static_cast<double>(model.layers) * attention_scores +
                logits);
}

double model_flops_per_step(const TransformerSpec& model, const TrainingSpec& training) {
  const double tokens = static_cast<double>(training.global_batch) * static_cast<double>(training.seq_len);
  return tokens * model_flops_per_token(model, training.seq_len);
}

double hardware_flops_per_step(const TransformerSpec& model, const TrainingSpec& training) {
  const double tokens = static_cast<double>(training.global_batch) * static_cast<double>(training.seq_len);
  const auto h = static_cast<double>(model.hidden);
  const auto layers = static_cast<double>(model.layers);
  const double attention_forward = attention_score_flops(model, training.seq_len);
  double recomputed_per_token = 0.0;
  switch (training.recompute) {
    case Recompute::none:
      break;
    case Recompute::selective:
      recomputed_per_token = layers * attention_forward;
      break;
    case Recompute::full:
      recomputed_per_token = 2.0 * active_layer_matmul_parameters(model) + layers * attention_forward;
      break;
    case Recompute::op: {  // the k, output and (gated MLP) up projections: transformer_costs.hpp
      const double kv = static_cast<double>(model.kv_heads * head_dim_of(model));
      const double f = static_cast<double>(model.ffn_hidden);
      const double q = static_cast<double>(model.heads * head_dim_of(model));
      recomputed_per_token = layers * 2.0 * (h * kv + q * h + (model.mlp == MlpKind::swiglu ? h * f : f * h));
      break;
    }
  }
  return model_flops_per_step(model, training) + tokens * recomputed_per_token;
}

double peak_flops_per_s(const GpuSpec& gpu, Precision precision) {
  const double peak = tensor_peak_flops_per_s(gpu, precision);
  if (peak <= 0.0) {
    throw std::invalid_argument(fmt::format("GPU {} has no {} tensor peak", gpu.name, precision_name(precision)));
  }
  return peak;
}

double mfu(double model_flops, double step_time_s, std::int64_t gpus, double peak_flops_per_s) {
  return model_flops / (step_time_s * static_cast<double>(gpus) * peak_flops_per_s);
}

}  // namespace clustersim::models
