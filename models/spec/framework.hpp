#pragma once
/// The training framework that runs a job, as a named set of the choices the step model needs:
/// the attention kernel, fused or eager elementwise kernels, the dtype ZeRO 0-2 reduce gradients
/// in and how they accumulate them, the way ZeRO-3 shards (sharding.hpp) and the fp8 scaling recipe. `training.framework` picks a set; every choice
/// stays a scenario key of its own, and a key the scenario writes wins over the set.
/// Sets:
/// - megatron-core: Megatron-LM on Megatron-Core with Transformer Engine, which NeMo and
///   Megatron-Bridge run;
/// - megatron-lm: Megatron-LM before Megatron-Core and FlashAttention (2021-2022 releases);
/// - megatron-deepspeed: Megatron-DeepSpeed (Megatron-LM's model code under DeepSpeed ZeRO);
/// - torchtitan: PyTorch-native (FSDP2, scaled_dot_product_attention, eager modules unless
///   torch.compile is on);
/// - llm-foundry: MosaicML's llm-foundry on Composer (FSDP1, the flash-attn package);
/// - nemo-automodel: NVIDIA NeMo Automodel (PyTorch-native FSDP2 with Transformer Engine's
///   kernels, a model cast to bf16).
/// Limitations: the gradient bucket size is not a framework choice here (the step model buckets a
/// chunk's reduction per layer); a framework's kernel choice that depends on the GPU (Transformer
/// Engine prefers cuDNN attention on Hopper and FlashAttention-2 on Ampere) is one value, and the
/// profile of a GPU whose cuDNN attention is unmeasured runs it as FlashAttention-2.
/// Sources: each set's `source` strings, in framework.cpp.

#include <string_view>

#include "models/spec/parallelism_spec.hpp"
#include "models/spec/sharding.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// One choice of a set and where it comes from.
template <class T>
struct FrameworkChoice {
  T value{};
  std::string_view source{};
};

