#include "models/compute/memory.hpp"

#include <algorithm>

namespace clustersim::models {
namespace {

double kv_width_per_rank(const TransformerSpec& model, std::int64_t tp) {
  const std::int64_t kv_heads_per_rank = (model.kv_heads + tp - 1) / tp;  // replicated if g < tp
  return static_cast<double>(kv_heads_per_rank * (model.hidden / model.heads));
}

double layer_parameters_per_gpu(const TransformerSpec& model, std::int64_t tp) {
  const auto h = static_cast<double>(model.hidden);
  const auto t = static_cast<double>(tp);
  const double mlp_matrices = model.mlp == MlpKind::swiglu ? 3.0 : 2.0;
  const double attention = 2.0 * h * h / t + 2.0 * h * kv_width_per_rank(model, tp);
  return attention + mlp_matrices * h * static_cast<double>(model.ffn_hidden) / t + 2.0 * h;
}

struct StateBytes {
  double weights, gradients, optimizer;  // per parameter
};

StateBytes state_bytes_per_parameter(int zero, double d) {
  constexpr double weights = 2.0, gradients = 4.0, optimizer = 12.0;  // bf16; fp32; master + Adam
  switch (zero) {
    case 0: return {weights, gradients, optimizer};
    case 1: return {weights, gradients, optimizer / d};
    case 2: return {weights, gradients / d, optimizer / d};
    default: return {weights / d, gradients / d, optimizer / d};
  }
}

}  // namespace

double parameters_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism,
                          std::int64_t stage_layers, bool is_first_stage, bool is_last_stage) {
  const double vocab_matrix =
      static_cast<double>(model.vocab) * static_cast<double>(model.hidden) / static_cast<double>(parallelism.tp);
  int vocab_matrices = (is_first_stage ? 1 : 0) + (is_last_stage ? 1 : 0);
  if (model.tied_embeddings && is_first_stage && is_last_stage) vocab_matrices = 1;
  return static_cast<double>(stage_layers) * layer_parameters_per_gpu(model, parallelism.tp) +
         vocab_matrices * vocab_matrix + (is_last_stage ? static_cast<double>(model.hidden) : 0.0);
}

double activation_bytes_per_layer(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                  const TrainingSpec& training) {
  const auto t = static_cast<double>(parallelism.tp);
  const auto h = static_cast<double>(model.hidden);
  const auto s = static_cast<double>(training.seq_len);
  const double tokens = static_cast<double>(training.micro_batch) * s / static_cast<double>(parallelism.cp);
  const double sbh = tokens * h;
  const double sp_split = parallelism.sp ? t : 1.0;

  if (training.recompute == Recompute::full) return 2.0 * sbh / sp_split;  // the layer input only

  // Replicated across TP unless sequence parallel (bytes per token and hidden unit): two norm
  // inputs 4, QKV input 2, attention dropout mask 1, MLP input 2, MLP dropout mask 1.
  const double replicated = 10.0 * sbh / sp_split;
  // Split by TP: Q 2, attention output (projection input) 2, MLP activation input (2 f, or 4 f for
  // the gate and up halves of SwiGLU) and activation output 2 f; K and V per rank.
  const double f_over_h = static_cast<double>(model.ffn_hidden) / h;
  const double mlp = (model.mlp == MlpKind::swiglu ? 6.0 : 4.0) * f_over_h;
  const double split = (2.0 + 2.0 + mlp) * sbh / t + 4.0 * tokens * kv_width_per_rank(model, parallelism.tp);

  double scores = 0.0;
  if (training.attention == AttentionKernel::unfused && training.recompute == Recompute::none) {
    // Softmax output 2, its dropout mask 1 and dropout output 2 bytes per score; the rank's
    // queries score against all s keys.
    const double heads = static_cast<double>(model.heads) / t;
    scores = 5.0 * heads * tokens * s;
  }
  return replicated + split + scores;
}

double micro_batches_in_flight(Schedule schedule, std::int64_t pp, std::int64_t vp, std::int64_t m,
                               std::int64_t stage) {
  if (schedule == Schedule::gpipe) return static_cast<double>(m);
  if (schedule == Schedule::interleaved && vp > 1) {
    const std::int64_t chunks = std::min(2 * (pp - stage - 1) + (vp - 1) * pp + 1, m * vp);
    return static_cast<double>(chunks) / static_cast<double>(vp);
  }
  return static_cast<double>(std::min(pp - stage, m));
}

MemoryBreakdown memory_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism,
                               const TrainingSpec& training, std::int64_t stage_layers,
                               bool is_first_stage, bool is_last_stage,
                               double micro_batches_in_flight) {
  MemoryBreakdown mem;
  mem.parameters = parameters_per_gpu(model, parallelism, stage_layers, is_first_stage, is_last_stage);
  // Sharded over all dp x cp ranks, or with hybrid sharding over one shard group.
  const std::int64_t shard_ranks = parallelism.zero >= 3 && parallelism.shard_group > 0
                                       ? parallelism.shard_group
                                       : parallelism.dp * parallelism.cp;
  const StateBytes per_param = state_bytes_per_parameter(parallelism.zero, static_cast<double>(shard_ranks));
  mem.weights_bytes = mem.parameters * per_param.weights;
  mem.gradients_bytes = mem.parameters * per_param.gradients;
  mem.optimizer_bytes = mem.parameters * per_param.optimizer;

  mem.activations_bytes = static_cast<double>(stage_layers) * micro_batches_in_flight *
                          activation_bytes_per_layer(model, parallelism, training);

  const auto t = static_cast<double>(parallelism.tp);
  const double sp_split = parallelism.sp ? t : 1.0;
  const double tokens = static_cast<double>(training.micro_batch) * static_cast<double>(training.seq_len) /
                        static_cast<double>(parallelism.cp);
  const double sbh = tokens * static_cast<double>(model.hidden);
  double per_micro_batch = 0.0;
  if (is_first_stage) per_micro_batch += sbh / sp_split;  // embedding dropout mask, 1 byte
  if (is_last_stage) {
    // Final norm input and logits-projection input (2 bytes each), fp32 logits for the loss.
    per_micro_batch += 4.0 * sbh / sp_split + 4.0 * tokens * static_cast<double>(model.vocab) / t;
  }
  mem.other_bytes = per_micro_batch * micro_batches_in_flight;
  if (training.recompute == Recompute::full && stage_layers > 0) {
    // The layer being recomputed holds its full activations during its backward, scores
    // included with unfused attention.
    TrainingSpec stored = training;
    stored.recompute = Recompute::none;
    mem.other_bytes += activation_bytes_per_layer(model, parallelism, stored);
  }
  if (parallelism.zero >= 3) {
    // Gathered bf16 parameters of the layer at work and the one prefetched.
    mem.other_bytes += 2.0 * 2.0 * layer_parameters_per_gpu(model, parallelism.tp);
  }

  mem.total_bytes = mem.weights_bytes + mem.gradients_bytes + mem.optimizer_bytes +
                    mem.activations_bytes + mem.other_bytes;
  return mem;
}

bool fits_in_memory(double total_bytes, const GpuSpec& gpu, double reserve_bytes) {
  return total_bytes + reserve_bytes <= gpu.hbm_bytes;
}

}  // namespace clustersim::models
