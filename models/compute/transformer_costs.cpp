#include "models/compute/transformer_costs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/spec/attention_shape.hpp"
#include "models/spec/framework.hpp"
#include "models/spec/moe.hpp"

namespace clustersim::models {
namespace {

constexpr double kActivationBytes = 2.0;   // bf16 activations and activation gradients
constexpr double kWeightGradBytes = 8.0;   // wgrad accumulates into the fp32 main grad: read + write

/// The per-rank dimensions every op is built from, computed once per call.
struct Dims {
  double tokens;       // b x s / cp: rows of every GEMM on this rank
  double kv_tokens;    // b x s: keys and values attention reads (all of them, with context parallel)
  double seqs;         // b: sequences of the micro-batch
  double queries;      // s / cp: queries per sequence on this rank
  double keys;         // s: keys each query scores against
  double heads;        // a / tp: query heads on this rank
  double head_dim;     // of a query and key head: h / a, or as model.head_dim / MLA set it
  double v_head_dim;   // of a value head
  double norm_tokens;  // tokens / tp with sequence parallelism, else tokens
  double hidden;
  double q_width;      // query columns on this rank: heads / tp x head_dim
  double out_width;    // attention output columns on this rank: heads / tp x v_head_dim
  double kv_width;     // key columns on this rank: ceil(g / tp) x head_dim (MLA: every head's)
  double v_width;      // value columns on this rank
  // Multi-head latent attention (attention_shape.hpp): the latents' widths, 0 without MLA.
  double q_latent;     // q_lora_rank (0: queries projected directly)
  double kv_latent;    // kv_lora_rank + qk_rope_head_dim: the down projection's output
  double kv_lora;      // kv_lora_rank: the up projection's input
  double ffn;          // f / tp
  double vocab;        // V / tp
  double cp_steps;     // attention calls per pass: one per context-parallel ring step
  double windowed;     // share of the layers attending a sliding window (attention_shape.hpp)
  double window;       // its keys
  AttentionKernel attention;
  double input_bytes;  // GEMM input bytes per element: 2 for bf16, 1 for fp8, 0.5625 for nvfp4
  double grad_input_bytes;  // the same for the dgrad and wgrad GEMMs (2 with fp8_backward false)
  bool bf16_backward;       // fp8 forward GEMMs, bf16 dgrad and wgrad GEMMs (fp8_backward false)
  double fp8_gemm_rate;     // fp8 GEMM throughput relative to per-tensor scaling (recipe_gemm_rate)
  bool swiglu;
  bool eager;          // elementwise ops as plain PyTorch ops (ElementwiseKernels::eager)
  double rope_width;   // columns RoPE rotates op by op a token on this rank; 0 where fused or none
  bool qk_norm;        // QK-Norm over the q_width + kv_width columns (TransformerSpec::qk_norm)
  bool alibi;          // ALiBi's bias on the scores (TransformerSpec::alibi)
  bool dropout;        // the model trains with dropout (TransformerSpec::dropout > 0)
  bool separate_qkv;      // q, k and v projected by three linears (FrameworkParameters::fused_qkv false; not mla)
  bool separate_gate_up;  // SwiGLU's gate and up by two (FrameworkParameters::fused_gate_up false)
  bool repeat_kv;         // k and v copied to the query heads before the kernel (copies_kv_groups)
  bool fp8_attention;     // cuDNN's FP8 attention kernel (TrainingSpec::fp8_attention)
};

/// Hopper fp8 GEMM throughput with DeepSeek-V3 block scales (1 x 128 on the activation and
/// gradient operand, 128 x 128 on the weight) over the same GEMM with per-tensor (or per-row)
/// scales, which a GEMM applies once in its epilogue: block scales vary along the reduction
/// dimension, so the main loop rescales every 128-deep partial sum in CUDA cores. Measured on
/// H100 500 W, GEMM alone (pytorch/FBGEMM pull request 2546, fp8 "block gemm only" over "row gemm
/// only"): 870.40 / 1125.51 TF/s at 8192^3, 828.34 / 1082.75 at (65536, 8192, 7168), 828.31 /
/// 1141.38 at (65536, 3584, 8192): 0.773, 0.765, 0.726, mean 0.755. Newer kernels narrow the gap
/// (DeepGEMM reaches 1550 TF/s on H800 at its best shapes), so this is the slow end for cuBLAS
/// 12.9's block-scaled GEMM that Transformer Engine's Float8BlockScaling calls.
constexpr double kBlockScaledGemmRate = (870.40 / 1125.51 + 828.34 / 1082.75 + 828.31 / 1141.38) / 3.0;

/// The fp8 GEMM rate of a recipe relative to per-tensor scaling. MXFP8's 1 x 32 scales are applied
/// by Blackwell's block-scaled MMA instructions (PTX tcgen05.mma kind::mxf8f6f4), at the fp8 rate.
double recipe_gemm_rate(Fp8Recipe recipe) {
  return recipe == Fp8Recipe::blockwise ? kBlockScaledGemmRate : 1.0;
}

Dims dims_of(const TransformerSpec& model, const ParallelismSpec& par, const TrainingSpec& training) {
  const auto tp = static_cast<double>(par.tp);
  const auto cp = static_cast<double>(par.cp);
  const double seqs = static_cast<double>(training.micro_batch);
  const double s = static_cast<double>(training.seq_len);
  const double h = static_cast<double>(model.hidden);
  const auto head_dim = static_cast<double>(qk_head_dim(model));
  const auto v_head_dim = static_cast<double>(value_head_dim(model));
  // Megatron-LM replicates k/v heads when there are fewer of them than TP ranks.
  const std::int64_t kv_heads = attention_kv_heads(model);
  const std::int64_t kv_heads_per_rank = (kv_heads + par.tp - 1) / par.tp;
  const double heads = static_cast<double>(model.heads) / tp;
  const bool mla = is_mla(model);
  const double tokens = seqs * s / cp;
  const double q_width = heads * head_dim;
  const double kv_width = static_cast<double>(kv_heads_per_rank) * head_dim;
  // RoPE rotates every query and key head, or under MLA each query head's rope part and the one
  // rope key all heads share.
  const auto rope_dim = static_cast<double>(model.qk_rope_head_dim);
  const double rotated = !rotary_positions(model) ? 0.0 : mla ? heads * rope_dim + rope_dim : q_width + kv_width;
  const FrameworkParameters& set = framework_parameters(training.framework);
  return {
      .tokens = tokens,
      .kv_tokens = seqs * s,
      .seqs = seqs,
      .queries = s / cp,
      .keys = s,
      .heads = heads,
      .head_dim = head_dim,
      .v_head_dim = v_head_dim,
      .norm_tokens = par.sp ? tokens / tp : tokens,
      .hidden = h,
      .q_width = q_width,
      .out_width = heads * v_head_dim,
      .kv_width = kv_width,
      .v_width = static_cast<double>(kv_heads_per_rank) * v_head_dim,
      .q_latent = mla ? static_cast<double>(model.q_lora_rank) : 0.0,
      .kv_latent = mla ? static_cast<double>(model.kv_lora_rank + model.qk_rope_head_dim) : 0.0,
      .kv_lora = mla ? static_cast<double>(model.kv_lora_rank) : 0.0,
      .ffn = static_cast<double>(model.ffn_hidden) / tp,
      .vocab = static_cast<double>(model.vocab) / tp,
      .cp_steps = cp,
      .windowed = windowed_layer_fraction(model),
      .window = static_cast<double>(model.sliding_window),
      .attention = training.attention,
      .input_bytes = gemm_input_bytes(training.precision),
      .grad_input_bytes = training.fp8_backward ? gemm_input_bytes(training.precision) : 2.0,
      .bf16_backward = low_precision_gemms(training.precision) && !training.fp8_backward,
      .fp8_gemm_rate = recipe_gemm_rate(training.fp8_recipe),
      .swiglu = model.mlp == MlpKind::swiglu,
      .eager = training.elementwise == ElementwiseKernels::eager,
      .rope_width = training.rope_fusion ? 0.0 : rotated,
      .qk_norm = model.qk_norm,
      .alibi = model.alibi,
      .dropout = model.dropout > 0.0,
      .separate_qkv = !mla && !set.fused_qkv.value,
      .separate_gate_up = model.mlp == MlpKind::swiglu && !set.fused_gate_up.value,
      .repeat_kv = copies_kv_groups(model, training.repeat_kv),
      .fp8_attention = training.fp8_attention,
  };
}

int to_int(double x) { return static_cast<int>(std::llround(x)); }

/// C[m x n] = A[m x k] B[k x n]: reads both inputs, writes a bf16 output.
OpCost gemm_forward(std::string_view name, const Dims& d, double m, double n, double k) {
  const double flops = 2.0 * m * n * k;
  return {.name = name, .kind = OpKind::gemm, .flops = flops, .model_flops = flops,
          .bytes = (m * k + k * n) * d.input_bytes + m * n * kActivationBytes,
          .gemm_m = to_int(m), .gemm_n = to_int(n), .gemm_k = to_int(k), .fp8_rate = d.fp8_gemm_rate};
}

/// dX[m x k] = dY[m x n] W^T: same FLOPs as the forward, shape (m, k, n).
OpCost gemm_dgrad(std::string_view name, const Dims& d, double m, double n, double k) {
  const double flops = 2.0 * m * n * k;
  return {.name = name, .kind = OpKind::gemm, .flops = flops, .model_flops = flops,
          .bytes = (m * n + k * n) * d.grad_input_bytes + m * k * kActivationBytes,
          .gemm_m = to_int(m), .gemm_n = to_int(k), .gemm_k = to_int(n),
          .bf16_gemm = d.bf16_backward, .fp8_rate = d.fp8_gemm_rate};
}

/// dW[k x n] += X^T dY: the reduction runs over the tokens, shape (k, n, m).
OpCost gemm_wgrad(std::string_view name, const Dims& d, double m, double n, double k) {
  const double flops = 2.0 * m * n * k;
  return {.name = name, .kind = OpKind::gemm, .flops = flops, .model_flops = flops,
          .bytes = (m * k + m * n) * d.grad_input_bytes + k * n * kWeightGradBytes,
          .gemm_m = to_int(k), .gemm_n = to_int(n), .gemm_k = to_int(m),
          .bf16_gemm = d.bf16_backward, .fp8_rate = d.fp8_gemm_rate};
}

/// A linear layer's input- and weight-gradient GEMMs over the rank's tokens, marked as a
/// column-parallel layer's where it is one.
void add_linear_backward(OpList& ops, const Dims& d, std::string_view dgrad, std::string_view wgrad, double n, double k,
                         bool column_parallel) {
  OpCost input_grad = gemm_dgrad(dgrad, d, d.tokens, n, k), weight_grad = gemm_wgrad(wgrad, d, d.tokens, n, k);
  if (column_parallel) {
    input_grad.column_grad = ColumnParallelGrad::input_grad;
    weight_grad.column_grad = ColumnParallelGrad::weight_grad;
  }
  ops.push_back(input_grad);
  ops.push_back(weight_grad);
}

/// Keys FlashAttention's forward and backward take per tile on Hopper and Ampere (kBlockN for head
/// dims up to 128 in FlashAttention-2's and -3's kernel traits).
constexpr double kKeyBlock = 128.0;

OpCost attention_forward(const Dims& d) {
  // Scores Q K^T and probabilities x V: 2 x tokens x s keys x (the rank's query-key width, then
  // its value width) FLOPs; 4 x tokens x s x h / tp when heads are h / a wide.
  const double full = 2.0 * d.tokens * d.keys * (d.q_width + d.out_width);
  // Reads Q, K, V once and writes O plus the fp32 log-sum-exp per query and head: the minimum
  // traffic of a flash kernel (K/V re-reads across query blocks are assumed to hit L2).
  const double q_and_o = d.tokens * (d.q_width + d.out_width) * kActivationBytes;
  const double kv_read = d.repeat_kv ? d.q_width + d.out_width : d.kv_width + d.v_width;
  const double k_and_v = d.kv_tokens * kv_read * kActivationBytes;
  double executed = kCausalFraction * full;
  if (d.windowed > 0.0 && d.window < d.keys) {
    // A banded layer computes each query tile against the key tiles its window touches,
    // ceil(w / 128) + 1 tiles of 128 keys (FlashAttention's key block), of the s it would score.
    const double computed_keys = std::min(d.keys, (std::ceil(d.window / kKeyBlock) + 1.0) * kKeyBlock);
    const double banded_full = full * d.window / d.keys;  // model FLOPs: the window's keys alone
    executed = (1.0 - d.windowed) * executed + d.windowed * full * computed_keys / d.keys;
    const double model_full = (1.0 - d.windowed) * full + d.windowed * banded_full;
    const int calls = to_int(d.cp_steps);
    return {.name = "attention", .kind = OpKind::attention, .flops = executed, .model_flops = model_full,
            .bytes = q_and_o + k_and_v, .kernels = calls, .attention_kernel = d.attention,
            .attention_dropout = d.dropout, .attention_fp8 = d.fp8_attention, .attention_keys = d.keys / d.cp_steps};
  }
  const int calls = to_int(d.cp_steps);
  return {.name = "attention", .kind = OpKind::attention, .flops = executed, .model_flops = full,
          .bytes = q_and_o + k_and_v, .kernels = calls, .attention_kernel = d.attention,
          .attention_dropout = d.dropout, .attention_fp8 = d.fp8_attention, .attention_keys = d.keys / d.cp_steps};
}

OpCost attention_backward(const Dims& d) {
  const OpCost fwd = attention_forward(d);
  // Reads Q, K, V, O, dO; writes dQ, dK, dV: twice the forward's q/o and k/v traffic.
  // Two kernels: the dO.O row-sum preprocessing and the main backward kernel.
  return {.name = "attention_bwd", .kind = OpKind::attention,
          .flops = flash_backward_factor(d.q_width, d.out_width) * fwd.flops, .model_flops = 2.0 * fwd.model_flops,
          .bytes = 2.0 * fwd.bytes, .kernels = 2 * fwd.kernels, .attention_kernel = fwd.attention_kernel,
          .attention_dropout = fwd.attention_dropout, .attention_fp8 = fwd.attention_fp8,
          .attention_keys = fwd.attention_keys, .attention_backward = true};
}

/// One batched GEMM of the unfused attention: (b x heads) problems C[m x n] = A[m x k] B[k x n],
/// every operand a bf16 activation read from and written to HBM. Full, not causal: the kernel
/// computes the masked half too.
OpCost attention_gemm(std::string_view name, const Dims& d, double m, double n, double k) {
  const double batch = d.seqs * d.heads;
  const double flops = 2.0 * batch * m * n * k;
  return {.name = name, .kind = OpKind::attention_gemm, .flops = flops, .model_flops = flops,
          .bytes = batch * (m * k + k * n + m * n) * kActivationBytes,
          .gemm_m = to_int(batch * m), .gemm_n = to_int(n), .gemm_k = to_int(k)};
}

/// A memory-bound pass over the rank's b x heads x s/cp x s scores, `bytes_per_score` read + written.
OpCost score_pass(std::string_view name, const Dims& d, double bytes_per_score, double flops_per_score) {
  const double scores = d.seqs * d.heads * d.queries * d.keys;
  return {.name = name, .kind = OpKind::elementwise, .flops = flops_per_score * scores,
          .model_flops = 0.0, .bytes = bytes_per_score * scores};
}

void add_attention_forward(OpList& ops, const Dims& d, AttentionKernel kernel) {
  if (kernel != AttentionKernel::unfused) {
    ops.push_back(attention_forward(d));
    return;
  }
  const double q = d.queries, k = d.keys, hd = d.head_dim, vd = d.v_head_dim;
  if (d.alibi) {
    // ALiBi's bias is the scores GEMM's input (Megatron-DeepSpeed's CoreAttention: baddbmm with
    // beta = 1 over the [b x heads, 1, s] bias, bigscience-workshop/Megatron-DeepSpeed
    // megatron/model/transformer.py, from c839a8a, 2021-09-24): PyTorch first copies the broadcast
    // bias into the output, a 2-byte write of every score, and the GEMM reads it back.
    ops.push_back(score_pass("attention_alibi_bias", d, 2.0, 0.0));
    OpCost scores = attention_gemm("attention_scores", d, q, k, hd);
    scores.bytes += d.seqs * d.heads * q * k * kActivationBytes;
    ops.push_back(scores);
  } else {
    ops.push_back(attention_gemm("attention_scores", d, q, k, hd));  // Q K^T
  }
  // Fused scale-mask-softmax reads the scores and writes the probabilities (2 + 2 bytes).
  ops.push_back(score_pass("attention_softmax", d, 4.0, 5.0));
  // Dropout reads the probabilities, writes them and the 1-byte mask (2 + 2 + 1 bytes); at p = 0
  // PyTorch's dropout returns its input untouched.
  if (d.dropout) ops.push_back(score_pass("attention_dropout", d, 5.0, 2.0));
  ops.push_back(attention_gemm("attention_values", d, q, vd, k));  // probs V
}

void add_attention_backward(OpList& ops, const Dims& d, AttentionKernel kernel) {
  if (kernel != AttentionKernel::unfused) {
    ops.push_back(attention_backward(d));
    return;
  }
  const double q = d.queries, k = d.keys, hd = d.head_dim, vd = d.v_head_dim;
  ops.push_back(attention_gemm("attention_values_dprobs", d, q, k, vd));  // dContext V^T
  ops.push_back(attention_gemm("attention_values_dv", d, k, vd, q));      // probs^T dContext
  // Dropout backward reads the gradient and the mask, writes the gradient (2 + 1 + 2 bytes).
  if (d.dropout) ops.push_back(score_pass("attention_dropout_bwd", d, 5.0, 1.0));
  // Softmax backward reads the gradient and the saved output, writes the gradient (2 + 2 + 2 bytes).
  ops.push_back(score_pass("attention_softmax_bwd", d, 6.0, 4.0));
  ops.push_back(attention_gemm("attention_scores_dq", d, q, hd, k));  // dScores K
  ops.push_back(attention_gemm("attention_scores_dk", d, k, hd, q));  // dScores^T Q
}

/// Rotary position embeddings op by op, as Meta's reference Llama code writes them (torchtitan's
/// and NeMo Automodel's DeepSeek-V3 take the same form): x.float() reads 2 B and writes 4, the
/// complex multiply by the precomputed frequencies reads 4 and writes 4, the cast back reads 4 and
/// writes 2, three kernels for the queries and three for the keys. (The rotate-half form of
/// Automodel's GPT-OSS and Qwen3, chunk, four products, a sum, a difference and a cat in bf16,
/// moves 18 B an element in 7 kernels.)
constexpr double kRopeBytes = 20.0;
constexpr int kRopeKernels = 3;

/// RMSNorm op by op in PyTorch (torchtitan's models/norms.py): x.float() 2 + 4, pow(2) 4 + 4,
/// mean 4, x * rsqrt 4 + 4, type_as 4 + 2, * weight 2 + 2: 36 B an element in 8 kernels with the eps
/// add and the rsqrt.
constexpr double kEagerRmsNormBytes = 36.0;
constexpr int kEagerRmsNormKernels = 8;

/// RoPE applied op by op (training.rope_fusion false): an op of its own beside fused norms, a part
/// of the eager ones. Its backward takes the same three steps on the gradient (the cast, the
/// multiply by the conjugate frequencies, the cast back): the same traffic, once.
OpCost rope_forward(const Dims& d) {
  const double elements = d.tokens * d.rope_width;
  return {.name = "rope", .kind = OpKind::elementwise, .flops = 6.0 * elements, .model_flops = 0.0,
          .bytes = kRopeBytes * elements, .kernels = d.rope_width > 0.0 ? 2 * kRopeKernels : 0};
}
bool rope_op(const Dims& d) { return d.rope_width > 0.0 && !d.eager; }
OpCost rope_backward(const Dims& d) {
  OpCost op = rope_forward(d);
  op.name = "rope_bwd";
  return op;
}

/// repeat_kv beside fused kernels (training.repeat_kv; the eager ops count it among theirs): the
/// expand-and-reshape that copies the rank's keys and values to the query heads. Compiled, the keys'
/// copy is RoPE's own kernel writing the query width instead of the key width (q - kv more bytes
/// written) and the values' a kernel of its own, reading them from their GEMM and writing them
/// repeated (v + out), 2 B each; its backward sums each copy's gradient back into its group, the
/// same traffic.
OpCost kv_copy_forward(const Dims& d) {
  const double bytes = d.tokens * (d.q_width - d.kv_width + d.v_width + d.out_width) * kActivationBytes;
  return {.name = "repeat_kv", .kind = OpKind::elementwise, .model_flops = 0.0, .bytes = bytes, .kernels = 1};
}
bool kv_copy_op(const Dims& d) { return d.repeat_kv && !d.eager; }
OpCost kv_copy_backward(const Dims& d) {
  OpCost op = kv_copy_forward(d);
  op.name = "repeat_kv_bwd";
  op.flops = d.tokens * (d.q_width + d.out_width);
  return op;
}

/// The elementwise ops of elementwise_forward (below) as plain PyTorch runs them without
/// torch.compile, one kernel per op (torchtitan's
/// Llama: models/llama/model.py and models/norms.py), bytes read + written per element:
/// - RMSNorm, twice, on norm_tokens x h (kEagerRmsNormBytes); with QK-Norm the same on the query
///   and on the key columns;
/// - two residual adds on norm_tokens x h: 4 + 2 B each;
/// - RoPE (rope_forward) on the rotated columns of q and k, where it is not fused;
/// - repeat_kv (training.repeat_kv, a rank with fewer k/v heads than query heads): k and v expanded
///   to the query width and copied (reads 2 x kv, writes 2 x q per token, 2 B each);
/// - the attention output's transpose(1, 2).contiguous(): 2 + 2 B on tokens x q;
/// - SwiGLU as silu(w1 x) * w3 x: silu 2 + 2, multiply 4 + 2 on tokens x f/tp (GELU: 2 + 2).
/// The fused version costs none of RoPE, the k/v copy or the transpose (Megatron-LM and TE fuse them
/// or lay out q, k, v so that no copy is needed).
OpCost elementwise_forward_eager(const Dims& d) {
  const double hidden_elems = d.norm_tokens * d.hidden;
  const double qk_norm_elems = d.qk_norm ? d.tokens * (d.q_width + d.kv_width) : 0.0;
  const OpCost rope = rope_forward(d);
  double bytes = (2.0 * hidden_elems + qk_norm_elems) * kEagerRmsNormBytes + 2.0 * 6.0 * hidden_elems + rope.bytes;
  if (d.repeat_kv) bytes += 2.0 * d.tokens * (d.kv_width + d.q_width) * kActivationBytes;
  bytes += d.tokens * d.q_width * 4.0;
  bytes += d.tokens * d.ffn * (d.swiglu ? 10.0 : 4.0);
  const double flops =
      (2.0 * hidden_elems + qk_norm_elems) * 5.0 + 2.0 * hidden_elems + rope.flops + d.tokens * d.ffn * 8.0;
  const int norms = 2 + (d.qk_norm ? 2 : 0);
  const int kernels = norms * kEagerRmsNormKernels + 2 + rope.kernels + (d.repeat_kv ? 2 : 0) + 1 + (d.swiglu ? 2 : 1);
  return {.name = "norms_elementwise", .kind = OpKind::elementwise, .flops = flops,
          .model_flops = 0.0, .bytes = bytes, .kernels = kernels};
}

/// Layer norms, two residual adds fused with dropout (Megatron-LM's bias-dropout-add) and the MLP
/// activation, lumped into one memory-bound op. Norms and adds run on norm_tokens x h, the activation
/// on tokens x f/tp, QK-Norm's two fused norms on the query and key columns (read and write, 2 B
/// each). Vector FLOPs are a rough count (they do not set the time). `fp8_norms`: how
/// many of the two norms write their output as the next GEMM's fp8 operand (1 B an element, not 2:
/// norm_writes_fp8_inputs).
OpCost elementwise_forward(const Dims& d, double fp8_norms = 0.0) {
  if (d.eager) return elementwise_forward_eager(d);
  const double hidden_elems = d.norm_tokens * d.hidden;
  const double act_in = d.tokens * d.ffn * (d.swiglu ? 2.0 : 1.0);
  const double act_out = d.tokens * d.ffn;
  // norm: read x, write y (2 x 2 B); residual add: read 2, write 1 (6 B), with dropout its 1-byte
  // mask (Megatron's bias_dropout_add calls F.dropout, which at p = 0 returns its input untouched).
  const double norm_writes = 2.0 * kActivationBytes - fp8_norms * (kActivationBytes - 1.0);
  const double residual_add = 3.0 * kActivationBytes + (d.dropout ? 1.0 : 0.0);
  const double qk_norm_elems = d.qk_norm ? d.tokens * (d.q_width + d.kv_width) : 0.0;
  const double bytes = hidden_elems * (2.0 * 2.0 + norm_writes + 2.0 * residual_add) +
                       (act_in + act_out + 2.0 * qk_norm_elems) * kActivationBytes;
  const double flops = hidden_elems * (2.0 * 5.0 + 2.0 * 2.0) + act_out * 8.0 + qk_norm_elems * 5.0;
  return {.name = "norms_elementwise", .kind = OpKind::elementwise, .flops = flops,
          .model_flops = 0.0, .bytes = bytes, .kernels = d.qk_norm ? 7 : 5};
}

/// Each backward elementwise kernel reads the saved input and the incoming gradient and writes the
/// input gradient: about twice the forward traffic.
OpCost elementwise_backward(const Dims& d) {
  OpCost op = elementwise_forward(d);
  op.name = "norms_elementwise_bwd";
  op.flops *= 2.0;
  op.bytes *= 2.0;
  return op;
}

struct LayerGemm {
  std::string_view fwd, dgrad, wgrad;
  double n, k;
};

std::array<LayerGemm, 4> layer_gemms(const Dims& d) {
  return {{
      {"qkv_proj", "qkv_proj_dgrad", "qkv_proj_wgrad", d.q_width + d.kv_width + d.v_width, d.hidden},
      {"out_proj", "out_proj_dgrad", "out_proj_wgrad", d.hidden, d.out_width},
      // SwiGLU's gate and up projections run as one GEMM of twice the width.
      {"mlp_up", "mlp_up_dgrad", "mlp_up_wgrad", d.ffn * (d.swiglu ? 2.0 : 1.0), d.hidden},
      {"mlp_down", "mlp_down_dgrad", "mlp_down_wgrad", d.hidden, d.ffn},
  }};
}

/// The projections into the attention: one fused QKV GEMM, three where the model code keeps q, k
/// and v apart (Dims::separate_qkv), or with multi-head latent attention (attention_shape.hpp) the
/// query's and the keys' and values' down and up projections; the down projections are whole on
/// every TP rank, the others column-parallel.
struct Projection {
  std::string_view fwd, dgrad, wgrad;
  double n, k;
  bool column_parallel = true;
};

int attention_projections(const Dims& d, const LayerGemm& qkv, std::array<Projection, 4>& out) {
  if (d.separate_qkv) {
    out[0] = {"q_proj", "q_proj_dgrad", "q_proj_wgrad", d.q_width, d.hidden};
    out[1] = {"k_proj", "k_proj_dgrad", "k_proj_wgrad", d.kv_width, d.hidden};
    out[2] = {"v_proj", "v_proj_dgrad", "v_proj_wgrad", d.v_width, d.hidden};
    return 3;
  }
  if (d.kv_latent <= 0.0) {
    out[0] = {qkv.fwd, qkv.dgrad, qkv.wgrad, qkv.n, qkv.k};
    return 1;
  }
  int n = 0;
  if (d.q_latent > 0.0) {
    out[n++] = {"q_down_proj", "q_down_proj_dgrad", "q_down_proj_wgrad", d.q_latent, d.hidden, false};
    out[n++] = {"q_up_proj", "q_up_proj_dgrad", "q_up_proj_wgrad", d.q_width, d.q_latent};
  } else {
    out[n++] = {"q_proj", "q_proj_dgrad", "q_proj_wgrad", d.q_width, d.hidden};
  }
  const double rope = d.kv_latent - d.kv_lora;
  out[n++] = {"kv_down_proj", "kv_down_proj_dgrad", "kv_down_proj_wgrad", d.kv_latent, d.hidden, false};
  out[n++] = {"kv_up_proj", "kv_up_proj_dgrad", "kv_up_proj_wgrad", d.kv_width - d.heads * rope + d.v_width, d.kv_lora};
  return n;
}

void add_projections_forward(OpList& ops, const Dims& d, const LayerGemm& qkv) {
  std::array<Projection, 4> p{};
  const int n = attention_projections(d, qkv, p);
  for (int i = 0; i < n; ++i) ops.push_back(gemm_forward(p[i].fwd, d, d.tokens, p[i].n, p[i].k));
}

/// Autograd's sum of the input gradients of `linears` separate linear layers that read one
/// tokens x hidden input (the rank's gathered rows under sequence parallelism), in bf16: eager
/// PyTorch adds each arriving gradient into the buffer (linears - 1 adds, each reading two tensors
/// and writing one); under torch.compile the backward graph's sum is one kernel reading every
/// gradient and writing the total.
OpCost input_grad_sum(std::string_view name, const Dims& d, int linears) {
  const double elements = d.tokens * d.hidden;
  const double passes = d.eager ? 3.0 * (linears - 1) : linears + 1.0;
  return {.name = name, .kind = OpKind::elementwise, .flops = (linears - 1.0) * elements, .model_flops = 0.0,
          .bytes = passes * elements * kActivationBytes, .kernels = d.eager ? linears - 1 : 1};
}

void add_projections_backward(OpList& ops, const Dims& d, const LayerGemm& qkv) {
  std::array<Projection, 4> p{};
  const int n = attention_projections(d, qkv, p);
  for (int i = n - 1; i >= 0; --i) add_linear_backward(ops, d, p[i].dgrad, p[i].wgrad, p[i].n, p[i].k, p[i].column_parallel);
  if (d.separate_qkv) ops.push_back(input_grad_sum("qkv_input_grad_sum", d, n));
}

/// SwiGLU's gate and up projections: one GEMM of twice the width, or two of the FFN width where
/// the model code keeps them apart (Dims::separate_gate_up), whose input gradients autograd sums.
struct GemmNames {
  std::string_view fwd, dgrad, wgrad;
};
constexpr GemmNames kMlpGate{"mlp_gate", "mlp_gate_dgrad", "mlp_gate_wgrad"};
constexpr GemmNames kSharedGate{"shared_gate", "shared_dgrad", "shared_wgrad"};

void add_up_forward(OpList& ops, const Dims& d, const LayerGemm& up, const GemmNames& gate) {
  if (!d.separate_gate_up) {
    ops.push_back(gemm_forward(up.fwd, d, d.tokens, up.n, up.k));
    return;
  }
  ops.push_back(gemm_forward(gate.fwd, d, d.tokens, d.ffn, up.k));
  ops.push_back(gemm_forward(up.fwd, d, d.tokens, d.ffn, up.k));
}

void add_up_backward(OpList& ops, const Dims& d, const LayerGemm& up, const GemmNames& gate) {
  if (!d.separate_gate_up) {
    add_linear_backward(ops, d, up.dgrad, up.wgrad, up.n, up.k, true);
    return;
  }
  add_linear_backward(ops, d, up.dgrad, up.wgrad, d.ffn, up.k, true);
  add_linear_backward(ops, d, gate.dgrad, gate.wgrad, d.ffn, up.k, true);
  ops.push_back(input_grad_sum("mlp_input_grad_sum", d, 2));
}

/// The fp8 casts around the linear layers. An fp8 GEMM takes fp8 operands, and Hopper's fp8 tensor
/// cores only run the TN layout, so every activation entering a linear layer is cast from bf16 and
/// also stored transposed (the wgrad GEMM needs X^T), in the backward every output gradient
/// likewise (dgrad needs dY, wgrad dY^T), and every weight (the forward needs W, dgrad W^T).
/// A cast reads the bf16 tensor (2 B per element) and writes each fp8 copy it makes (1 B) with its
/// scales; which copies and scales, and what comes before it, is the recipe's:
/// - delayed (Transformer Engine's cast_transpose): the scale comes from the amax history, the
///   tensor's new amax is reduced inside the cast kernel. One kernel per cast.
/// - current: the scale comes from the tensor's own amax, so an amax kernel reads the bf16 tensor
///   first (2 B per element) and a one-thread kernel turns the amax into a scale: 3 kernels per
///   cast (Transformer Engine's Float8CurrentScalingQuantizer: compute amax, scale from amax,
///   cast; torchao's tensorwise dynamic scaling: an abs-max reduction before its cast).
/// - blockwise: fp32 scales (4 B) per 1 x 128 block of an activation or gradient, per 128 x 128
///   block of a weight; the block amax is taken inside the cast. The transposed copy's 1 x 128
///   blocks run along the other dimension, so it is quantised from the bf16 tensor too: one read,
///   two fp8 copies each with its scales (Transformer Engine's Float8BlockQuantizer, rowwise and
///   columnwise usage).
/// - mxfp8: one E8M0 scale (1 B) per 1 x 32 block, both copies quantised from the bf16 tensor, as
///   for blockwise (Transformer Engine's MXFP8Quantizer, rowwise and columnwise).
/// With sequence parallelism the operands whose rows are sharded (the inputs of the column-parallel
/// qkv and mlp_up, the output gradients of the row-parallel out_proj and mlp_down) are cast on the
/// rank's own rows and gathered in fp8. Per-tensor recipes transpose after the gather (1 B read,
/// 1 B written over all the rows); block recipes quantise both copies on their own rows.
/// fp8_backward false (fp8 forward GEMMs, bf16 dgrad and wgrad): the casts make only the forward's
/// copy and the output gradients are not cast; the backward GEMMs read the bf16 tensors.
constexpr double kBf16ReadBytes = 2.0;   // a cast, or an amax pass, reads the bf16 source
constexpr double kFp8Bytes = 1.0;        // one fp8 copy of an element
constexpr double kTransposeBytes = 1.0 + 1.0;  // an fp8 transpose after the gather: read + write
constexpr double kFp32ScaleBytes = 4.0;  // Float8BlockScaling's scales (DeepSeek-V3: fp32)
constexpr double kActivationBlock = 128.0;          // 1 x 128 blocks (DeepSeek-V3 section 3.3.2)
constexpr double kWeightBlock = 128.0 * 128.0;      // 128 x 128 blocks
constexpr double kE8m0ScaleBytes = 1.0;  // MXFP8 (OCP Microscaling spec): E8M0 scale per 32 values
constexpr double kMxBlock = 32.0;
/// Delayed scaling's per-tensor amax history: Transformer Engine's DelayedScaling default
/// amax_history_len = 1024 (NeMo's fp8 configs set the same), fp32.
constexpr double kAmaxHistoryLength = 1024.0;
constexpr double kFp32Bytes = 4.0;

/// How one recipe casts a tensor.
struct CastRecipe {
  double amax_pass_bytes;  // read before the cast to find the amax (current scaling)
  double copy_bytes;       // one fp8 copy of an element with its share of the scales
  bool block_scaled;       // both copies quantised from bf16 (no fp8 transpose)
  int kernels;             // kernels per cast

