#include "models/compute/memory.hpp"

#include <algorithm>

#include "models/compute/layer_tensors.hpp"
#include "models/compute/runtime_memory.hpp"
#include "models/spec/attention_shape.hpp"
#include "models/spec/framework.hpp"
#include "models/spec/moe.hpp"
#include "models/spec/sharding.hpp"

namespace clustersim::models {
namespace {

// Bytes a linear layer keeps of each input element for its weight-gradient GEMM: the cast copy
// (1 B in fp8, 0.5625 B in nvfp4) where the weight gradients run low-precision (fp8_backward) in
// a framework whose low-precision layers keep it, else the 2-byte bf16 tensor.
double kept_gemm_input_bytes(const TrainingSpec& training) {
  const bool cast_copy = low_precision_gemms(training.precision) && training.fp8_backward &&
                         framework_parameters(training.framework).fp8_keeps_quantized_inputs.value;
  return cast_copy ? gemm_input_bytes(training.precision) : 2.0;
}

// Tokens of one micro-batch on one context-parallel rank.
double tokens_per_rank(const ParallelismSpec& parallelism, const TrainingSpec& training) {
  return static_cast<double>(training.micro_batch) * static_cast<double>(training.seq_len) /
         static_cast<double>(parallelism.cp);
}

// The attention's projections on one TP rank: Q and O split tp ways, K and V ceil(kv_heads / tp)
// heads each; with multi-head latent attention the down projections whole, the rest split.
double attention_parameters_per_gpu(const TransformerSpec& model, std::int64_t tp) {
  const auto t = static_cast<double>(tp);
  if (is_mla(model)) {
    const auto replicated = static_cast<double>(attention_replicated_parameters(model));
    return replicated + (static_cast<double>(attention_matmul_parameters(model)) - replicated) / t;
  }
  const auto h = static_cast<double>(model.hidden);
  const auto q = static_cast<double>(model.heads * head_dim_of(model));
  return 2.0 * h * q / t + 2.0 * h * kv_width_per_rank(model, tp);
}

double layer_parameters_per_gpu(const TransformerSpec& model, std::int64_t tp) {
  const auto h = static_cast<double>(model.hidden);
  const auto t = static_cast<double>(tp);
  const double mlp_matrices = model.mlp == MlpKind::swiglu ? 3.0 : 2.0;
  const double attention = attention_parameters_per_gpu(model, tp);
  return attention + mlp_matrices * h * static_cast<double>(model.ffn_hidden) / t + 2.0 * h;
}

// The largest parameter tensor of a layer on one TP rank: an MLP matrix, or the fused QKV.
double largest_tensor_per_gpu(const TransformerSpec& model, std::int64_t tp) {
  const auto h = static_cast<double>(model.hidden);
  const double mlp = h * static_cast<double>(model.ffn_hidden) / static_cast<double>(tp);
  const double q = h * static_cast<double>(model.heads * head_dim_of(model)) / static_cast<double>(tp);
  const double qkv = q + 2.0 * h * kv_width_per_rank(model, tp);
  return std::max(mlp, model.mlp == MlpKind::gelu ? qkv : q);
}

struct StateBytes {
  double weights, gradients, optimizer;  // per parameter
};

StateBytes state_bytes_per_parameter(const ParallelismSpec& p, const TrainingSpec& t, const ShardingParameters& s,
                                     double d, bool routed_experts) {
  constexpr double weights = 2.0;  // bf16
  // Adam's m and v in the dtype of what it steps: fp32 beside an fp32 master, or bf16 with the
  // bf16 parameters themselves (training.bf16_params, no master).
  const double adam_moments = t.bf16_params ? 4.0 : 8.0;
  const double optimizer = t.bf16_params ? adam_moments : 4.0 + adam_moments;
  const double gradients = grad_dtype_bytes(t.grad_dtype);
  switch (p.zero) {
    case 0: return {weights, gradients, optimizer};
    case 1: return {weights, gradients, optimizer / d};
    case 2: return {weights, gradients / d, optimizer / d};
    default: {
      // A shard the optimizer steps itself (FSDP's fp32 one, or bf16 parameters) is the weights;
      // the optimizer adds its moments only. The shard's gradient has the reduce dtype, cast back to
      // the parameters' bf16 where they are bf16 (FSDP2's foreach_reduce casts the reduced shard to
      // the original dtype).
      const double reduced = routed_experts ? s.expert_reduce_bytes_per_param : s.reduce_bytes_per_param;
      return {s.shard_bytes_per_param / d, (t.bf16_params ? 2.0 : reduced) / d,
              (s.optimizer_steps_shard ? adam_moments : optimizer) / d};
    }
  }
}

// The embedding's and the output layer's parameters on a stage's rank (16-bit under any gather).
double end_parameters_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism, bool is_first_stage,
                              bool is_last_stage) {
  const double vocab_matrix =
      static_cast<double>(model.vocab) * static_cast<double>(model.hidden) / static_cast<double>(parallelism.tp);
  int vocab_matrices = (is_first_stage ? 1 : 0) + (is_last_stage ? 1 : 0);
  if (model.tied_embeddings && is_first_stage && is_last_stage) vocab_matrices = 1;
  return vocab_matrices * vocab_matrix;
}

// ZeRO-3: the gathered parameters of the unit at work and of those prefetched, and the unit's
// unsharded gradient before its reduce-scatter. A unit is a transformer block (FSDP,
// Megatron-FSDP) or one parameter tensor (DeepSpeed ZeRO-3 of 2021, which prefetches a tensor only
// while fewer than its live limit of parameters are gathered).
double zero3_buffer_bytes(const TransformerSpec& model, const ParallelismSpec& p, const TrainingSpec& t,
                          const ShardingParameters& s) {
  const double gather_bytes = gathered_layer_bytes(t, s.gather_bytes_per_param);
  double unit = layer_parameters_per_gpu(model, p.tp);
  double gathered_units = 1.0 + s.prefetch_depth;
  if (s.unit == ShardingUnit::parameter_tensor) {
    unit = largest_tensor_per_gpu(model, p.tp);
    const bool prefetched = s.max_live_params <= 0.0 || unit < s.max_live_params;
    gathered_units = 1.0 + (prefetched ? s.prefetch_depth : 0);
  }
  return unit * (gathered_units * gather_bytes + s.reduce_bytes_per_param);
}

}  // namespace

