#pragma once
/// Memory one GPU holds at its peak during a training step: weights, gradients, optimizer state,
/// stored activations of the micro-batches in flight, the rest of the tensors (embedding and
/// logits activations, recompute and parameter-gather buffers), and the runtime's own memory
/// (runtime_memory.hpp: CUDA context, NCCL buffers, cuBLAS workspaces, allocator fragmentation).
/// Units: bytes. Mixed-precision Adam: bf16 weights 2, gradient buffer 4 (fp32) or 2 (bf16,
/// training.grad_dtype), fp32 master 4 and moments 4 + 4 bytes per parameter; ZeRO-1 shards the
/// last 12, ZeRO-2 the gradients too, ZeRO-3 everything, over the dp x cp ranks that hold the same
/// parameters (Megatron-LM shards the distributed optimizer over the data-parallel group with
/// context parallel); ZeRO-3 gradients take the sharding framework's reduce dtype.
/// Activations: Korthikanti et al. 2022, section 4, generalised to grouped-query attention and
/// gated MLPs. Dropout masks (1 byte per element: after attention and after the MLP, and after
/// the embedding on the first stage) are stored only for a model with dropout (model.dropout > 0).
/// With flash attention (training.attention, the default) the 5as/h attention-score term is not
/// stored: the kernel keeps only Q, K, V, O and a per-row log-sum-exp (left out: 4 bytes per query
/// and head) and regenerates its dropout mask from the RNG state, so selective recompute stores
/// what no recompute does. With unfused attention and no recompute each layer stores the softmax
/// output (2 bytes per score) and, with dropout, its mask and output (1 + 2); selective recompute
/// drops them, as in Korthikanti's table.
/// Limitations: activations stay bf16 at fp8; no fp8 weight copies; dense models only.
/// Source: shared reference training-math.md ("Memory per GPU"); Korthikanti et al. 2022, table 2.

#include <cstdint>

#include "models/spec/gpu_spec.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

struct MemoryBreakdown {
  double parameters = 0.0;  // count held by this GPU, before ZeRO sharding
  double weights_bytes = 0.0;
  double gradients_bytes = 0.0;
  double optimizer_bytes = 0.0;
  double activations_bytes = 0.0;  // stored by the transformer layers for their backward
  double other_bytes = 0.0;
  // Not the model's tensors (runtime_memory.hpp).
  double cuda_context_bytes = 0.0;
  double nccl_bytes = 0.0;
  double workspace_bytes = 0.0;
  double fragmentation_bytes = 0.0;
  double total_bytes = 0.0;  // all of the above

  double tensor_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + other_bytes;
  }
  double runtime_bytes() const { return cuda_context_bytes + nccl_bytes + workspace_bytes + fragmentation_bytes; }
  // What PyTorch's caching allocator reserves at the peak (torch.cuda.memory_stats
  // "reserved_bytes.all.peak", torchtitan's logged memory): the tensors, the cuBLAS workspaces and
  // the fragmentation; the CUDA context and NCCL's buffers are allocated outside it.
  double allocator_reserved_bytes() const { return total_bytes - cuda_context_bytes - nccl_bytes; }
};

/// Parameters one GPU of a stage holds: its layers' matrices / tp (norm gains replicated), plus the
/// embedding on the first stage and the logits matrix and final norm on the last (one matrix when
/// tied and both are the same stage; tied across stages, each keeps a copy as Megatron-LM does).
/// A MoE layer's parameters on one GPU besides its routed experts: attention, norms and shared
/// experts split tp ways (K and V heads, and MLA's down projections, as the attention holds them),
/// and the router whole.
double moe_layer_dense_parameters_per_gpu(const TransformerSpec& model, std::int64_t tp);

/// The routed experts of a MoE layer on one GPU: experts / ep of them, each split etp ways
/// (expert tensor parallelism).
double moe_layer_expert_parameters_per_gpu(const TransformerSpec& model, std::int64_t ep, std::int64_t etp);

/// Of the stage's layers, `moe_layers` are mixture-of-experts layers (moe.hpp): their attention,
/// norms and shared experts split tp ways, the router whole, experts / ep routed experts.
double parameters_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism,
                          std::int64_t stage_layers, bool is_first_stage, bool is_last_stage,
                          std::int64_t moe_layers = 0);

/// Bytes one MoE layer stores for one micro-batch on one GPU: its attention (and shared experts)
/// as a dense layer stores them, and the routed copies of the busiest rank through its experts.
double moe_activation_bytes_per_layer(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                      const TrainingSpec& training);

/// Bytes one transformer layer stores for one micro-batch on one GPU, for training.recompute,
/// training.attention and model.dropout.
double activation_bytes_per_layer(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                  const TrainingSpec& training);

/// Micro-batches whose activations a stage holds at its peak, in units of the whole stage's layers.
/// GPipe: m. 1F1B: min(pp - stage, m). Interleaved with vp chunks (Megatron-LM schedules.py): the
/// stage runs 2 (pp - stage - 1) + (vp - 1) N warm-up chunk forwards plus one in the steady state,
/// at most m vp, each holding 1/vp of the stage's layers, where N is the micro-batch group
/// (`group`, pp when 0); with N = pp the first stage thus holds pp (1 + (pp - 1)/(pp vp))
/// micro-batches, as Korthikanti et al. 2022 state. vp = 1 is 1F1B.
double micro_batches_in_flight(Schedule schedule, std::int64_t pp, std::int64_t vp, std::int64_t m,
                               std::int64_t stage, std::int64_t group = 0);

/// The buffers torch.distributed.pipelining keeps on one GPU of a stage beyond the activations
/// (FrameworkParameters::pp_stage_buffers; 0 for other pipelines or without one). Each local stage
/// (one of the vp chunks) of a schedule run of m micro-batches (micro_batches_per_run) keeps:
/// - a receive buffer for every micro-batch's input, unless it is the pipeline's first stage: those
///   of the micro-batches in flight are the saved inputs of the chunk's first layer, counted with
///   the activations, the other m - in flight are extra;
/// - a receive buffer for every micro-batch's output gradient, unless it is the last stage: m;
/// - the output of each forward in flight until its backward (fwd_cache), unless it is the last
///   stage;
/// - on the last stage, every micro-batch's output, the logits (bf16, the rank's vocabulary shard
///   under loss_parallel, else the whole vocabulary), until the step ends (output_chunks).
/// A stage's input and output are one micro-batch's hidden states, b s h / cp x 2 bytes, split tp
/// ways under sequence parallelism. `micro_batches_in_flight` as memory_per_gpu takes it.
double pipelining_buffer_bytes(const TransformerSpec& model, const ParallelismSpec& parallelism,
                               const TrainingSpec& training, bool is_first_stage, bool is_last_stage,
                               double micro_batches_in_flight);

/// The whole peak of one GPU of a stage: its tensors and the runtime's memory around them.
MemoryBreakdown memory_per_gpu(const TransformerSpec& model, const ParallelismSpec& parallelism,
                               const TrainingSpec& training, const GpuSpec& gpu, std::int64_t stage_layers,
                               bool is_first_stage, bool is_last_stage, double micro_batches_in_flight,
                               std::int64_t moe_layers = 0);

/// Whether the peak fits the HBM CUDA reports.
bool fits_in_memory(double total_bytes, const GpuSpec& gpu);

}  // namespace clustersim::models