  // HBM bytes per element of a cast that reads its bf16 source once and writes `copies` copies.
  double bytes_per_element(int copies) const { return amax_pass_bytes + kBf16ReadBytes + copies * copy_bytes; }
};

CastRecipe cast_recipe(const TrainingSpec& t, bool weight) {
  // NVFP4: the per-tensor fp32 scale comes from the tensor's amax (a read pass and its kernel
  // first, as current scaling), the 1 x 16 block scales inside the quantise kernel, which writes
  // both copies from the bf16 tensor (NVFP4Quantizer, rowwise and columnwise; weights take 1 x 16
  // blocks too while 2D quantisation is off, NVTE_NVFP4_DISABLE_2D_QUANTIZATION).
  if (t.precision == Precision::nvfp4) return {kBf16ReadBytes, gemm_input_bytes(Precision::nvfp4), true, 2};
  switch (t.fp8_recipe) {
    case Fp8Recipe::delayed: return {0.0, kFp8Bytes, false, 1};
    case Fp8Recipe::current: return {kBf16ReadBytes, kFp8Bytes, false, 3};
    case Fp8Recipe::blockwise:
      return {0.0, kFp8Bytes + kFp32ScaleBytes / (weight ? kWeightBlock : kActivationBlock), true, 1};
    case Fp8Recipe::mxfp8: return {0.0, kFp8Bytes + kE8m0ScaleBytes / kMxBlock, true, 1};
  }
  return {};
}

/// HBM bytes of casting a rows x width operand into `copies` fp8 copies (2: the operand and its
/// transpose, 1: the forward's copy alone), its rows sharded tp ways before a gather or not.
double fp8_cast_bytes(const Dims& d, const CastRecipe& r, double width, bool rows_sharded, int copies) {
  const bool sharded = rows_sharded && d.norm_tokens != d.tokens;
  const double own_rows = (sharded ? d.norm_tokens : d.tokens) * width;
  if (r.block_scaled || !sharded) return own_rows * r.bytes_per_element(copies);
  const double transposed = copies > 1 ? d.tokens * width * kTransposeBytes : 0.0;
  return own_rows * r.bytes_per_element(1) + transposed;
}

/// Whether the norms before the qkv and mlp_up projections write those GEMMs' fp8 inputs
/// themselves: Megatron-Core's Transformer Engine layers (framework.hpp norm_writes_fp8_inputs)
/// under delayed scaling, whose scale is known before the norm runs, with fp8 in the backward
/// (without it the wgrad GEMM wants the input in bf16), and a qkv projection that follows the norm
/// (multi-head latent attention's down projections take a separate norm's output).
struct NormFusedCasts {
  bool qkv = false;
  bool up = false;
};

NormFusedCasts norm_fused_casts(const Dims& d, const TrainingSpec& t) {
  const bool fused = t.precision == Precision::fp8 && t.fp8_recipe == Fp8Recipe::delayed && t.fp8_backward &&
                     framework_parameters(t.framework).norm_writes_fp8_inputs.value && !d.eager;
  return {.qkv = fused && d.kv_latent == 0.0 && d.q_latent == 0.0, .up = fused};
}

/// Multi-head latent attention's projection casts as Megatron-Core runs them: the down projections,
/// whole on every TP rank, read the rank's own rows of the layer input (under sequence parallelism
/// its shard, the latents gathered after them); the up projections read the gathered latents; a
/// query projection without a latent casts its shard before the gather as a dense qkv does. Each
/// cast reads its bf16 rows once for every copy. Forward: the inputs; backward: the output gradients.
double mla_cast_bytes(const Dims& d, const LayerGemm& qkv, const CastRecipe& r, int copies, bool backward,
                      int& kernels) {
  std::array<Projection, 4> projections{};
  const int n = attention_projections(d, qkv, projections);
  const double per_element = r.bytes_per_element(copies);
  double bytes = 0.0;
  for (int i = 0; i < n; ++i) {
    const Projection& p = projections[static_cast<std::size_t>(i)];
    const double width = backward ? p.n : p.k;
    if (!p.column_parallel)
      bytes += d.norm_tokens * width * per_element;
    else if (!backward && p.k == d.hidden)
      bytes += fp8_cast_bytes(d, r, width, true, copies);
    else
      bytes += d.tokens * width * per_element;
    kernels += r.kernels;
  }
  return bytes;
}

/// A layer's activation casts: in the forward the GEMMs' inputs (k wide; rows sharded for the
/// column-parallel qkv and mlp_up), in the backward their output gradients (n wide; rows sharded
/// for the row-parallel out_proj and mlp_down). An input its norm wrote in fp8 (`fused`) needs no
/// cast; the backward transposes its fp8 copy, gathered under sequence parallelism, for the
/// wgrad GEMM (Transformer Engine's LayerNormLinear: tex.fp8_transpose of ln_out_total).
/// `mlp`: whether the layer has the up and down GEMMs (a mixture-of-experts layer without shared
/// experts has none; its routed experts cast their own rows, expert_fp8_casts).
OpCost fp8_casts(const std::array<LayerGemm, 4>& gemms, const Dims& d, const TrainingSpec& t, bool backward,
                 NormFusedCasts fused, bool mlp = true) {
  const auto& [qkv, out, up, down] = gemms;
  const CastRecipe r = cast_recipe(t, false);
  const int copies = t.fp8_backward ? 2 : 1;
  const auto cast = [&](const LayerGemm& g, bool column_parallel) {
    return fp8_cast_bytes(d, r, backward ? g.n : g.k, backward != column_parallel, copies);
  };
  double bytes = cast(out, false) + (mlp ? cast(down, false) : 0.0);
  int kernels = (mlp ? 2 : 1) * r.kernels;
  if (d.fp8_attention) {
    // FP8 attention casts its own inputs with per-tensor current scaling (an amax read, the read
    // and the 1-byte write, 3 kernels a tensor): Q, K and V before the forward, the output
    // gradient before the backward; its output stays bf16 (NVTE_DPA_FP8CS_O_in_F16).
    constexpr double kCurrentScalingCastBytes = 2.0 + 2.0 + 1.0;
    const double width = backward ? d.out_width : d.q_width + d.kv_width + d.v_width;
    bytes += d.tokens * width * kCurrentScalingCastBytes;
    kernels += backward ? 3 : 9;
  }
  const bool latent = d.kv_latent > 0.0;
  if (latent) bytes += mla_cast_bytes(d, qkv, r, copies, backward, kernels);
  for (const auto& [gemm, by_norm] : {std::pair{&qkv, fused.qkv}, std::pair{&up, fused.up}}) {
    if ((gemm == &up && !mlp) || (gemm == &qkv && latent)) continue;
    if (!by_norm) {
      bytes += cast(*gemm, true);
      kernels += r.kernels;
    } else if (backward) {
      bytes += cast(*gemm, true) + d.tokens * gemm->k * kTransposeBytes;
      kernels += r.kernels + 1;
    }
  }
  return {.name = backward ? "fp8_cast_bwd" : "fp8_cast", .kind = OpKind::elementwise, .bytes = bytes,
          .kernels = kernels};
}

/// The weight elements of a layer's linear GEMMs on this rank: the attention's projections (the
/// fused qkv, separate q, k, v, or latent attention's), its output projection, and the MLP's up
/// and down (zero-sized where the layer has none).
double weight_elements(const Dims& d, const std::array<LayerGemm, 4>& gemms) {
  const auto& [qkv, out, up, down] = gemms;
  std::array<Projection, 4> projections{};
  const int n = attention_projections(d, qkv, projections);
  double elements = out.n * out.k + up.n * up.k + down.n * down.k;
  for (int i = 0; i < n; ++i) {
    const Projection& p = projections[static_cast<std::size_t>(i)];
    elements += p.n * p.k;
  }
  return elements;
}

/// The linear GEMMs of a layer's attention: its projections and the output projection.
double attention_gemm_count(const Dims& d, const LayerGemm& qkv) {
  std::array<Projection, 4> projections{};
  return attention_projections(d, qkv, projections) + 1.0;
}

/// The casts of a layer's `elements` weight elements (weight_elements). Megatron-LM passes
/// is_first_microbatch, so Transformer Engine casts the weights on a step's first micro-batch and
/// reuses the fp8 copies: the op carries 1/m of the bytes of a step of m micro-batches, and its
/// launches (4 casts once a step) are not counted. With ZeRO-3 the weights are gathered in bf16
/// for every micro-batch and cast after each gather (m = 1 here; the backward's re-gather reuses
/// the forward's copies, and an fp8 gather such as torchao's enable_fsdp_float8_all_gather,
/// which casts the shard before the gather, is not modelled).
OpCost fp8_weight_casts(double elements, const ParallelismSpec& p, const TrainingSpec& t) {
  const CastRecipe r = cast_recipe(t, true);
  const int copies = t.fp8_backward ? 2 : 1;
  const bool every_micro_batch = p.zero >= 3;
  const std::int64_t per_step = t.global_batch / std::max<std::int64_t>(1, p.dp * t.micro_batch);
  const double micro_batches = every_micro_batch ? 1.0 : static_cast<double>(std::max<std::int64_t>(1, per_step));
  // A weight is cast whole on every rank, so both copies come from one read (no gather between).
  const double per_element = r.bytes_per_element(copies);
  return {.name = "fp8_weight_cast", .kind = OpKind::elementwise, .bytes = elements * per_element / micro_batches,
          .kernels = every_micro_batch ? 4 * r.kernels : 0};
}

/// Delayed scaling's amax-history and scale update: Transformer Engine rolls every fp8 tensor's
/// history and recomputes its scale (nvte_delayed_scaling_recipe_amax_and_scale_update, read +
/// write of the history) after each micro-batch's forward and backward. The layer's share is its
/// `gemms` GEMMs' scales of input, weight and (with fp8_backward) output gradient (a dense layer
/// has 4; Transformer Engine's GroupedLinear keeps one set per expert); the update is one
/// multi-tensor kernel for all the layers of a model chunk, so no launch is counted per layer.
OpCost fp8_scale_update(const TrainingSpec& t, double gemms) {
  const double scales = gemms * (t.fp8_backward ? 3.0 : 2.0);
  return {.name = "fp8_scale_update", .kind = OpKind::elementwise,
          .bytes = scales * kAmaxHistoryLength * kFp32Bytes * 2.0, .kernels = 0};
}

OpCost without_model_flops(OpCost op) {
  op.model_flops = 0.0;
  return op;
}

/// The copies a framework that shards the sequence off NCCL's dimension makes around a layer's
/// sequence-parallel collectives (FrameworkParameters::tp_collectives_copy_sequence): each of its
/// two all-gathers (the attention's and the MLP's input; in the backward the output gradients)
/// re-concatenates the gathered b x s x h along the sequence, unless the micro-batch is one
/// sequence; each of its two reduce-scatters (the attention's and the MLP's output; in the
/// backward the input gradients) first concatenates its input's chunks, always. One read and one
/// write of the gathered tensor each, in the dtype it moves in. Eager PyTorch only: under
/// torch.compile (elementwise fused) Inductor may fold the concatenations into its own kernels,
/// and of torchtitan's two compiled TP 8 runs of June 2025 costing the copies takes Llama 3.1 8B
/// from 10 % too fast to 2 % and 70B from 1 % to 6 % too slow, so no copy is charged there. Async
/// TP's fused collectives are taken to need none either.
void add_sequence_copies(OpList& pass, const Dims& d, const ParallelismSpec& p, const TrainingSpec& t, bool backward) {
  if (!p.sp || p.tp <= 1 || p.tp_comm_overlap || !d.eager ||
      !framework_parameters(t.framework).tp_collectives_copy_sequence.value)
    return;
  const double elements = d.tokens * d.hidden;
  if (t.micro_batch > 1) {
    const double gathered_bytes = backward ? d.grad_input_bytes : d.input_bytes;
    pass.push_back({.name = backward ? "tp_gather_copy_bwd" : "tp_gather_copy", .kind = OpKind::elementwise,
                    .bytes = 2.0 * 2.0 * elements * gathered_bytes, .kernels = 2});
  }
  pass.push_back({.name = backward ? "tp_scatter_copy_bwd" : "tp_scatter_copy", .kind = OpKind::elementwise,
                  .bytes = 2.0 * 2.0 * elements * kActivationBytes, .kernels = 2});
}

/// Under tensor-parallel overlap where the framework sums a fused reduce-scatter's partial
/// outputs on the compute stream (FrameworkParameters::tp_overlap_reduces_on_stream): each such
/// collective reads every rank's partials of the whole gathered tensor and writes the rank's
/// shard, in the 16-bit output dtype. The forward's two (the attention's output projection and the
/// MLP's down projection), and in the backward the two input gradients' where the framework fuses
/// their reduce-scatters with the GEMMs that make them (tp_overlap_hides_input_grad_reduce).
void add_overlap_reductions(OpList& pass, const Dims& d, const ParallelismSpec& p, const TrainingSpec& t,
                            bool backward) {
  const FrameworkParameters& set = framework_parameters(t.framework);
  if (!p.sp || p.tp <= 1 || !p.tp_comm_overlap || !set.tp_overlap_reduces_on_stream.value) return;
  if (backward && !set.tp_overlap_hides_input_grad_reduce.value) return;
  const double elements = d.tokens * d.hidden;
  const double per_reduction = elements * kActivationBytes * (1.0 + 1.0 / static_cast<double>(p.tp));
  pass.push_back({.name = backward ? "tp_overlap_reduce_bwd" : "tp_overlap_reduce", .kind = OpKind::elementwise,
                  .flops = 2.0 * elements, .bytes = 2.0 * per_reduction, .kernels = 2});
}

}  // namespace

LayerCosts layer_costs(const TransformerSpec& model, const ParallelismSpec& parallelism,
                       const TrainingSpec& training) {
  const Dims d = dims_of(model, parallelism, training);
  const auto gemms = layer_gemms(d);
  const auto& [qkv, out, up, down] = gemms;
  LayerCosts costs;

  const bool cast = low_precision_gemms(training.precision);
  const NormFusedCasts by_norm = norm_fused_casts(d, training);
  costs.forward.push_back(elementwise_forward(d, (by_norm.qkv ? 1.0 : 0.0) + (by_norm.up ? 1.0 : 0.0)));
  if (cast) {
    costs.forward.push_back(fp8_weight_casts(weight_elements(d, gemms), parallelism, training));
    if (training.precision == Precision::fp8 && training.fp8_recipe == Fp8Recipe::delayed)
      costs.forward.push_back(fp8_scale_update(training, attention_gemm_count(d, qkv) + 2.0));
    costs.forward.push_back(fp8_casts(gemms, d, training, false, by_norm));
  }
  add_projections_forward(costs.forward, d, qkv);
  if (rope_op(d)) costs.forward.push_back(rope_forward(d));
  if (kv_copy_op(d)) costs.forward.push_back(kv_copy_forward(d));
  add_attention_forward(costs.forward, d, training.attention);
  costs.forward.push_back(gemm_forward(out.fwd, d, d.tokens, out.n, out.k));
  add_up_forward(costs.forward, d, up, kMlpGate);
  costs.forward.push_back(gemm_forward(down.fwd, d, d.tokens, down.n, down.k));

  costs.backward.push_back(elementwise_backward(d));
  if (cast && training.fp8_backward) costs.backward.push_back(fp8_casts(gemms, d, training, true, by_norm));
  add_linear_backward(costs.backward, d, down.dgrad, down.wgrad, down.n, down.k, false);
  add_up_backward(costs.backward, d, up, kMlpGate);
  add_linear_backward(costs.backward, d, out.dgrad, out.wgrad, out.n, out.k, false);
  add_attention_backward(costs.backward, d, training.attention);
  if (kv_copy_op(d)) costs.backward.push_back(kv_copy_backward(d));
  if (rope_op(d)) costs.backward.push_back(rope_backward(d));
  add_projections_backward(costs.backward, d, qkv);
  add_sequence_copies(costs.forward, d, parallelism, training, false);
  add_sequence_copies(costs.backward, d, parallelism, training, true);
  add_overlap_reductions(costs.forward, d, parallelism, training, false);
  add_overlap_reductions(costs.backward, d, parallelism, training, true);

  // Recomputed work is hardware FLOPs only: the model-FLOPs convention does not count it.
  switch (training.recompute) {
    case Recompute::none:
      break;
    case Recompute::selective: {  // the attention core: scores, softmax, dropout, values
      OpList core;
      add_attention_forward(core, d, training.attention);
      for (const OpCost& op : core) costs.recompute.push_back(without_model_flops(op));
      break;
    }
    case Recompute::op: {
      // torchtitan's op-level policy keeps every other matmul's output of q, k, v, o, w1, w3, w2
      // (or q, k, v, o, w1, w2 without a gate): k, o and w3 (w2) run again, with the layer's
      // elementwise ops and, at fp8, their casts; attention is kept.
      costs.recompute.push_back(without_model_flops(gemm_forward("k_proj", d, d.tokens, d.kv_width, d.hidden)));
      costs.recompute.push_back(without_model_flops(gemm_forward(out.fwd, d, d.tokens, out.n, out.k)));
      if (d.swiglu) {
        costs.recompute.push_back(without_model_flops(gemm_forward("mlp_up_gate", d, d.tokens, d.ffn, d.hidden)));
      } else {
        costs.recompute.push_back(without_model_flops(gemm_forward(down.fwd, d, d.tokens, down.n, down.k)));
      }
      // The reduce-scatters' outputs are kept, so their input copies and reductions are not made
      // again.
      for (const OpCost& op : costs.forward) {
        if (op.kind == OpKind::elementwise && op.name != "fp8_weight_cast" && op.name != "fp8_scale_update" &&
            op.name != "tp_scatter_copy" && op.name != "tp_overlap_reduce") {
          costs.recompute.push_back(without_model_flops(op));
        }
      }
      break;
    }
    case Recompute::full:
      // The recomputed forward reuses the step's fp8 weights and scales (Transformer Engine
      // skips the update in its recompute phase); it casts the activations again.
      for (const OpCost& op : costs.forward) {
        if (op.name == "fp8_weight_cast" || op.name == "fp8_scale_update") continue;
        costs.recompute.push_back(without_model_flops(op));
      }
      break;
  }
  return costs;
}

namespace {

/// A GEMM over the routed rows of the rank's experts as one grouped GEMM: the op's FLOPs and
/// bytes for all `rows`, its shape one expert's (`rows` / `groups` in the token dimension `dim`:
/// m of a forward or dgrad, k of a wgrad), and every expert's own weight read.
OpCost grouped(OpCost op, double rows, double groups, double weight_elems, double weight_bytes, bool wgrad) {
  const int per_expert = to_int(std::max(1.0, rows / groups));
  if (wgrad)
    op.gemm_k = per_expert;
  else
    op.gemm_m = per_expert;
  op.gemm_groups = to_int(groups);
  op.bytes += (groups - 1.0) * weight_elems * weight_bytes;
  return op;
}

OpCost bf16(OpCost op) {
  op.bf16_gemm = true;
  return op;
}

/// Rows each expert's low-precision grouped GEMM pads its own to a multiple of: 32 under MXFP8, 16
/// for the other fp8 recipes, 128 under NVFP4 (Megatron-Core's get_fp8_align_size and
/// get_fp4_align_size, which its Fp8Padding and --moe-router-padding-for-fp8 apply).
double expert_row_alignment(const TrainingSpec& t) {
  if (t.precision == Precision::nvfp4) return 128.0;
  if (t.precision != Precision::fp8) return 1.0;
  return t.fp8_recipe == Fp8Recipe::mxfp8 ? 32.0 : 16.0;
}

/// The routed experts' activation casts under an fp8 or nvfp4 recipe. Transformer Engine's
/// GroupedLinear quantises the rows of all the rank's experts in one multi-tensor call
/// (tex.split_quantize), each expert's against its own scales: in the forward the up projection's
/// input (rows x h) and the down projection's (rows x f), in the backward their output gradients
/// (rows x up_width and rows x h). The rows are the rank's own, not a sequence shard gathered
/// afterwards, so each cast reads its bf16 rows once and writes every copy from them.
OpCost expert_fp8_casts(double rows, double h, double f, double up_width, const TrainingSpec& t, bool backward) {
  const CastRecipe r = cast_recipe(t, false);
  const int copies = t.fp8_backward ? 2 : 1;
  const double elements = rows * (backward ? up_width + h : h + f);
  return {.name = backward ? "experts_fp8_cast_bwd" : "experts_fp8_cast", .kind = OpKind::elementwise,
          .bytes = elements * r.bytes_per_element(copies), .kernels = 2 * r.kernels};
}

}  // namespace

double moe_routed_rows(const TransformerSpec& model, const ParallelismSpec& parallelism, const TrainingSpec& training) {
  const Dims d = dims_of(model, parallelism, training);
  // The busiest rank's share of the mean: its imbalance, cut at the capacity (the rest dropped),
  // or the capacity itself when padded to it.
  const double cf = training.moe_capacity_factor;
  const double share = cf <= 0.0                     ? training.moe_load_imbalance
                       : training.moe_pad_to_capacity ? cf
                                                      : std::min(training.moe_load_imbalance, cf);
  return d.norm_tokens * static_cast<double>(model.experts_per_token) * share;
}

LayerCosts moe_layer_costs(const TransformerSpec& model, const ParallelismSpec& parallelism,
                           const TrainingSpec& training) {
  Dims d = dims_of(model, parallelism, training);
  const double shared_ffn = static_cast<double>(model.shared_experts * model.expert_ffn_hidden) /
                            static_cast<double>(parallelism.tp);
  d.ffn = shared_ffn;  // the norms and residuals, and the shared experts' activation
  const auto gemms = layer_gemms(d);
  const auto& [qkv, out, up, down] = gemms;
  const double h = d.hidden;
  const double experts = static_cast<double>(model.experts);
  const double local = experts / static_cast<double>(parallelism.ep);
  // Expert tensor parallelism: the etp ranks of an expert's group gather each other's routed rows
  // and each multiplies all of them by its 1/etp of the expert's width.
  const double etp = static_cast<double>(parallelism.etp);
  const double f = static_cast<double>(model.expert_ffn_hidden) / etp;
  const double up_width = f * (d.swiglu ? 2.0 : 1.0);
  const double rows = moe_routed_rows(model, parallelism, training);
  // Each expert's rows padded to its low-precision GEMM's alignment: (align - 1) / 2 more on average.
  const double expert_rows = rows * etp + local * (expert_row_alignment(training) - 1.0) / 2.0;
  const double tokens = d.norm_tokens;  // the router's and the permutation's tokens
  LayerCosts costs;

  // A fixed routing (MoeRouting::consecutive, NeMo Automodel's FakeBalancedGate) has no router:
  // the gate writes each token's k weights (fp32) and expert indices (int64), and nothing flows
  // back through it.
  const bool router_learns = training.moe_routing != MoeRouting::consecutive;
  const double k = static_cast<double>(model.experts_per_token);
  const OpCost fixed_gate{.name = "fixed_gate", .kind = OpKind::elementwise, .bytes = tokens * k * (4.0 + 8.0),
                          .kernels = 3};
  const OpCost router_topk{.name = "router_topk", .kind = OpKind::elementwise, .flops = 5.0 * tokens * experts,
                           .bytes = tokens * experts * (2.0 + 4.0 + 4.0), .kernels = 3};
  // Gather each routed copy into expert order: read and write rows x h bf16.
  const OpCost permute{.name = "permute", .kind = OpKind::elementwise, .bytes = 2.0 * rows * h * kActivationBytes,
                       .kernels = 2};
  const OpCost expert_act{.name = "expert_activation", .kind = OpKind::elementwise, .flops = 8.0 * expert_rows * f,
                          .bytes = expert_rows * (up_width + f) * kActivationBytes, .kernels = 1};
  // The weighted sum of each token's k outputs back in token order.
  const OpCost unpermute{.name = "unpermute", .kind = OpKind::elementwise, .flops = 2.0 * rows * h,
                         .bytes = (rows + tokens) * h * kActivationBytes + rows * 4.0, .kernels = 2};
  auto backward_of = [](OpCost op, std::string_view name) {
    op.name = name;
    op.flops *= 2.0;
    op.bytes *= 2.0;
    return op;
  };
  // Experts' biases added expert by expert in eager PyTorch (FrameworkParameters::expert_bias_eager),
  // in HBM bytes an element of the projection's output. Up: each expert's add reads and writes its
  // rows (4 B), torch.cat copies them (4 B); its backward sums each bias's gradient over the rows
  // (2 B) and torch.split's backward concatenates the gradients (4 B). Down: the bias times the
  // fp32 probabilities writes fp32 (4 B), the add reads bf16 and fp32 and writes fp32 (10 B), the
  // cat copies fp32 (8 B), the cast back reads fp32 and writes bf16 (6 B); its backward casts the
  // gradient to fp32 (6 B) and back for the GEMM's output (6 B), sums the bias's gradient from the
  // gradient times the probabilities (12 B), concatenates (4 B), and where the router learns (not
  // a fixed routing) takes the probabilities' gradient the same way (12 B).
  const bool eager_bias = model.expert_bias && framework_parameters(training.framework).expert_bias_eager.value;
  const int local_kernels = to_int(local);
  const OpCost up_bias{.name = "experts_up_bias", .kind = OpKind::elementwise, .flops = expert_rows * up_width,
                       .bytes = 8.0 * expert_rows * up_width, .kernels = local_kernels + 1};
  const OpCost up_bias_bwd{.name = "experts_up_bias_bwd", .kind = OpKind::elementwise,
                           .flops = expert_rows * up_width, .bytes = 6.0 * expert_rows * up_width,
                           .kernels = local_kernels + 1};
  const OpCost down_bias{.name = "experts_down_bias", .kind = OpKind::elementwise, .flops = 2.0 * expert_rows * h,
                         .bytes = 28.0 * expert_rows * h, .kernels = 2 * local_kernels + 2};
  const OpCost down_bias_bwd{.name = "experts_down_bias_bwd", .kind = OpKind::elementwise,
                             .flops = (router_learns ? 4.0 : 2.0) * expert_rows * h,
                             .bytes = (router_learns ? 40.0 : 28.0) * expert_rows * h,
                             .kernels = (router_learns ? 5 : 3) * local_kernels + 2};

  // Under fp8 or nvfp4 the attention's projections and the shared experts cast as a dense
  // layer's GEMMs do, the routed experts their own rows; the router stays bf16. The norm before
  // the experts feeds the router and the permutation, which take bf16, so it cannot write an fp8
  // operand as the one before the attention may.
  const bool cast = low_precision_gemms(training.precision);
  const bool shared = shared_ffn > 0.0;
  NormFusedCasts by_norm = norm_fused_casts(d, training);
  by_norm.up = false;
  costs.forward.push_back(elementwise_forward(d, by_norm.qkv ? 1.0 : 0.0));
  if (cast) {
    const double local_expert_weights = local * (up_width + f) * h;
    const std::array<LayerGemm, 4> dense_gemms{qkv, out, shared ? up : LayerGemm{}, shared ? down : LayerGemm{}};
    costs.forward.push_back(
        fp8_weight_casts(weight_elements(d, dense_gemms) + local_expert_weights, parallelism, training));
    if (training.precision == Precision::fp8 && training.fp8_recipe == Fp8Recipe::delayed)
      costs.forward.push_back(
          fp8_scale_update(training, attention_gemm_count(d, qkv) + (shared ? 2.0 : 0.0) + 2.0 * local));
    costs.forward.push_back(fp8_casts(gemms, d, training, false, by_norm, shared));
    costs.forward.push_back(expert_fp8_casts(expert_rows, h, f, up_width, training, false));
  }
  add_projections_forward(costs.forward, d, qkv);
  if (rope_op(d)) costs.forward.push_back(rope_forward(d));
  if (kv_copy_op(d)) costs.forward.push_back(kv_copy_forward(d));
  add_attention_forward(costs.forward, d, training.attention);
  costs.forward.push_back(gemm_forward(out.fwd, d, d.tokens, out.n, out.k));
  if (router_learns) {
    costs.forward.push_back(bf16(gemm_forward("router", d, tokens, experts, h)));
    costs.forward.push_back(router_topk);
  } else {
    costs.forward.push_back(fixed_gate);
  }
  costs.forward.push_back(permute);
  costs.forward.push_back(grouped(gemm_forward("experts_up", d, expert_rows, up_width, h), expert_rows, local, up_width * h,
                                  d.input_bytes, false));
  if (eager_bias) costs.forward.push_back(up_bias);
  costs.forward.push_back(expert_act);
  costs.forward.push_back(grouped(gemm_forward("experts_down", d, expert_rows, h, f), expert_rows, local, f * h, d.input_bytes,
                                  false));
  if (eager_bias) costs.forward.push_back(down_bias);
  costs.forward.push_back(unpermute);
  const LayerGemm shared_up{"shared_up", "shared_dgrad", "shared_wgrad", up.n, up.k};
  if (shared_ffn > 0.0) {
    add_up_forward(costs.forward, d, shared_up, kSharedGate);
    costs.forward.push_back(gemm_forward("shared_down", d, d.tokens, down.n, down.k));
  }

  costs.backward.push_back(elementwise_backward(d));
  if (cast && training.fp8_backward) {
    costs.backward.push_back(fp8_casts(gemms, d, training, true, by_norm, shared));
    costs.backward.push_back(expert_fp8_casts(expert_rows, h, f, up_width, training, true));
  }
  if (shared_ffn > 0.0) {
    add_linear_backward(costs.backward, d, "shared_dgrad", "shared_wgrad", down.n, down.k, false);
    add_up_backward(costs.backward, d, shared_up, kSharedGate);
  }
  costs.backward.push_back(backward_of(unpermute, "unpermute_bwd"));
  if (eager_bias) costs.backward.push_back(down_bias_bwd);
  costs.backward.push_back(grouped(gemm_dgrad("experts_down_dgrad", d, expert_rows, h, f), expert_rows, local, f * h,
                                   d.grad_input_bytes, false));
  costs.backward.push_back(grouped(gemm_wgrad("experts_down_wgrad", d, expert_rows, h, f), expert_rows, local, f * h,
                                   kWeightGradBytes, true));
  costs.backward.push_back(backward_of(expert_act, "expert_activation_bwd"));
  if (eager_bias) costs.backward.push_back(up_bias_bwd);
  costs.backward.push_back(grouped(gemm_dgrad("experts_up_dgrad", d, expert_rows, up_width, h), expert_rows, local, up_width * h,
                                   d.grad_input_bytes, false));
  costs.backward.push_back(grouped(gemm_wgrad("experts_up_wgrad", d, expert_rows, up_width, h), expert_rows, local, up_width * h,
                                   kWeightGradBytes, true));
  costs.backward.push_back(backward_of(permute, "permute_bwd"));
  if (router_learns) {
    costs.backward.push_back(backward_of(router_topk, "router_topk_bwd"));
    costs.backward.push_back(bf16(gemm_dgrad("router_dgrad", d, tokens, experts, h)));
    costs.backward.push_back(bf16(gemm_wgrad("router_wgrad", d, tokens, experts, h)));
  }
  add_linear_backward(costs.backward, d, out.dgrad, out.wgrad, out.n, out.k, false);
  add_attention_backward(costs.backward, d, training.attention);
  if (kv_copy_op(d)) costs.backward.push_back(kv_copy_backward(d));
  if (rope_op(d)) costs.backward.push_back(rope_backward(d));
  add_projections_backward(costs.backward, d, qkv);

  switch (training.recompute) {
    case Recompute::none:
      break;
    case Recompute::selective:
    case Recompute::op: {  // the attention core (op-level policies keep every expert GEMM's output)
      OpList core;
      add_attention_forward(core, d, training.attention);
      for (const OpCost& op : core) costs.recompute.push_back(without_model_flops(op));
      break;
    }
    case Recompute::full:
      // As a dense layer's: the step's fp8 weights and scales are reused, the activations cast again.
      for (const OpCost& op : costs.forward) {
        if (op.name == "fp8_weight_cast" || op.name == "fp8_scale_update") continue;
        costs.recompute.push_back(without_model_flops(op));
      }
      break;
  }
  return costs;
}

HeadCosts head_costs(const TransformerSpec& model, const ParallelismSpec& parallelism,
                     const TrainingSpec& training) {
  const Dims d = dims_of(model, parallelism, training);
  const double tp = static_cast<double>(parallelism.tp);
  const double hidden_elems = d.tokens * d.hidden;
  const double logits = d.tokens * d.vocab;
  HeadCosts costs;

  // Vocab-parallel lookup: each rank reads the rows in its vocabulary shard (1/tp of the tokens on
  // average) and writes a full, partly zero, b x s x h output for the TP reduction.
  costs.embedding_forward.push_back({.name = "embedding", .kind = OpKind::elementwise,
                                     .bytes = hidden_elems * kActivationBytes * (1.0 / tp + 1.0)});
  // Reads the output gradient and accumulates the rows of its shard into the fp32 main grad.
  costs.embedding_backward.push_back(
      {.name = "embedding_bwd", .kind = OpKind::elementwise,
       .bytes = hidden_elems * (kActivationBytes + kWeightGradBytes / tp)});

  const double norm_elems = d.norm_tokens * d.hidden;
  costs.output_forward.push_back({.name = "final_norm", .kind = OpKind::elementwise,
                                  .flops = 5.0 * norm_elems, .bytes = 4.0 * norm_elems});
  // The LM head stays bf16 under every fp8 recipe the frameworks run: Megatron-Core builds it as
  // its own tensor_parallel.ColumnParallelLinear, outside Transformer Engine's fp8 autocast (a TE
  // head only with fp8_output_proj and the mxfp8 recipe, off by default: models/gpt/gpt_model.py,
  // fp8_utils.is_mxfp8_output_proj_active), and torchtitan's Float8 conversion skips the module
  // named "output" (float8.py: convert_to_float8_training's module_filter_fn).
  Dims head = d;
  head.input_bytes = head.grad_input_bytes = kActivationBytes;
  head.fp8_gemm_rate = 1.0;
  const auto in_bf16 = [](OpCost op) {
    op.bf16_gemm = true;
    return op;
  };
  costs.output_forward.push_back(in_bf16(gemm_forward("logits", head, d.tokens, d.vocab, d.hidden)));
  const double loss_bytes = training.fp32_loss ? 4.0 : kActivationBytes;
  // The logits' upcast copy to fp32 (2 bytes read, 4 written, one kernel) and, in the backward, its
  // cast back to bf16 (4 read, 2 written), where the loss works on a copy of its own.
  const double upcast = training.fp32_loss ? 2.0 + 4.0 : 0.0;
  const int upcast_kernels = training.fp32_loss ? 1 : 0;
  // The loss as two ops over the logits: its forward (5 FLOPs a logit) and its backward, each given
  // in bytes a logit and kernels.
  const auto add_loss = [&](double forward_bytes, int forward_kernels, double backward_flops, double backward_bytes,
                            int backward_kernels) {
    costs.output_forward.push_back({.name = "cross_entropy", .kind = OpKind::elementwise, .flops = 5.0 * logits,
                                    .bytes = logits * forward_bytes, .kernels = forward_kernels});
    costs.output_backward.push_back({.name = "cross_entropy_bwd", .kind = OpKind::elementwise,
                                     .flops = backward_flops * logits, .bytes = logits * backward_bytes,
                                     .kernels = backward_kernels});
  };
  if (training.cross_entropy == CrossEntropyKernel::fused) {
    // Read the bf16 logits, then about 3.5 passes over the softmax's copy (the upcast fused with
    // the max, shift-exp-sum in one, the normalisation), as Megatron-Core's fused vocab-parallel
    // cross-entropy runs them (fusions/fused_cross_entropy.py, each step one jit-fused kernel): 4
    // bytes an element after the fp32 upcast, 2 without it. Its backward reads the softmax and
    // writes the bf16 gradient.
    add_loss(2.0 + loss_bytes * 3.5, 4, 2.0, loss_bytes + 2.0, 1);
  } else if (training.cross_entropy == CrossEntropyKernel::inplace) {
    // Megatron's vocab-parallel cross-entropy op by op (core/tensor_parallel/cross_entropy.py):
    // the upcast copy (2 read + 4 written), the row max (1 read), the shift, exp and division in
    // place (a read and a write each) and the row sum (1 read): 8 passes at the loss's precision.
    // About a dozen small kernels on the tokens (target mask, gather of the target logit, log)
    // come beside the six large ones. Backward: the target's update (small), the multiply by the
    // loss gradient in place (a read and a write) and the upcast's backward cast to bf16 (4 read +
    // 2 written).
    add_loss(upcast + 8.0 * loss_bytes, 18, 2.0, 2.0 * loss_bytes + upcast, 5);
  } else if (runs_loss_parallel(parallelism, training)) {
    // DTensor's loss_parallel over the rank's vocabulary shard, op by op
    // (torch/distributed/tensor/parallel/loss.py): the upcast copy; log_softmax decomposed as amax
    // (a read), the shift (a read and a write), exp (a read and a write), the row sum (a read) and
    // the subtraction of the log-sum (a read and a write), with all-reduces of the rank's row maxima
    // and sums; nll_loss a gather and an all-reduce of the target's logit. Backward: zeros_like (a
    // write), the targets' scatter (small), exp of the log-probabilities (a read and a write), its
    // sum with the scattered gradient (two reads and a write), the multiply by the loss's gradient
    // (a read and a write), and the cast back to bf16. The all-reduces move a value per token and
    // are left out.
    add_loss(upcast + 7.0 * loss_bytes, 8 + upcast_kernels, 3.0, 8.0 * loss_bytes + upcast, 6 + upcast_kernels);
  } else {
    // PyTorch op by op (aten/src/ATen/native/cuda/SoftMax.cu): the upcast copy (2 read + 4 written),
    // log_softmax's three passes (max, sum of exp, then the output: 3 reads and a write), nll_loss
    // picking one element a row. Backward: nll_loss's dense gradient (zero-filled, then scattered:
    // one write), log_softmax's backward (the gradient's row sum, then gradient and output read and
    // the input gradient written: 4 passes) and the cast back to bf16 (4 read + 2 written).
    add_loss(upcast + 4.0 * loss_bytes, 2 + upcast_kernels, 3.0, 5.0 * loss_bytes + upcast, 3 + upcast_kernels);
  }
  costs.output_backward.push_back(in_bf16(gemm_dgrad("logits_dgrad", head, d.tokens, d.vocab, d.hidden)));
  costs.output_backward.push_back(in_bf16(gemm_wgrad(kOutputWeightGradOp, head, d.tokens, d.vocab, d.hidden)));
  costs.output_backward.push_back({.name = "final_norm_bwd", .kind = OpKind::elementwise,
                                   .flops = 10.0 * norm_elems, .bytes = 8.0 * norm_elems});
  return costs;
}

double total_flops(std::span<const OpCost> ops) {
  double sum = 0.0;
  for (const OpCost& op : ops) sum += op.flops;
  return sum;
}

double total_model_flops(std::span<const OpCost> ops) {
  double sum = 0.0;
  for (const OpCost& op : ops) sum += op.model_flops;
  return sum;
}

double total_bytes(std::span<const OpCost> ops) {
  double sum = 0.0;
  for (const OpCost& op : ops) sum += op.bytes;
  return sum;
}

}  // namespace clustersim::models