double moe_layer_dense_parameters_per_gpu(const TransformerSpec& model, std::int64_t tp) {
  const auto h = static_cast<double>(model.hidden);
  const auto t = static_cast<double>(tp);
  const double attention = attention_parameters_per_gpu(model, tp);
  return attention + static_cast<double>(model.shared_experts * expert_parameters(model)) / t + 2.0 * h +
         h * static_cast<double>(model.experts);
}

double moe_layer_expert_parameters_per_gpu(const TransformerSpec& model, std::int64_t ep, std::int64_t etp) {
  return static_cast<double>(model.experts / ep * expert_parameters(model)) / static_cast<double>(etp);
}


double parameters_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism,
                          std::int64_t stage_layers, bool is_first_stage, bool is_last_stage, std::int64_t moe_layers) {
  const auto moe = static_cast<double>(moe_layers);
  return (static_cast<double>(stage_layers) - moe) * layer_parameters_per_gpu(model, parallelism.tp) +
         moe * (moe_layer_dense_parameters_per_gpu(model, parallelism.tp) +
                moe_layer_expert_parameters_per_gpu(model, parallelism.ep, parallelism.etp)) +
         end_parameters_per_gpu(model, parallelism, is_first_stage, is_last_stage) +
         (is_last_stage ? static_cast<double>(model.hidden) : 0.0);
}

