#pragma once
/// How a training job is laid out over GPUs and how a step is scheduled.
/// GPUs = tp x pp x dp x cp. Rank order, innermost first: TP, CP, DP, PP (TP inside a node).

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/spec/sharding.hpp"

namespace clustersim::models {

enum class Schedule { gpipe, one_f_one_b, interleaved };
/// Activation recomputation: `selective` is Korthikanti et al. 2022's (the attention core, as
/// Megatron-LM's --recompute-activations), `full` every layer from its input, `op` torchtitan's
/// op-level selective checkpointing (selective_ac_option "op": the outputs of attention and of
/// every other matmul are kept, the rest of the layer is recomputed).
enum class Recompute { none, selective, full, op };

/// The spellings the scenario format and every report use.
constexpr std::string_view schedule_name(Schedule s) {
  switch (s) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved: return "interleaved";
  }
  return "?";
}
constexpr std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
    case Recompute::op: return "op";
  }
  return "?";
}
/// How context-parallel ranks get the keys and values of the whole sequence (Megatron-Core's
/// cp_comm_type, Transformer Engine's): `p2p` passes each rank's block around a ring, hop by hop
/// beside the attention of the block it brings; `all_gather` gathers every block before the
/// attention (and again in the backward, whose key/value gradients are reduce-scattered back);
/// `a2a` (DeepSpeed-Ulysses) trades sequence for heads with an all-to-all of the queries, keys
/// and values before the attention and of its output after, so each rank attends over the whole
/// sequence with heads / cp heads; `a2a_p2p` (Transformer Engine's "a2a+p2p", hierarchical) runs the
/// all-to-all inside groups of ParallelismSpec::cp_a2a_ranks ranks and the ring across the groups.
enum class CpComm { p2p, all_gather, a2a, a2a_p2p };
constexpr std::string_view cp_comm_name(CpComm c) {
  switch (c) {
    case CpComm::p2p: return "p2p";
    case CpComm::all_gather: return "all_gather";
    case CpComm::a2a: return "a2a";
    case CpComm::a2a_p2p: return "a2a+p2p";
  }
  return "?";
}
/// The tensor-core precision of the linear layers' GEMMs (attention runs bf16 in every one):
/// `bf16`, `fp8` (scaled as Fp8Recipe says) or `nvfp4` (Transformer Engine's NVFP4BlockScaling,
/// Blackwell: E2M1 values with one E4M3 scale per 1 x 16 block and an fp32 scale per tensor,
/// forward, dgrad and wgrad GEMMs alike; Megatron-Core's --fp4-format e2m1 --fp4-recipe nvfp4).
enum class Precision { bf16, fp8, nvfp4 };
constexpr std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::nvfp4: return "nvfp4";
  }
  return "?";
}
/// Whether the linear layers' GEMMs run below bf16 (fp8 or nvfp4): their inputs are cast first.
constexpr bool low_precision_gemms(Precision p) { return p != Precision::bf16; }
/// Bytes a GEMM input element takes at `p`, its block scales included: NVFP4 stores a 4-bit E2M1
/// value and one E4M3 scale byte per 16 values (NVIDIA, "Pretraining Large Language Models with
/// NVFP4", arXiv:2509.25149, section 2); fp8's per-tensor or block scales are counted by its recipe.
constexpr double gemm_input_bytes(Precision p) {
  return p == Precision::nvfp4 ? 0.5 + 1.0 / 16.0 : p == Precision::fp8 ? 1.0 : 2.0;
}
/// How fp8 tensors are scaled (training.fp8_recipe; only read when precision is fp8):
/// `delayed` (Transformer Engine DelayedScaling: one scale per tensor from an amax history, the
/// new amax taken inside the cast kernel), `current` (TE Float8CurrentScaling, torchao tensorwise
/// dynamic: one scale per tensor from its own amax, found by a read pass before the cast),
/// `blockwise` (TE Float8BlockScaling, DeepSeek-V3: fp32 scales per 1 x 128 block of activations
/// and gradients, per 128 x 128 block of weights) and `mxfp8` (TE MXFP8BlockScaling, Blackwell:
/// one E8M0 scale per 1 x 32 block, applied by the tensor cores).
enum class Fp8Recipe { delayed, current, blockwise, mxfp8 };
constexpr std::string_view fp8_recipe_name(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::delayed: return "delayed";
    case Fp8Recipe::current: return "current";
    case Fp8Recipe::blockwise: return "blockwise";
    case Fp8Recipe::mxfp8: return "mxfp8";
  }
  return "?";
}
/// The attention core's kernel. The fused kernels keep the s x s scores out of HBM and skip the
/// causal blocks above the diagonal; they differ in how fast they run (compute_profile.hpp):
/// `cudnn` (cuDNN fused attention, as Transformer Engine runs it on Hopper and later), `flash2`
/// (FlashAttention-2 as the flash-attn package builds it, which Transformer Engine and Megatron-LM
/// call), `sdpa_flash` (PyTorch's scaled_dot_product_attention flash backend: PyTorch's own build
/// of FlashAttention-2, measured slower on Hopper), `flash3` (FlashAttention-3, Hopper only:
/// warp-specialised, TMA-fed). `unfused`: two batched GEMMs around a softmax and a dropout kernel
/// that materialise the s x s scores, as Megatron-LM did before 2023.
enum class AttentionKernel { cudnn, flash2, sdpa_flash, flash3, unfused };
constexpr std::string_view attention_kernel_name(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::cudnn: return "cudnn";
    case AttentionKernel::flash2: return "flash2";
    case AttentionKernel::sdpa_flash: return "sdpa_flash";
    case AttentionKernel::flash3: return "flash3";
    case AttentionKernel::unfused: return "unfused";
  }
  return "?";
}
/// The layers' norms, residual adds, activation and rotary embedding: `fused` (Megatron-LM and
/// Transformer Engine kernels, or torch.compile: one pass over each tensor) or `eager` (plain
/// PyTorch without torch.compile, as torchtitan runs by default: one kernel per op, fp32 upcasts
/// in RMSNorm and RoPE, separate SiLU and multiply).
enum class ElementwiseKernels { fused, eager };
/// The cross-entropy over the logits: `fused` (a few fused kernels each way that keep the softmax
/// once and write the gradient in its place: Megatron-Core's --cross-entropy-loss-fusion,
/// flash-attn's CrossEntropyLoss, a torch.compile'd loss), `inplace` (Megatron's vocab-parallel
/// cross-entropy op by op: the fp32 copy of the logits max-reduced, then shifted, exponentiated and
/// normalised in place, each a pass that reads and writes it; the softmax kept and turned into the
/// gradient in place) or `eager` (PyTorch's log_softmax and nll_loss op by op: the
/// log-probabilities saved, and in the backward nll_loss's dense gradient and log_softmax's
/// gradient beside them, three copies of the logits at the loss's precision).
enum class CrossEntropyKernel { fused, inplace, eager };
constexpr std::string_view cross_entropy_name(CrossEntropyKernel k) {
  return k == CrossEntropyKernel::fused ? "fused" : k == CrossEntropyKernel::inplace ? "inplace" : "eager";
}
/// The dtype of the gradient buffer the backward accumulates into and the data-parallel reduction
/// reads (ZeRO 0-2; ZeRO-3 takes its framework's reduce dtype): `fp32` (Megatron-LM's default
/// main_grad buffer) or `bf16` (NeMo's performance configs: optim.grad_sync_dtype bf16).
enum class GradDtype { fp32, bf16 };
/// Bytes of one gradient element in the buffer of `dtype`.
constexpr double grad_dtype_bytes(GradDtype dtype) { return dtype == GradDtype::fp32 ? 4.0 : 2.0; }
/// How ZeRO 0-1 adds a micro-batch's weight gradients into the step's gradient buffer, each a
/// memory-bound pass over the rank's parameters on the compute stream but the first:
/// - `fused`: the weight-gradient GEMM accumulates into the buffer itself (Megatron-LM's
///   gradient_accumulation_fusion since February 2022, Transformer Engine's
///   fuse_wgrad_accumulation): no extra pass;
/// - `autograd`: PyTorch's AccumulateGrad adds each micro-batch's 16-bit gradient into .grad in
///   place from the second micro-batch on: read both, write one, 3 x 2 bytes a parameter;
/// - `main_grad_add`: Megatron's DDP hook adds each micro-batch's 16-bit gradient into the
///   main_grad buffer of training.grad_dtype (param.main_grad.add_(param.grad), what
///   --no-gradient-accumulation-fusion runs): 2 bytes read, the buffer read and written;
/// - `fp32_cast_add`: after each micro-batch's backward, each 16-bit gradient is cast to fp32 and
///   added into an fp32 buffer (DeepSpeed's BF16_Optimizer.update_hp_grads:
///   hp_grad.add_(lp.grad.to(float32))): 2 + 4 bytes for the cast, 3 x 4 for the add.
enum class GradAccumulation { fused, autograd, main_grad_add, fp32_cast_add };
constexpr std::string_view grad_accumulation_name(GradAccumulation g) {
  switch (g) {
    case GradAccumulation::fused: return "fused";
    case GradAccumulation::autograd: return "autograd";
    case GradAccumulation::main_grad_add: return "main_grad_add";
    case GradAccumulation::fp32_cast_add: return "fp32_cast_add";
  }
  return "?";
}

