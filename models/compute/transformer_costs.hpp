#pragma once
/// FLOPs and HBM bytes of each op of one transformer layer, for one micro-batch, on one GPU.
/// The GPU is one rank of a tp-way tensor-parallel and cp-way context-parallel group: GEMMs see
/// b x s/cp tokens with their weights split tp ways; attention scores its s/cp queries against all
/// s keys; norms and elementwise ops run on s/(cp x tp) tokens with sequence parallelism.
/// Units: FLOPs (2 per multiply-add) and bytes. Forward ops are listed in execution order; the
/// backward list splits each GEMM into its input-gradient (dgrad) and weight-gradient (wgrad) GEMM.
/// Attention core, by training.attention:
/// - cudnn, flash2, sdpa_flash, flash3: one fused kernel each way; no s^2 activations reach HBM and causal masking
///   skips half the blocks. With context parallelism the rank launches one call per ring step
///   (Transformer Engine's ring attention: cp steps, each over the s/cp keys of one peer chunk).
/// - unfused (Megatron-LM before 2023, Megatron-DeepSpeed): per (sequence, head) of the rank,
///   scores = Q K^T and context = probs V as batched GEMMs over the full s x s matrix (no causal
///   skipping), and between them the fused scale-mask-softmax kernel (reads and writes the 16-bit
///   scores) and dropout (reads the probabilities, writes them and a 1-byte mask). The backward runs
///   the autograd of each: 4 batched GEMMs, dropout (reads gradient and mask, writes gradient) and
///   softmax (reads gradient and output, writes gradient), so HBM traffic grows with s^2.
///   Selective recompute redoes all four forward ops (Korthikanti et al. 2022 section 4.2).
/// Recompute `op` (torchtitan's op-level policy, torchtitan/distributed/activation_checkpoint.py:
/// matmul and attention outputs are saved except every second matmul of a block) redoes the k,
/// output and gated-MLP up projections (the down projection without a gate) and the layer's
/// elementwise ops.
/// fp8: the linear layers' GEMMs run in fp8 (with training.fp8_backward false, the forward's only)
/// and each layer adds the casts of their activation inputs, output gradients and weights, as
/// training.fp8_recipe makes them (transformer_costs.cpp, above fp8_cast_bytes): fp8 copies, their
/// scales, current scaling's amax read pass, block scaling's slower GEMMs, delayed scaling's amax
/// history update; under delayed scaling a framework whose norms write the qkv and MLP up inputs in
/// fp8 (FrameworkParameters::norm_writes_fp8_inputs) casts only the other two, and transposes those
/// two fp8 copies in the backward. Weights are cast once a step (their bytes spread over the step's
/// micro-batches), with ZeRO-3 once per micro-batch.
/// Limitations: dense decoder-only layers (no MoE); bias and RoPE are not costed; k/v heads
/// replicate when kv_heads < tp; the attention core runs in bf16 at fp8, and so does the LM head
/// (the logits GEMMs: the frameworks keep it out of fp8, transformer_costs.cpp). fp8 not costed: the amax all-reduces (current scaling's over
/// the TP group for sequence-parallel inputs, delayed scaling's once per pass), the GEMMs' reads of
/// the scales, the scale swizzle of block recipes, and Blackwell's per-tensor fp8 needing no
/// transposed copy (it runs every GEMM layout): the Hopper casts are costed on every GPU. Unfused:
/// attention dropout runs where the model has dropout (TransformerSpec::dropout); the padding-mask read, the
/// context's [s, b, h] permute copy and the baddbmm scaling are not costed (O(s h), not O(s^2));
/// with context parallelism the rank's s/cp queries score against all s keys in one pass.
/// Source: per-op FLOPs from shared reference training-math.md (Narayanan et al. 2021 and
/// Korthikanti et al. 2022 counts); flash-attention backward = 2.5 x forward from Dao 2023,
/// "FlashAttention-2", section 4.1 (5 matmuls in the backward pass against 2 in the forward);
/// unfused op sequence and bytes from Megatron-LM's megatron/model/transformer.py (ParallelAttention,
/// later CoreAttention: baddbmm, FusedScaleMaskSoftmax, attention dropout, bmm) and Korthikanti et
/// al. 2022 table 2 (the 5as/h bytes per score: softmax output 2, dropout mask 1, dropout output 2).

#include <array>
#include <cassert>
#include <cstddef>
#include <span>
#include <string_view>

#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// How an op's time is modelled: GEMMs by shape efficiency, attention by the attention kernel's
/// efficiency, attention GEMMs (the unfused attention's batched score and context GEMMs) by shape
/// efficiency at bf16 whatever the precision, elementwise ops by HBM bandwidth alone.
enum class OpKind { gemm, attention, attention_gemm, elementwise };

/// Which backward GEMM of a column-parallel linear layer an op is (the attention's input
/// projections but the latent down projections, which every TP rank holds whole; the MLP's up
/// projection): the GEMMs beside which Megatron's layers run their backward TP collectives.
enum class ColumnParallelGrad { none, input_grad, weight_grad };