double activation_bytes_per_layer(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                  const TrainingSpec& training) {
  const auto t = static_cast<double>(parallelism.tp);
  const auto h = static_cast<double>(model.hidden);
  const auto s = static_cast<double>(training.seq_len);
  const double tokens = tokens_per_rank(parallelism, training);
  const double sbh = tokens * h;
  const double sp_split = parallelism.sp ? t : 1.0;

  if (training.recompute == Recompute::full) return 2.0 * sbh / sp_split;  // the layer input only
  if (training.recompute == Recompute::op) {
    // torchtitan's op-level policy keeps the layer input (the checkpoint's), the attention output
    // and the outputs of every other matmul of q, k, v, o, up (gate), [up,] down: q, v, the first
    // MLP projection and, in a gated MLP, the down projection (2 bytes each); the down projection's
    // output is the full, unreduced sum on every TP rank, and with sequence parallelism its
    // reduce-scatter (kept too) the rank's share.
    const double f = static_cast<double>(model.ffn_hidden);
    const bool gated = model.mlp == MlpKind::swiglu;
    double kept = 2.0 * sbh / sp_split + 2.0 * (sbh + sbh) / t + 2.0 * tokens * kv_width_per_rank(model, parallelism.tp) +
                  2.0 * tokens * f / t;
    if (gated) kept += 2.0 * sbh + (parallelism.sp && t > 1.0 ? 2.0 * sbh / t : 0.0);
    return kept;
  }

  // A linear layer's input kept for its weight-gradient GEMM: 2 bytes, or 1 where the framework's
  // fp8 layers keep the cast copy.
  const double gemm_input = kept_gemm_input_bytes(training);
  // Replicated across TP unless sequence parallel (bytes per token and hidden unit): two norm
  // inputs 4, QKV input and MLP input (the norms' outputs; 2 each, 1 in fp8); with dropout, the
  // masks after attention and after the MLP (1 each). Under sequence parallelism the QKV and MLP
  // inputs are kept as the rank's shard, or gathered whole where the framework's TP layers keep
  // the all-gathered input (FrameworkParameters::tp_keeps_gathered_inputs).
  const bool dropout = model.dropout > 0.0;
  const double gathered_split =
      framework_parameters(training.framework).tp_keeps_gathered_inputs.value ? 1.0 : sp_split;
  const double replicated =
      (4.0 + (dropout ? 2.0 : 0.0)) * sbh / sp_split + 2.0 * gemm_input * sbh / gathered_split;
  // Split by TP: Q 2, the attention output (the projection's input; a flash-style kernel's backward
  // reads it too, in bf16, beside the projection's fp8 copy), MLP activation input (2 f, or 4 f for
  // the gate and up halves of SwiGLU) and activation output (the second projection's input, 2 f or
  // 1 f in fp8); K and V per rank. Multi-head latent attention keeps its latents too (whole on
  // every rank, 2 bytes each); QK-Norm its norms' inputs, the projected query and key (2 each).
  const double f_over_h = static_cast<double>(model.ffn_hidden) / h;
  const double mlp = ((model.mlp == MlpKind::swiglu ? 4.0 : 2.0) + gemm_input) * f_over_h;
  const double q_over_h = static_cast<double>(model.heads * qk_head_dim(model)) / h;
  const double o_over_h = static_cast<double>(model.heads * value_head_dim(model)) / h;
  const bool kernel_reads_output = training.attention != AttentionKernel::unfused;
  const double fp8_copy = gemm_input < 2.0 ? gemm_input : 0.0;
  const double attention_output = kernel_reads_output ? 2.0 + fp8_copy : gemm_input;
  const double kv = kv_width_per_rank(model, parallelism.tp);
  const double v = kv / static_cast<double>(qk_head_dim(model)) * static_cast<double>(value_head_dim(model));
  // The attention keeps the keys and values it was handed: copied to the query heads under
  // training.repeat_kv.
  const bool repeated = copies_kv_groups(model, training.repeat_kv);
  const double kept_k = repeated ? q_over_h * h / t : kv;
  const double kept_v = repeated ? o_over_h * h / t : v;
  const double latents =
      is_mla(model) ? 2.0 * tokens * static_cast<double>(model.q_lora_rank + model.kv_lora_rank + model.qk_rope_head_dim)
                    : 0.0;
  const double qk_norm_inputs = model.qk_norm ? 2.0 * q_over_h * sbh / t + 2.0 * tokens * kv : 0.0;
  // FP8 attention keeps the fp8 Q, K and V it cast for its backward, 1 byte each (Transformer
  // Engine's FP8 DotProductAttention saves its quantised inputs; the bf16 ones are not kept).
  const double qkv_bytes = training.fp8_attention ? 1.0 : 2.0;
  const double split = (qkv_bytes * q_over_h + attention_output * o_over_h + mlp) * sbh / t +
                       qkv_bytes * tokens * (kept_k + kept_v) + latents + qk_norm_inputs;

  double scores = 0.0;
  if (training.attention == AttentionKernel::unfused && training.recompute == Recompute::none) {
    // Softmax output 2 bytes per score; with dropout also its mask 1 and output 2. The rank's
    // queries score against all s keys.
    const double heads = static_cast<double>(model.heads) / t;
    scores = (dropout ? 5.0 : 2.0) * heads * tokens * s;
  }
  return replicated + split + scores;
}