/// The training framework that ran the job (framework.hpp holds each one's parameter set).
enum class Framework { megatron_core, megatron_lm, megatron_deepspeed, torchtitan, llm_foundry, nemo_automodel };
constexpr std::string_view framework_name(Framework f) {
  switch (f) {
    case Framework::megatron_core: return "megatron-core";
    case Framework::megatron_lm: return "megatron-lm";
    case Framework::megatron_deepspeed: return "megatron-deepspeed";
    case Framework::torchtitan: return "torchtitan";
    case Framework::llm_foundry: return "llm-foundry";
    case Framework::nemo_automodel: return "nemo-automodel";
  }
  return "?";
}

struct ParallelismSpec {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t dp = 1;
  std::int64_t cp = 1;
  CpComm cp_comm = CpComm::p2p;  // context parallel: how the ranks exchange keys and values
  // a2a+p2p: the context-parallel ranks of each all-to-all group, consecutive (Megatron-Core
  // --hierarchical-context-parallel-sizes' first); the rings run across cp / cp_a2a_ranks groups.
  // 0 otherwise.
  std::int64_t cp_a2a_ranks = 0;
  // The CTAs NCCL may run the kernels of the communicators the context-parallel exchange runs on
  // (the `max_ctas` of their ncclConfig_t, which Megatron-Core sets per process group from
  // nccl_communicator_config_path: "cp", or "hcp" for a2a+p2p's groups; NVIDIA's MLPerf Llama 3.1
  // submissions set 1 for "cp"); 0: NCCL's own choice, no limit.
  std::int64_t cp_max_ctas = 0;
  // The same for the data-parallel communicators, which reduce the gradients and gather the
  // parameters (Megatron-Core's distributed optimizer and DDP run on its "dp_cp" group, "dp"
  // without context parallelism; NVIDIA's MLPerf submissions set 8 for both): the SMs they hold
  // beside the compute; 0: NCCL's own choice.
  std::int64_t dp_max_ctas = 0;
  std::int64_t vp = 1;   // model chunks per pipeline stage (interleaved schedule)
  // Interleaved schedule: micro-batches that run through one model chunk before the stage moves to
  // its next chunk (Megatron-Core --microbatch-group-size-per-virtual-pipeline-stage; the "N" of
  // the Llama 3 paper's section 3.3.2). 0: pp, Megatron-Core's default (depth-first).
  std::int64_t microbatch_group = 0;
  bool sp = false;       // sequence parallelism inside the TP group
  int zero = 1;          // 0: plain DP; 1: distributed optimizer; 2: + gradients; 3: + parameters (FSDP)
  // ZeRO-3: the framework's way of running it (sharding.hpp), and hybrid sharding: shard inside
  // groups of this many of the dp x cp ranks, replicate across the groups (0: one group of all).
  ShardingFramework sharding = ShardingFramework::fsdp2;
  std::int64_t shard_group = 0;
  // Tensor-parallel collectives pipelined with the GEMMs they feed or drain (Megatron-Core /
  // Transformer Engine --tp-comm-overlap, torchtitan async TP); needs sequence parallelism.
  bool tp_comm_overlap = false;
  // Expert parallelism (MoE models): each MoE layer's experts split over ep ranks carved from the
  // tp x cp x dp ranks of a stage, as Megatron-Core folds them (ep x etp x expert-dp = tp x cp x
  // dp); etp: tensor parallelism inside an expert.
  std::int64_t ep = 1;
  std::int64_t etp = 1;
  // The dispatch and combine all-to-alls run beside another micro-batch's compute instead of on
  // the stream (DeepSeek-V3's DualPipe, Megatron-Core's --overlap-moe-expert-parallel-comm), taking
  // SMs and HBM bandwidth from it as any overlapped NCCL kernel does.
  bool ep_comm_overlap = false;
  // Transformer layers of each of the pp x vp model chunks, in model order (chunk c of stage s is
  // entry c x pp + s), as the job split them: Megatron-Core's --pipeline-model-parallel-layout or
  // --decoder-first/last-pipeline-num-layers, torchtitan's layers per stage. The first chunk also
  // holds the embedding and the last the output layer and loss, so either may hold no layer
  // (Megatron-Core's --account-for-embedding/loss-in-pipeline-split can leave them only those).
  // Empty: models::split_layers's even split.
  std::vector<std::int64_t> layers_per_chunk{};