struct FrameworkParameters {
  Framework framework = Framework::megatron_core;
  FrameworkChoice<AttentionKernel> attention{};
  FrameworkChoice<ElementwiseKernels> elementwise{};
  FrameworkChoice<GradDtype> grad_dtype{};
  // How ZeRO 0-1 adds each micro-batch's gradients into the step's buffer (training.grad_accumulation).
  FrameworkChoice<GradAccumulation> grad_accumulation{};
  FrameworkChoice<ShardingFramework> sharding{};
  FrameworkChoice<Fp8Recipe> fp8_recipe{};
  // What the framework's selective activation checkpointing recomputes.
  FrameworkChoice<Recompute> selective_recompute{};
  // Whether the cross-entropy upcasts the logits to fp32 (training.fp32_loss).
  FrameworkChoice<bool> fp32_loss{};
  // The cross-entropy's kernel as the framework runs it without torch.compile
  // (training.cross_entropy), and whether turning torch.compile on (training.elementwise fused)
  // compiles the loss too.
  FrameworkChoice<CrossEntropyKernel> cross_entropy{};
  FrameworkChoice<bool> compile_fuses_loss{};
  // Whether rotary position embeddings run as one fused kernel (training.rope_fusion) with the
  // set's own elementwise kernels; torch.compile fuses them where those are eager.
  FrameworkChoice<bool> rope_fusion{};
  // Whether the model's parameters are bf16 with no fp32 master (training.bf16_params).
  FrameworkChoice<bool> bf16_params{};
  // Whether an fp8 linear layer keeps the fp8 copy of its input (1 byte an element) for its
  // weight-gradient GEMM, or the bf16 input, cast again in the backward. A fact of the framework's
  // fp8 layers (neither Transformer Engine nor torchao offers the other way), so no scenario key
  // overrides it.
  FrameworkChoice<bool> fp8_keeps_quantized_inputs{};
  // Under sequence parallelism, whether a column-parallel linear layer keeps its all-gathered input
  // for its weight-gradient GEMM (s b h on every TP rank), or its own sequence shard, gathered
  // again in the backward (s b h / t). A fact of the framework's TP layers, so no scenario key
  // overrides it.
  FrameworkChoice<bool> tp_keeps_gathered_inputs{};
  // Under tensor parallelism, whether an eager cross-entropy (training.cross_entropy eager) runs as
  // PyTorch DTensor's loss_parallel over the vocabulary-sharded logits: log_softmax and nll_loss
  // decomposed op by op with all-reduces between them (more passes over the logits, and four fp32
  // copies of them at the backward's peak against the three of aten's kernels). A fact of the
  // framework's training loop, so no scenario key overrides it.
  FrameworkChoice<bool> tp_loss_parallel{};
  // Under pipeline parallelism, whether the pipeline is PyTorch's torch.distributed.pipelining,
  // whose stages keep buffers a schedule run long (memory.hpp pipelining_buffer_bytes): a receive
  // buffer for every micro-batch's input and for every micro-batch's output gradient, each
  // forward's output until its backward, and on the last stage every micro-batch's logits until the
  // step ends. Megatron's schedules receive each transfer into a tensor made for it and keep
  // nothing else. A fact of the framework's pipeline, so no scenario key overrides it.
  FrameworkChoice<bool> pp_stage_buffers{};
  // Under pipeline parallelism, whether a stage's sends to its neighbours block its stream: the
  // framework's point-to-point calls are synchronous, so the stage computes nothing more until a
  // transfer has gone (DeepSpeed's pipeline engine; Megatron-LM's schedules before Megatron-Core
  // synchronise the device after every exchange), or they run beside its next pass. A fact of the
  // framework's pipeline, so no scenario key overrides it.
  FrameworkChoice<bool> pp_blocking_sends{};
  // Under sequence parallelism without tensor-parallel overlap, whether each all-gather and
  // reduce-scatter of the activations also copies the whole tensor once, because the framework
  // shards the sequence in a dimension other than the first, which NCCL's collectives work on.
  // A fact of the framework's tensor layout, so no scenario key overrides it.
  FrameworkChoice<bool> tp_collectives_copy_sequence{};
  // Under tensor-parallel overlap, whether the backward's reduce-scatters of the input gradients
  // of the attention's and the MLP's input projections run beside compute, or stay on the stream.
  // A fact of the framework's overlap machinery, so no scenario key overrides it.
  FrameworkChoice<bool> tp_overlap_hides_input_grad_reduce{};
  // Without tensor-parallel overlap, under sequence parallelism: whether a column-parallel linear
  // layer's backward issues its two collectives asynchronously, the all-gather of its saved input
  // shard beside the input-gradient GEMM and the reduce-scatter of that input gradient beside the
  // weight-gradient GEMM, or runs them on the compute stream. A fact of the framework's TP layers,
  // so no scenario key overrides it.
  FrameworkChoice<bool> tp_backward_collectives_beside_gemms{};
  // Under ZeRO-1, whether the gradients are all-reduced (each rank then updating its shard of the
  // optimizer state) or reduce-scattered into the shard. A fact of the framework's optimizer, so
  // no scenario key overrides it.
  FrameworkChoice<bool> zero1_all_reduces_gradients{};
  // Under ZeRO 1-2, whether the all-gather of the updated parameters may run beside the next
  // step's forward (training.overlap_param_gather), or the optimizer runs it inside its step, so
  // that the next step starts only once it is done. A fact of the framework's optimizer: with it
  // false, training.overlap_param_gather does not apply to ZeRO 1-2 (it still means ZeRO-3's
  // prefetch).
  FrameworkChoice<bool> zero_param_gather_beside_forward{};
  // How context-parallel ranks exchange keys and values (parallelism.cp_comm).
  FrameworkChoice<CpComm> cp_comm{};
  // Under cp_comm all_gather, whether the gather runs beside the attention of the rank's own block
  // (what it needs no other rank's keys for), or before any attention, on the stream. A fact of the
  // framework's attention, so no scenario key overrides it.
  FrameworkChoice<bool> cp_gather_beside_local_block{};
  // For experts with biases (model.expert_bias), whether the framework adds them expert by expert
  // in eager PyTorch (split the grouped GEMM's output, add, concatenate; the down projection's bias
  // scaled by the fp32 routing probabilities) or inside the grouped GEMM, at no extra pass. A fact
  // of the framework's MoE layer, so no scenario key overrides it.
  FrameworkChoice<bool> expert_bias_eager{};
  // Under ZeRO-3, whether a MoE model's blocks reduce their gradients in fp32 whatever the
  // parameters' dtype, while its routed experts, sharded on their own, reduce in the parameters'
  // dtype. A fact of the framework's MoE parallelizer, so no scenario key overrides it.
  FrameworkChoice<bool> moe_blocks_reduce_fp32{};
  // Under tensor-parallel overlap, whether a GEMM fused with its reduce-scatter leaves the sum of
  // the ranks' partial outputs to a reduction kernel on the compute stream after the pipeline
  // (every rank's partials read once, its shard written), or sums them inside the collective. A
  // fact of the framework's overlap machinery, so no scenario key overrides it.
  FrameworkChoice<bool> tp_overlap_reduces_on_stream{};
  // At fp8 with delayed scaling, whether the norms before the qkv and MLP up projections write
  // those GEMMs' inputs in fp8 themselves (a norm kernel with a fused cast, its amax taken inside),
  // so that neither input has a cast kernel of its own. A fact of the framework's layers, so no
  // scenario key overrides it.
  FrameworkChoice<bool> norm_writes_fp8_inputs{};
  // Whether the model code projects the attention's queries, keys and values with one linear layer
  // (one GEMM of their summed widths) or with three, and SwiGLU's gate and up projections with one
  // or two. Separate layers each read the shared input and take a GEMM of their own narrower (q,
  // k, v) or equal width, and the backward sums their input gradients (input_grad_sum in
  // transformer_costs.cpp). Facts of the framework's model code, so no scenario key overrides them.
  FrameworkChoice<bool> fused_qkv{};
  FrameworkChoice<bool> fused_gate_up{};
};

/// The parameter set of `framework`.
const FrameworkParameters& framework_parameters(Framework framework);

/// The ZeRO-3 sharding set as the scenario runs it: parallelism.sharding's, with bf16 parameters
/// (training.bf16_params) and the framework's reduce dtype of a MoE model's blocks.
ShardingParameters sharding_as_run(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                   const TrainingSpec& training);

/// Whether `set` runs RoPE as a fused kernel with its elementwise ops as `elementwise`.
bool framework_rope_fusion(const FrameworkParameters& set, ElementwiseKernels elementwise);

/// Whether the step's eager cross-entropy runs as DTensor's loss_parallel: an eager loss, TP > 1
/// and a framework that enables it (FrameworkParameters::tp_loss_parallel).
bool runs_loss_parallel(const ParallelismSpec& parallelism, const TrainingSpec& training);

/// The cross-entropy kernel `set` runs with its elementwise ops as `elementwise`.
CrossEntropyKernel framework_cross_entropy(const FrameworkParameters& set, ElementwiseKernels elementwise);

}  // namespace clustersim::models