double moe_activation_bytes_per_layer(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                      const TrainingSpec& training) {
  const auto t = static_cast<double>(parallelism.tp);
  const auto h = static_cast<double>(model.hidden);
  const double tokens = tokens_per_rank(parallelism, training);
  const double rank_tokens = parallelism.sp ? tokens / t : tokens;
  if (training.recompute == Recompute::full) return 2.0 * rank_tokens * h;  // the layer input only
  // The attention half as a dense layer stores it (a layer with no MLP), and the shared experts'
  // MLP as a dense one of their width.
  TransformerSpec attention_and_shared = model;
  attention_and_shared.ffn_hidden = model.shared_experts * model.expert_ffn_hidden;
  const double dense = activation_bytes_per_layer(attention_and_shared, parallelism, training);
  // Per routed copy on the busiest rank: the permuted input (the up projection's input: 2 h, 1 h
  // where fp8 layers keep the cast copy), the up projection's output (2 f, or 4 f for SwiGLU's gate
  // and up halves) and the activation output (the down projection's input: 2 f or 1 f), the expert
  // output 2 h before the weighted combine; per token its router probabilities and top-k indices
  // (fp32, experts wide).
  const double gemm_input = kept_gemm_input_bytes(training);
  const double rows = rank_tokens * static_cast<double>(model.experts_per_token) * training.moe_load_imbalance;
  const double f = static_cast<double>(model.expert_ffn_hidden);
  const double up_output = model.mlp == MlpKind::swiglu ? 4.0 : 2.0;
  const double routed = rows * (gemm_input * h + (up_output + gemm_input) * f + 2.0 * h);
  return dense + routed + rank_tokens * 4.0 * static_cast<double>(model.experts);
}

double micro_batches_in_flight(Schedule schedule, std::int64_t pp, std::int64_t vp, std::int64_t m,
                               std::int64_t stage, std::int64_t group) {
  if (schedule == Schedule::gpipe) return static_cast<double>(m);
  if (schedule == Schedule::interleaved && vp > 1) {
    const std::int64_t n = group > 0 ? group : pp;
    const std::int64_t chunks = std::min(2 * (pp - stage - 1) + (vp - 1) * n + 1, m * vp);
    return static_cast<double>(chunks) / static_cast<double>(vp);
  }
  return static_cast<double>(std::min(pp - stage, m));
}