  friend bool operator==(const ParallelismSpec&, const ParallelismSpec&) = default;
};

/// The interleaved schedule's micro-batch group: parallelism.microbatch_group, or pp where unset.
constexpr std::int64_t microbatch_group_size(const ParallelismSpec& p) {
  return p.microbatch_group > 0 ? p.microbatch_group : p.pp;
}

/// Whether the interleaved schedule runs `micro_batches` in groups of `group` (pp where 0), as
/// Megatron-Core's forward_backward_pipelining_with_interleaving asserts (schedules.py): the
/// group in [pp, micro_batches], and the micro-batches a multiple of it or leaving a last group
/// of at least pp.
constexpr bool interleaved_groups_hold(std::int64_t micro_batches, std::int64_t pp, std::int64_t group) {
  const std::int64_t n = group > 0 ? group : pp;
  if (pp <= 0 || n < pp || n > micro_batches) return false;
  const std::int64_t last = micro_batches % n;
  return last == 0 || last >= pp;
}

/// How a MoE layer's tokens reach their experts' ranks: `alltoall` (NCCL all-to-all of every
/// routed copy, Megatron-Core's alltoall dispatcher) or `deepep` (DeepSeek's DeepEP: a token
/// crosses the network once per node it is routed to, and fans out to that node's experts over
/// NVLink; github.com/deepseek-ai/DeepEP, "normal kernels" for training).
enum class MoeDispatcher { alltoall, deepep };