struct OpCost {
  std::string_view name;     // static string: "qkv_proj", "attention_bwd", ...
  OpKind kind = OpKind::elementwise;
  double flops = 0.0;        // executed: what the kernel does (causal attention does half)
  double model_flops = 0.0;  // Megatron-LM convention: full attention, no elementwise work
  double bytes = 0.0;        // HBM read + written
  int gemm_m = 0;            // C[m x n] = A[m x k] B[k x n]; all 0 if not a GEMM. A batched GEMM
                             // of B problems folds B into m (the same output tiles when m is a
                             // multiple of the tile height)
  int gemm_n = 0;
  int gemm_k = 0;
  int gemm_groups = 1;       // a grouped GEMM (MoE experts): this many problems of m x n x k each,
                             // their tiles scheduled over the SMs together
  int kernels = 1;           // kernel launches the op stands for
  AttentionKernel attention_kernel = AttentionKernel::cudnn;  // fused attention: which kernel
  bool attention_dropout = false;  // fused attention that drops probabilities (its kernel draws the mask)
  bool attention_fp8 = false;      // fused attention in cuDNN's FP8 kernel (TrainingSpec::fp8_attention)
  double attention_keys = 0.0;     // fused attention: the keys of one call (a context-parallel step's)
  bool attention_backward = false; // fused attention: the backward kernel
  bool bf16_gemm = false;    // a GEMM kept at the bf16 rate at fp8 (the LM head; fp8_backward false)
  double fp8_rate = 1.0;     // fp8 GEMM throughput relative to per-tensor scaling (block scales < 1)
  ColumnParallelGrad column_grad = ColumnParallelGrad::none;
};

/// A fixed-capacity list of ops: layer costs are evaluated in sweeps, so no heap allocation.
class OpList {
 public:
  static constexpr std::size_t capacity = 32;

  constexpr void push_back(const OpCost& op) {
    assert(size_ < capacity);
    ops_[size_++] = op;
  }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const OpCost& operator[](std::size_t i) const { return ops_[i]; }
  constexpr const OpCost* begin() const { return ops_.data(); }
  constexpr const OpCost* end() const { return ops_.data() + size_; }
  constexpr std::span<const OpCost> span() const { return {ops_.data(), size_}; }

 private:
  std::array<OpCost, capacity> ops_{};
  std::size_t size_ = 0;
};

struct LayerCosts {
  OpList forward;
  OpList backward;
  OpList recompute;  // forward work redone before the backward: none, attention (selective), all (full)
};

/// The name of the output layer's weight-gradient GEMM in HeadCosts::output_backward, which
/// Megatron-Core can defer to the pipeline's drain (TrainingSpec::defer_embedding_wgrad).
inline constexpr std::string_view kOutputWeightGradOp = "logits_wgrad";

/// Embedding on the first pipeline stage; final norm, logits and cross-entropy on the last.
struct HeadCosts {
  OpList embedding_forward;
  OpList embedding_backward;
  OpList output_forward;
  OpList output_backward;
};

/// Fraction of the full s x s score matrix a causal flash kernel computes: it skips blocks above
/// the diagonal, so about half (exactly (n+1)/(2n) for n blocks; 0.5 is the long-sequence limit).
inline constexpr double kCausalFraction = 0.5;
/// A flash kernel's backward over its forward, in executed FLOPs, for a query-key width `qk` and a
/// value width `v` a head. Per score the forward multiplies Q K^T (qk) and P V (v); the backward
/// recomputes Q K^T (qk) and forms dP = dO V^T (v), dV = P^T dO (v), dQ = dS K (qk) and
/// dK = dS^T Q (qk): (3 qk + 2 v) / (qk + v), 2.5 at qk = v (Dao 2023 section 4.1) and 2.6 for
/// multi-head latent attention's 192 / 128 (as NVIDIA/cudnn-frontend's SDPA training benchmark
/// counts DeepSeek-V3's backward).
constexpr double flash_backward_factor(double qk, double v) { return (3.0 * qk + 2.0 * v) / (qk + v); }
/// Equal widths: 2.5.
inline constexpr double kFlashBackwardFactor = flash_backward_factor(1.0, 1.0);

LayerCosts layer_costs(const TransformerSpec& model, const ParallelismSpec& parallelism,
                       const TrainingSpec& training);
/// A mixture-of-experts layer (moe.hpp) on one rank: the attention as layer_costs has it, then in
/// place of the dense MLP the router (a bf16 GEMM of hidden x experts and its softmax/top-k), the
/// permutation of the rank's tokens into expert order (a gather read and write of each routed
/// copy), the rank's experts/ep experts as two grouped GEMMs over the routed rows (the busiest
/// rank's: tokens x top-k x moe_load_imbalance), their activation, the weighted un-permutation,
/// and the shared experts as a tensor-parallel dense MLP. With sequence parallelism the router
/// sees the rank's tokens/tp, as Megatron-Core's MoE layer does. bf16 only (layout_rules.hpp).
LayerCosts moe_layer_costs(const TransformerSpec& model, const ParallelismSpec& parallelism,
                           const TrainingSpec& training);
/// Rows one rank's experts multiply in a MoE layer's pass: its tokens x top-k x the imbalance, at
/// most the capacity factor (tokens past it dropped), or exactly it when padded to capacity.
double moe_routed_rows(const TransformerSpec& model, const ParallelismSpec& parallelism,
                       const TrainingSpec& training);
HeadCosts head_costs(const TransformerSpec& model, const ParallelismSpec& parallelism,
                     const TrainingSpec& training);

double total_flops(std::span<const OpCost> ops);
double total_model_flops(std::span<const OpCost> ops);
double total_bytes(std::span<const OpCost> ops);

}  // namespace clustersim::models