double pipelining_buffer_bytes(const TransformerSpec& model, const ParallelismSpec& parallelism,
                               const TrainingSpec& training, bool is_first_stage, bool is_last_stage,
                               double micro_batches_in_flight) {
  if (parallelism.pp <= 1 || !framework_parameters(training.framework).pp_stage_buffers.value) return 0.0;
  const auto m = static_cast<double>(micro_batches_per_run(parallelism, training));
  const auto vp = static_cast<double>(parallelism.vp);
  const double in_flight = std::min(micro_batches_in_flight, m);
  const double tokens = tokens_per_rank(parallelism, training);
  const double hidden_states = 2.0 * tokens * static_cast<double>(model.hidden) /
                               (parallelism.sp ? static_cast<double>(parallelism.tp) : 1.0);
  const double receiving = vp - (is_first_stage ? 1.0 : 0.0);
  const double sending = vp - (is_last_stage ? 1.0 : 0.0);
  double bytes = (receiving * (m - in_flight) + sending * (m + in_flight)) * hidden_states;
  if (is_last_stage) {
    const double vocab_split = runs_loss_parallel(parallelism, training) ? static_cast<double>(parallelism.tp) : 1.0;
    bytes += m * 2.0 * tokens * static_cast<double>(model.vocab) / vocab_split;
  }
  return bytes;
}