/// Which experts a MoE layer's router picks for a token, as far as the dispatch cares: `uniform`
/// (k distinct experts at random, what a balanced learned router approaches) or `consecutive`
/// (token i of a rank takes experts k i .. k i + k - 1 mod experts: NeMo Automodel's
/// FakeBalancedGate, nemo_automodel/components/moe/layers.py, which its published benchmarks run),
/// which puts each token's experts on the fewest ranks and nodes.
enum class MoeRouting { uniform, consecutive };

struct TrainingSpec {
  std::int64_t seq_len = 4096;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 1024;  // sequences per optimizer step
  // The step's micro-batches run as this many pipeline schedules back to back, each of
  // micro-batches / pipeline_runs with its own fill and drain (torchtitan and NeMo Automodel call
  // the pipeline schedule once per gradient-accumulation step); 1: one schedule a step. FSDP2
  // (ZeRO-3) then gathers and reduces once a run, as PyTorch's pipelining does at each run's last
  // backward (stage.py, backward_maybe_with_nosync), unless fsdp_sync_once defers both to the
  // optimizer step (sharding.hpp fsdp_syncs_per_step); ZeRO 0-2 still reduce once a step.
  std::int64_t pipeline_runs = 1;
  Precision precision = Precision::bf16;
  // What ran the job: the defaults of attention, elementwise, grad_dtype, grad_accumulation,
  // fp8_recipe, fp32_loss, cross_entropy, rope_fusion, bf16_params and parallelism.sharding.
  Framework framework = Framework::megatron_core;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  // fp8 only: false runs the forward GEMMs in fp8 and the dgrad and wgrad GEMMs in bf16.
  bool fp8_backward = true;
  // fp8 with a distributed optimizer or ZeRO-3: the layers' linear weights are kept and gathered
  // as their fp8 copies, 1 byte a parameter instead of 2 (Megatron-LM's --fp8-param-gather,
  // torchtitan's enable_fsdp_float8_all_gather); the embedding and the output layer stay 16-bit
  // (a layer's norms, a few thousand parameters, are counted with its weights).
  bool fp8_param_gather = false;
  // fp8 or nvfp4 with cuDNN attention, Hopper or Blackwell: the attention runs cuDNN's FP8 kernel,
  // its Q, K, V (and the backward's output gradient) cast to fp8 with per-tensor current scaling
  // and its output left bf16 (Transformer Engine's FP8 DotProductAttention: Megatron-Core's
  // fp8_dot_product_attention, NeMo's FP8_DPA).
  bool fp8_attention = false;
  // Pipelines (pp > 1): the last stage leaves the output layer's weight-gradient GEMM of its first
  // wgrad_deferral_limit micro-batches (0: of all of them) to the pipeline's drain, keeping each
  // one's input and logits gradient until then (Megatron-Core's --defer-embedding-wgrad-compute
  // and --wgrad-deferral-limit; core/pipeline_parallel/schedules.py finish_embedding_wgrad_compute).
  bool defer_embedding_wgrad = false;
  std::int64_t wgrad_deferral_limit = 0;
  // ZeRO-3 with FSDP2 and no pipeline: the step's micro-batches keep the parameters gathered and
  // the gradients unsharded, gathered once before the first forward and reduce-scattered once
  // after the last backward (NeMo Automodel's enable_fsdp_optimizations: FSDP2's
  // set_requires_gradient_sync(False) and set_reshard_after_backward(False) until the last
  // micro-batch, components/moe/fsdp_mixin.py). Under a pipeline FSDP2 does so anyway where the
  // stage's module is FSDP-wrapped (torchtitan), once each pipeline run; with this key once a step
  // over the runs too (Automodel's patched pipeline backward). Where the stage's module is not
  // wrapped, see fsdp_sync_every_micro_batch.
  bool fsdp_sync_once = false;
  // ZeRO-3 with FSDP2 under a pipeline (pp > 1) whose stage module is not itself FSDP-wrapped:
  // PyTorch's pipelining then takes its plain backward (torch/distributed/pipelining/stage.py,
  // backward_maybe_with_nosync), so each wrapped block keeps FSDP2's defaults and reduce-scatters
  // and reshards after every micro-batch's backward, and every forward gathers again (NeMo
  // Automodel's MoE models without enable_fsdp_optimizations: components/moe/parallelizer.py wraps
  // the inner model, the stage holds the outer one). The backward reuses the forward's gather: under
  // a pipeline both frameworks keep the parameters gathered after the forward.
  bool fsdp_sync_every_micro_batch = false;
  Recompute recompute = Recompute::selective;
  AttentionKernel attention = AttentionKernel::cudnn;
  ElementwiseKernels elementwise = ElementwiseKernels::fused;
  Schedule schedule = Schedule::one_f_one_b;
  GradDtype grad_dtype = GradDtype::fp32;
  GradAccumulation grad_accumulation = GradAccumulation::fused;
  // The cross-entropy upcasts the bf16 logits to fp32 and keeps its fp32 softmax for the backward
  // (Megatron-Core's vocab-parallel cross-entropy, torchtitan's loss); false keeps them in bf16
  // (NeMo Automodel's MaskedCrossEntropy(fp32_upcast=False)).
  bool fp32_loss = true;
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::inplace;  // megatron-core's
  // Rotary position embeddings as one fused kernel on q and k (Transformer Engine's,
  // torch.compile's, flash-attn's), whose traffic the model leaves out like the other fused ops';
  // false applies them op by op in PyTorch: an op of their own beside fused elementwise kernels
  // (NeMo Automodel's MoE models before January 2026), among the eager ones otherwise (torchtitan
  // without torch.compile).
  bool rope_fusion = true;
  // With grouped-query attention: the model code copies each key and value head to the query heads
  // it serves before the attention kernel (torchtitan's repeat_kv ahead of scaled_dot_product_
  // attention until 2026-01-27), so the copy is a pass of its own, the kernel reads and keeps the
  // repeated K and V, and context parallelism gathers and rotates them at the query width. False:
  // the kernel takes the groups as they are (Transformer Engine, flash-attn, SDPA's enable_gqa).
  bool repeat_kv = false;
  // The model's parameters are bf16 and Adam keeps its moments in their dtype: no fp32 master copy
  // anywhere (a model cast to bf16 before training, as NeMo Automodel's benchmark recipes do);
  // false is mixed precision, fp32 master weights and moments beside the bf16 weights.
  bool bf16_params = false;
  double tokens = 1e12;  // training budget, for time-to-train
  // Bucketed DP gradient reduction under the backward pass; for ZeRO-3, false puts each
  // backward's gradient reduce-scatter on the compute stream.
  bool overlap_grad_reduce = true;
  // Distributed-optimizer parameter all-gather under the step, or ZeRO-3's per-pass parameter
  // all-gathers beside the compute; for ZeRO-3, false puts them on the compute stream.
  bool overlap_param_gather = true;
  // Parameters a gradient bucket holds (Megatron-Core's --ddp-bucket-size): a bucket's reduction
  // starts once all its gradients are ready, so buckets larger than a layer leave more of the
  // reduction after the backward. 0: a bucket per layer, about what the default (40M parameters,
  // or 1M x dp) gives for layers of that size or more.
  std::int64_t grad_bucket_params = 0;
  // Each layer's forward and backward replayed as a captured CUDA graph (Megatron-Core / TE
  // --enable-cuda-graph, NeMo cuda_graph, torch.compile mode="reduce-overhead"): the host issues one
  // graph launch a layer pass instead of each kernel (models/compute/host_launch.hpp).
  bool cuda_graphs = false;
  // MoE: tokens routed to the busiest expert rank over the mean (1: a balanced router, as with an
  // auxiliary-loss-free or forced-balanced gate); the busiest rank sets the layer's pace.
  double moe_load_imbalance = 1.0;
  // Each expert takes at most capacity_factor x its mean share of the routed tokens and drops the
  // rest (Megatron-Core --moe-expert-capacity-factor); with pad_to_capacity every expert runs
  // exactly that many rows (--moe-pad-expert-input-to-capacity). 0: dropless.
  double moe_capacity_factor = 0.0;
  bool moe_pad_to_capacity = false;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  MoeRouting moe_routing = MoeRouting::uniform;