MemoryBreakdown memory_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism,
                               const TrainingSpec& training, const GpuSpec& gpu, std::int64_t stage_layers,
                               bool is_first_stage, bool is_last_stage, double micro_batches_in_flight,
                               std::int64_t moe_layers) {
  MemoryBreakdown mem;
  mem.parameters = parameters_per_gpu(model, parallelism, stage_layers, is_first_stage, is_last_stage, moe_layers);
  // Sharded over all dp x cp ranks, or with hybrid sharding over one shard group.
  const std::int64_t shard_ranks = parallelism.zero >= 3 && parallelism.shard_group > 0
                                       ? parallelism.shard_group
                                       : parallelism.dp * parallelism.cp;
  const ShardingParameters sharding = sharding_as_run(model, parallelism, training);
  const StateBytes per_param =
      state_bytes_per_parameter(parallelism, training, sharding, static_cast<double>(shard_ranks), false);
  // Routed experts: their gradients and optimizer state shard over the ranks that hold the same
  // experts, tp x cp x dp / (ep x etp) of them (Megatron-Core's expert data-parallel group).
  const double experts = static_cast<double>(moe_layers) * moe_layer_expert_parameters_per_gpu(model, parallelism.ep, parallelism.etp);
  const double dense = mem.parameters - experts;
  const StateBytes per_expert_param = state_bytes_per_parameter(
      parallelism, training, sharding,
      static_cast<double>(parallelism.tp * parallelism.cp * parallelism.dp) /
          static_cast<double>(parallelism.ep * parallelism.etp),
      true);
  mem.weights_bytes = dense * per_param.weights + experts * per_expert_param.weights;
  // The end layers' 16-bit parameters, which an fp8 gather leaves 16-bit.
  const double ends = end_parameters_per_gpu(model, parallelism, is_first_stage, is_last_stage);
  if (parallelism.zero == 1 || parallelism.zero == 2) {
    // The distributed optimizer's parameter buffer holds the layers in the dtype it gathers them
    // in (Megatron-LM --fp8-param-gather: Transformer Engine's fp8 model parameters).
    mem.weights_bytes -= (mem.parameters - ends) * (per_param.weights - gathered_layer_bytes(training, per_param.weights));
  }
  mem.gradients_bytes = dense * per_param.gradients + experts * per_expert_param.gradients;
  if (training.grad_accumulation == GradAccumulation::fp32_cast_add) {
    // DeepSpeed's BF16_Optimizer keeps each parameter's 16-bit .grad after adding it into the fp32
    // buffer (update_hp_grads(clear_lp_grads=False), as its pipeline engine calls it; v0.6-0.7), and
    // frees it only before the next micro-batch's backward: both gradients are held at the peak.
    mem.gradients_bytes += mem.parameters * 2.0;  // bf16
  }
  mem.optimizer_bytes = dense * per_param.optimizer + experts * per_expert_param.optimizer;
  // FSDP2 under a pipeline, or deferring its reduction (training.fsdp_sync_once), holds the
  // stage's gathered parameters and its unsharded gradients, in the reduce dtype, from the first
  // forward to the last backward (sharding.hpp). Reducing every micro-batch under a pipeline
  // (training.fsdp_sync_every_micro_batch) keeps each forward's gather until that micro-batch's
  // backward, and under 1F1B some micro-batch is between the two on every chunk: the parameters
  // are held gathered all the same, the gradients not.
  const bool parameters_held =
      gathers_once_a_step(sharding, parallelism.zero, parallelism.pp, training.fsdp_sync_once, false);
  const bool once_a_step = gathers_once_a_step(sharding, parallelism.zero, parallelism.pp, training.fsdp_sync_once,
                                               training.fsdp_sync_every_micro_batch);
  if (parameters_held) {
    mem.weights_bytes += (mem.parameters - ends) * gathered_layer_bytes(training, sharding.gather_bytes_per_param) +
                         ends * sharding.gather_bytes_per_param;
  }
  if (once_a_step)
    mem.gradients_bytes += dense * sharding.reduce_bytes_per_param + experts * sharding.expert_reduce_bytes_per_param;

  const auto moe = static_cast<double>(moe_layers);
  mem.activations_bytes =
      (static_cast<double>(stage_layers) - moe) * micro_batches_in_flight *
      activation_bytes_per_layer(model, parallelism, training);
  if (moe_layers > 0)
    mem.activations_bytes += moe * micro_batches_in_flight * moe_activation_bytes_per_layer(model, parallelism, training);

  const auto t = static_cast<double>(parallelism.tp);
  const double sp_split = parallelism.sp ? t : 1.0;
  const double tokens = tokens_per_rank(parallelism, training);
  const double sbh = tokens * static_cast<double>(model.hidden);
  // The embedding's dropout mask (1 byte) of every micro-batch the first stage holds.
  if (is_first_stage && model.dropout > 0.0) mem.other_bytes += sbh / sp_split * micro_batches_in_flight;
  if (is_last_stage) {
    // Final norm input and logits-projection input (2 bytes each), the loss's softmax of the logits
    // (fp32, or bf16 without the loss's upcast, training.fp32_loss); an eager cross-entropy holds
    // three such copies at its peak in the backward: the saved log-probabilities, nll_loss's dense
    // gradient and log_softmax's gradient (training.cross_entropy). DTensor's loss_parallel holds
    // four: the saved log-probabilities, the zero-filled gradient it scatters the targets into, the
    // exp of the log-probabilities and their sum, before the multiply by the loss's gradient
    // (torch/distributed/tensor/parallel/loss.py, _nll_loss_and_log_softmax_backward). Only the last
    // model chunk makes them, and outside GPipe its backward follows its forward at once: one
    // micro-batch holds them at a time.
    const double last_chunk_in_flight =
        training.schedule == Schedule::gpipe ? micro_batches_in_flight : std::min(1.0, micro_batches_in_flight);
    const double loss_copies = runs_loss_parallel(parallelism, training)                 ? 4.0
                               : training.cross_entropy == CrossEntropyKernel::eager ? 3.0
                                                                                     : 1.0;
    const double loss_bytes = (training.fp32_loss ? 4.0 : 2.0) * loss_copies;
    mem.other_bytes += (4.0 * sbh / sp_split + loss_bytes * tokens * static_cast<double>(model.vocab) / t) *
                       last_chunk_in_flight;
    // Deferred output-layer weight gradients (training.defer_embedding_wgrad): each deferred
    // micro-batch's input to the output layer (its sequence shard) and its logits gradient (bf16),
    // held from its backward to the drain: at the last deferred backward all of them, beside the
    // activations the schedule's steady state holds.
    const auto deferred = static_cast<double>(deferred_wgrad_micro_batches(parallelism, training));
    mem.other_bytes += deferred * (2.0 * sbh / sp_split + 2.0 * tokens * static_cast<double>(model.vocab) / t);
  }
  mem.other_bytes +=
      pipelining_buffer_bytes(model, parallelism, training, is_first_stage, is_last_stage, micro_batches_in_flight);
  if ((training.recompute == Recompute::full || training.recompute == Recompute::op) && stage_layers > 0) {
    // The layer being recomputed holds its full activations during its backward, scores
    // included with unfused attention.
    TrainingSpec stored = training;
    stored.recompute = Recompute::none;
    mem.other_bytes += activation_bytes_per_layer(model, parallelism, stored);
  }
  if (training.recompute == Recompute::selective && stage_layers > 0) {
    // The layer whose attention core is being recomputed holds what selective recomputation does
    // not keep (unfused attention: its scores, softmax and dropout mask) during its backward.
    TrainingSpec stored = training;
    stored.recompute = Recompute::none;
    mem.other_bytes += activation_bytes_per_layer(model, parallelism, stored) -
                       activation_bytes_per_layer(model, parallelism, training);
  }
  if (parallelism.zero == 2 && parallelism.dp * parallelism.cp > 1) {
    // ZeRO-2: a layer's unsharded gradients, held until their reduce-scatter into the shard. On one
    // data-parallel rank the gradients are the shard, which nothing reduces.
    mem.other_bytes += layer_parameters_per_gpu(model, parallelism.tp) * grad_dtype_bytes(training.grad_dtype);
  }
  if (once_a_step && sharding.reduce_bytes_per_param != sharding.gather_bytes_per_param) {
    // The 16-bit gradient of the unit a backward is producing, before it is added into the buffer.
    mem.other_bytes += layer_parameters_per_gpu(model, parallelism.tp) * sharding.gather_bytes_per_param;
  } else if (parallelism.zero >= 3 && parameters_held) {
    // Reducing every micro-batch with the parameters held gathered: only the gradient of the unit a
    // backward is producing waits for its reduce-scatter, its routed experts' too.
    mem.other_bytes += layer_parameters_per_gpu(model, parallelism.tp) * sharding.reduce_bytes_per_param;
    if (moe_layers > 0)
      mem.other_bytes += moe_layer_expert_parameters_per_gpu(model, parallelism.ep, parallelism.etp) *
                         sharding.expert_reduce_bytes_per_param;
  } else if (parallelism.zero >= 3 && !once_a_step) {
    mem.other_bytes += zero3_buffer_bytes(model, parallelism, training, sharding);
    if (moe_layers > 0) {  // a MoE layer's unit gathers its routed experts too (block units only)
      const double gathered = gathered_layer_bytes(training, sharding.gather_bytes_per_param);
      mem.other_bytes += moe_layer_expert_parameters_per_gpu(model, parallelism.ep, parallelism.etp) *
                         ((1.0 + sharding.prefetch_depth) * gathered + sharding.expert_reduce_bytes_per_param);
    }
  }

  const RuntimeMemory runtime = runtime_memory(
      mem.tensor_bytes(), communicators(parallelism, model.tied_embeddings, is_first_stage, is_last_stage), gpu);
  mem.cuda_context_bytes = runtime.cuda_context_bytes;
  mem.nccl_bytes = runtime.nccl_bytes;
  mem.workspace_bytes = runtime.workspace_bytes;
  mem.fragmentation_bytes = runtime.fragmentation_bytes;
  mem.total_bytes = mem.tensor_bytes() + mem.runtime_bytes();
  return mem;
}

bool fits_in_memory(double total_bytes, const GpuSpec& gpu) { return total_bytes <= gpu.hbm_bytes; }

}  // namespace clustersim::models