  friend bool operator==(const TrainingSpec&, const TrainingSpec&) = default;
};

/// Bytes a layer parameter is gathered and held in where its parameters are gathered (ZeRO 1-3):
/// its fp8 copy, 1 B, under training.fp8_param_gather, else `sixteen_bit_bytes`. The embedding
/// and the output layer stay 16-bit either way.
constexpr double gathered_layer_bytes(const TrainingSpec& training, double sixteen_bit_bytes) {
  return training.fp8_param_gather ? 1.0 : sixteen_bit_bytes;
}

/// Micro-batches a data-parallel replica runs a step: global_batch / (dp x micro_batch).
constexpr std::int64_t micro_batches_per_step(const ParallelismSpec& parallelism, const TrainingSpec& training) {
  return training.global_batch / (parallelism.dp * training.micro_batch);
}

/// Micro-batches of one pipeline run (TrainingSpec::pipeline_runs): at most these are in flight.
constexpr std::int64_t micro_batches_per_run(const ParallelismSpec& parallelism, const TrainingSpec& training) {
  const std::int64_t runs = training.pipeline_runs > 1 ? training.pipeline_runs : 1;
  return micro_batches_per_step(parallelism, training) / runs;
}

/// The micro-batches of a step whose output-layer weight gradients wait for the pipeline's drain
/// (training.defer_embedding_wgrad): the first wgrad_deferral_limit, or all of them; none without
/// the deferral or a pipeline.
constexpr std::int64_t deferred_wgrad_micro_batches(const ParallelismSpec& parallelism, const TrainingSpec& training) {
  if (!training.defer_embedding_wgrad || parallelism.pp <= 1) return 0;
  const std::int64_t micro_batches = micro_batches_per_step(parallelism, training);
  return training.wgrad_deferral_limit > 0 && training.wgrad_deferral_limit < micro_batches
             ? training.wgrad_deferral_limit
             : micro_batches;
}

}  // namespace clustersim::models
