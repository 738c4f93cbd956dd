#include "models/compute/transformer_costs.hpp"

#include <doctest/doctest.h>

#include <string_view>

#include "tests/models/model_fixtures.hpp"
#include "models/compute/compute_profile.hpp"
#include "models/compute/compute_time.hpp"
#include "models/compute/flops.hpp"

namespace clustersim::models {
namespace {

const OpCost& find(const OpList& ops, std::string_view name) {
  for (const OpCost& op : ops) {
    if (op.name == name) return op;
  }
  FAIL("no op named ", name);
  return ops[0];
}

double gemm_flops(const OpList& ops) {
  double sum = 0.0;
  for (const OpCost& op : ops) {
    if (op.kind == OpKind::gemm) sum += op.flops;
  }
  return sum;
}

TEST_CASE("transformer costs: a GPT-3 layer on one GPU has 24 b s h^2 GEMM and 4 b s^2 h attention FLOPs") {
  // GPT-3 175B layer, b = 1, s = 2048, no parallelism. Forward GEMMs: QKV 6bsh^2, output 2bsh^2,
  // MLP 2 x 2bsh(4h) = 16bsh^2: 24 b s h^2. Attention scores + values: 4 b s^2 h as model FLOPs,
  // half of it executed by a causal flash kernel.
  const double b = 1, s = 2048, h = 12288;
  const LayerCosts c = layer_costs(test::gpt3_175b(), {}, {.seq_len = 2048, .micro_batch = 1});
  CHECK(gemm_flops(c.forward) == doctest::Approx(24.0 * b * s * h * h));
  const OpCost& attn = find(c.forward, "attention");
  CHECK(attn.model_flops == doctest::Approx(4.0 * b * s * s * h));
  CHECK(attn.flops == doctest::Approx(2.0 * b * s * s * h));
  CHECK(total_model_flops(c.forward.span()) == doctest::Approx(24.0 * b * s * h * h + 4.0 * b * s * s * h));

  // Backward: dgrad + wgrad double every GEMM; FlashAttention-2 executes 2.5x its forward, while
  // the model-FLOPs convention counts 2x.
  CHECK(gemm_flops(c.backward) == doctest::Approx(48.0 * b * s * h * h));
  const OpCost& attn_bwd = find(c.backward, "attention_bwd");
  CHECK(attn_bwd.flops == doctest::Approx(2.5 * 2.0 * b * s * s * h));
  CHECK(attn_bwd.model_flops == doctest::Approx(8.0 * b * s * s * h));
}

TEST_CASE("transformer costs: fused attention draws its dropout mask where the model trains with dropout") {
  TransformerSpec gpt = test::gpt3_175b();
  gpt.dropout = 0.1;
  const LayerCosts with = layer_costs(gpt, {}, {.seq_len = 2048, .micro_batch = 1});
  CHECK(find(with.forward, "attention").attention_dropout);
  CHECK(find(with.backward, "attention_bwd").attention_dropout);
  gpt.dropout = 0.0;
  const LayerCosts without = layer_costs(gpt, {}, {.seq_len = 2048, .micro_batch = 1});
  CHECK_FALSE(find(without.forward, "attention").attention_dropout);
  CHECK_FALSE(find(without.backward, "attention_bwd").attention_dropout);
}

TEST_CASE("transformer costs: latent attention's backward counts its query-key and value widths apart") {
  // DeepSeek-V3 on one GPU, b = 1, s = 4096: 128 heads of query-key width 192 (128 + 64 rotary)
  // and value width 128. Causal forward: 2 s^2 / 2 x 128 x (192 + 128) = 6.872e11 FLOPs (cuDNN
  // frontend's SDPA benchmark reports 599 TF/s in 1.148 ms at this shape on an H200); the backward
  // recomputes Q K^T and forms dP, dV, dQ, dK: 2 s^2 / 2 x 128 x (3 x 192 + 2 x 128), 2.6 x the
  // forward (its 404 TF/s in 4.424 ms: 1.787e12).
  const double s = 4096;
  const LayerCosts c = layer_costs(test::deepseek_v3(), {}, {.seq_len = 4096, .micro_batch = 1});
  const OpCost& attn = find(c.forward, "attention");
  CHECK(attn.flops == doctest::Approx(s * s * 128.0 * (192.0 + 128.0)));
  CHECK(attn.flops == doctest::Approx(599e12 * 1.148e-3).epsilon(0.01));
  const OpCost& attn_bwd = find(c.backward, "attention_bwd");
  CHECK(attn_bwd.flops == doctest::Approx(s * s * 128.0 * (3.0 * 192.0 + 2.0 * 128.0)));
  CHECK(attn_bwd.flops == doctest::Approx(404e12 * 4.424e-3).epsilon(0.01));
  CHECK(attn_bwd.flops / attn.flops == doctest::Approx(2.6));
  // The model-FLOPs convention counts the backward as twice the forward, whatever the widths.
  CHECK(attn_bwd.model_flops == doctest::Approx(2.0 * attn.model_flops));
}

TEST_CASE("transformer costs: per-GPU ops summed over the model give the metric's model FLOPs") {
  // GPT-3 175B, global batch 1536 of micro-batches of 2 on one GPU: 768 micro-batches x
  // (96 layers x layer fwd+bwd + logits fwd+bwd) must equal models/compute/flops.hpp's definition.
  const TransformerSpec model = test::gpt3_175b();
  const TrainingSpec training{.seq_len = 2048, .micro_batch = 2, .global_batch = 1536};
  const LayerCosts layer = layer_costs(model, {}, training);
  const HeadCosts head = head_costs(model, {}, training);
  const double per_micro_batch =
      96.0 * (total_model_flops(layer.forward.span()) + total_model_flops(layer.backward.span())) +
      total_model_flops(head.output_forward.span()) + total_model_flops(head.output_backward.span());
  CHECK(768.0 * per_micro_batch == doctest::Approx(model_flops_per_step(model, training)).epsilon(1e-9));
}

TEST_CASE("transformer costs: torchtitan's op-level recompute redoes the k, output and up projections") {
  // Llama 3 8B, b = 1, s = 8192, tp = 1: k 2 bs h kv, output 2 bs h^2, SwiGLU up (w3) 2 bs h f, with
  // h 4096, kv 1024, f 14336: 2 x 8192 x 4096 x (1024 + 4096 + 14336) = 1.3056e12 FLOPs, about 36 %
  // of the forward's GEMMs; attention is kept, so the list has no attention op.
  const LayerCosts costs = layer_costs(test::llama3_8b(), {.tp = 1},
                                       {.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::op});
  CHECK(gemm_flops(costs.recompute) == doctest::Approx(2.0 * 8192 * 4096 * (1024.0 + 4096 + 14336)));
  for (const OpCost& op : costs.recompute) {
    CHECK(op.kind != OpKind::attention);
    CHECK(op.model_flops == 0.0);
  }
  CHECK(gemm_flops(costs.recompute) / gemm_flops(costs.forward) == doctest::Approx(19456.0 / 53248.0));
  // The recomputed FLOPs agree with the hardware-FLOP count.
  const TrainingSpec t{.seq_len = 8192, .micro_batch = 1, .global_batch = 1, .recompute = Recompute::op};
  TrainingSpec none = t;
  none.recompute = Recompute::none;
  CHECK(hardware_flops_per_step(test::llama3_8b(), t) - hardware_flops_per_step(test::llama3_8b(), none) ==
        doctest::Approx(32.0 * gemm_flops(costs.recompute)));
}

TEST_CASE("transformer costs: eager DTensor TP copies each sequence-parallel collective's tensor once") {
  // Llama 3 8B on tp = 8 with SP, torchtitan without torch.compile, b = 12, s = 8192: the gathered
  // b s h = 12 x 8192 x 4096 bf16 elements. Forward: two all-gathers re-concatenated along the
  // sequence and two reduce-scatter inputs concatenated, each read and written once:
  // 2 x (2 x 2 x 402,653,184 B); the backward the same; op-level recompute gathers again and
  // re-concatenates, but keeps the reduce-scatters' outputs.
  const double elements = 12.0 * 8192 * 4096;
  const ParallelismSpec tp8{.tp = 8, .sp = true};
  TrainingSpec titan{.seq_len = 8192, .micro_batch = 12, .framework = Framework::torchtitan, .recompute = Recompute::op,
                     .elementwise = ElementwiseKernels::eager};
  const LayerCosts costs = layer_costs(test::llama3_8b(), tp8, titan);
  CHECK(find(costs.forward, "tp_gather_copy").bytes == doctest::Approx(2.0 * 2.0 * 2.0 * elements));
  CHECK(find(costs.forward, "tp_scatter_copy").bytes == doctest::Approx(2.0 * 2.0 * 2.0 * elements));
  CHECK(find(costs.backward, "tp_gather_copy_bwd").bytes == doctest::Approx(2.0 * 2.0 * 2.0 * elements));
  CHECK(find(costs.backward, "tp_scatter_copy_bwd").bytes == doctest::Approx(2.0 * 2.0 * 2.0 * elements));
  CHECK(find(costs.recompute, "tp_gather_copy").bytes == doctest::Approx(2.0 * 2.0 * 2.0 * elements));
  for (const OpCost& op : costs.recompute) CHECK(op.name != "tp_scatter_copy");
  // One sequence a micro-batch: the gather's chunks are already in place, only the scatters copy.
  titan.micro_batch = 1;
  for (const OpCost& op : layer_costs(test::llama3_8b(), tp8, titan).forward) CHECK(op.name != "tp_gather_copy");
  // None where the sequence is the first dimension (Megatron), or under torch.compile or async TP.
  const auto copies = [&](const ParallelismSpec& p, const TrainingSpec& t) {
    int n = 0;
    for (const OpCost& op : layer_costs(test::llama3_8b(), p, t).forward) n += op.name.ends_with("_copy") ? 1 : 0;
    return n;
  };
  titan.micro_batch = 12;
  CHECK(copies(tp8, titan) == 2);
  TrainingSpec megatron = titan;
  megatron.framework = Framework::megatron_core;
  CHECK(copies(tp8, megatron) == 0);
  TrainingSpec compiled = titan;
  compiled.elementwise = ElementwiseKernels::fused;
  CHECK(copies(tp8, compiled) == 0);
  ParallelismSpec async_tp = tp8;
  async_tp.tp_comm_overlap = true;
  CHECK(copies(async_tp, titan) == 0);
}

TEST_CASE("transformer costs: async TP sums each fused reduce-scatter's partial outputs on the compute stream") {
  // Llama 3 8B on tp = 8 with SP and TP overlap, b = 12, s = 8192: the gathered b s h = 12 x 8192
  // x 4096 bf16 elements. PyTorch's fused_matmul_reduce_scatter stacks the 8 ranks' partial
  // outputs of the whole tensor and sums them on the compute stream: each of the forward's two
  // (output and down projections) reads b s h x 2 B and writes its shard, b s h / 8 x 2 B.
  const double elements = 12.0 * 8192 * 4096;
  const ParallelismSpec async_tp{.tp = 8, .sp = true, .tp_comm_overlap = true};
  TrainingSpec titan{.seq_len = 8192, .micro_batch = 12, .framework = Framework::torchtitan, .recompute = Recompute::op};
  LayerCosts costs = layer_costs(test::llama3_8b(), async_tp, titan);
  CHECK(find(costs.forward, "tp_overlap_reduce").bytes == doctest::Approx(2.0 * (2.0 + 2.0 / 8.0) * elements));
  // torchtitan's backward reduce-scatters a sum of matmuls through NCCL, which sums inside the
  // collective; op-level recompute keeps the reduce-scatters' outputs.
  for (const OpCost& op : costs.backward) CHECK(op.name != "tp_overlap_reduce_bwd");
  for (const OpCost& op : costs.recompute) CHECK(op.name != "tp_overlap_reduce");
  // llm-foundry fuses the input gradients' reduce-scatters with their GEMMs too: two more.
  titan.framework = Framework::llm_foundry;
  costs = layer_costs(test::llama3_8b(), async_tp, titan);
  CHECK(find(costs.backward, "tp_overlap_reduce_bwd").bytes == doctest::Approx(2.0 * (2.0 + 2.0 / 8.0) * elements));
  // Transformer Engine's userbuffers sum inside their own kernels; without overlap NCCL does.
  titan.framework = Framework::megatron_core;
  for (const OpCost& op : layer_costs(test::llama3_8b(), async_tp, titan).forward) CHECK(op.name != "tp_overlap_reduce");
  titan.framework = Framework::torchtitan;
  for (const OpCost& op : layer_costs(test::llama3_8b(), {.tp = 8, .sp = true}, titan).forward)
    CHECK(op.name != "tp_overlap_reduce");
}

TEST_CASE("transformer costs: Llama 3 70B on tp = 8, cp = 2 has per-rank GEMM shapes") {
  // b = 1, s = 8192, cp = 2: 4096 tokens per rank. h = 8192, 64 heads of 128, 8 kv heads (one per
  // TP rank), f = 28672. QKV: n = (8192 + 2 x 1024) / 8 = 1280, k = 8192. SwiGLU up (gate + up):
  // n = 2 x 28672 / 8 = 7168. Down: n = 8192, k = 3584. Weight gradients reduce over the tokens.
  const ParallelismSpec par{.tp = 8, .cp = 2};
  const LayerCosts c = layer_costs(test::llama3_70b(), par, {.seq_len = 8192, .micro_batch = 1});
  const OpCost& qkv = find(c.forward, "qkv_proj");
  CHECK(qkv.gemm_m == 4096);
  CHECK(qkv.gemm_n == 1280);
  CHECK(qkv.gemm_k == 8192);
  CHECK(qkv.flops == doctest::Approx(2.0 * 4096 * 1280 * 8192));
  CHECK(find(c.forward, "mlp_up").gemm_n == 7168);
  CHECK(find(c.forward, "mlp_down").gemm_k == 3584);
  const OpCost& qkv_wgrad = find(c.backward, "qkv_proj_wgrad");
  CHECK(qkv_wgrad.gemm_m == 8192);
  CHECK(qkv_wgrad.gemm_n == 1280);
  CHECK(qkv_wgrad.gemm_k == 4096);
  const OpCost& qkv_dgrad = find(c.backward, "qkv_proj_dgrad");
  CHECK(qkv_dgrad.gemm_m == 4096);
  CHECK(qkv_dgrad.gemm_n == 8192);
  CHECK(qkv_dgrad.gemm_k == 1280);
  // The rank's 4096 queries score against all 8192 keys over 8 of the 64 heads:
  // 4 x 4096 x 8192 x 1024 full, half executed.
  CHECK(find(c.forward, "attention").model_flops == doctest::Approx(4.0 * 4096 * 8192 * 1024));
  CHECK(find(c.forward, "attention").flops == doctest::Approx(2.0 * 4096 * 8192 * 1024));
}

TEST_CASE("transformer costs: k/v heads replicate when there are fewer than TP ranks") {
  // Llama 3 70B at tp = 16: 8 kv heads cannot split 16 ways, so every rank keeps one (128 wide).
  // QKV n = 8192 / 16 + 2 x 128 = 768.
  const LayerCosts c = layer_costs(test::llama3_70b(), {.tp = 16}, {.seq_len = 4096, .micro_batch = 1});
  CHECK(find(c.forward, "qkv_proj").gemm_n == 768);
}

TEST_CASE("transformer costs: fp8 GEMMs read 1-byte inputs and write bf16 outputs") {
  // Llama 3 8B QKV at b = 1, s = 4096: m = 4096, n = 4096 + 2 x 1024 = 6144, k = 4096.
  // bf16: (m k + k n) x 2 + m n x 2; fp8: (m k + k n) x 1 + m n x 2.
  const double m = 4096, n = 6144, k = 4096;
  const auto bytes = [&](Precision p) {
    return find(layer_costs(test::llama3_8b(), {}, {.seq_len = 4096, .micro_batch = 1, .precision = p}).forward,
                "qkv_proj")
        .bytes;
  };
  CHECK(bytes(Precision::bf16) == doctest::Approx((m * k + k * n) * 2.0 + m * n * 2.0));
  CHECK(bytes(Precision::fp8) == doctest::Approx((m * k + k * n) * 1.0 + m * n * 2.0));
}

TEST_CASE("transformer costs: sequence parallelism divides the norm and residual traffic by tp") {
  // GELU model h = 1024, f = 4096, b = 1, s = 1024 (T = 1024 tokens), tp = 8, dropout 0.1. Per
  // token and hidden unit: two norms (read + write, 2 x 4 B) and two bias-dropout-adds (read 2,
  // write 1, mask 1 B: 2 x 7 B) = 22 B; the GELU reads and writes f/tp per token: 4 x 512 = 2048 B
  // per token. Without SP: 22 x T x h + 2048 T = 24 T h. With SP: 22 T h / 8 + 2 T h = 4.75 T h.
  TransformerSpec model{.name = "tiny-gelu", .layers = 1, .hidden = 1024, .ffn_hidden = 4096, .heads = 8, .kv_heads = 8,
                        .vocab = 1000, .mlp = MlpKind::gelu};
  model.dropout = 0.1;
  const TrainingSpec training{.seq_len = 1024, .micro_batch = 1};
  const double th = 1024.0 * 1024.0;
  CHECK(find(layer_costs(model, {.tp = 8}, training).forward, "norms_elementwise").bytes ==
        doctest::Approx(24.0 * th));
  CHECK(find(layer_costs(model, {.tp = 8, .sp = true}, training).forward, "norms_elementwise").bytes ==
        doctest::Approx(4.75 * th));
  // Without dropout the adds write no mask (PyTorch's dropout returns its input at p = 0): 20 B a
  // hidden unit, and the unfused attention core has no dropout pass either.
  model.dropout = 0.0;
  CHECK(find(layer_costs(model, {.tp = 8}, training).forward, "norms_elementwise").bytes ==
        doctest::Approx((20.0 + 2.0) * th));
  TrainingSpec unfused = training;
  unfused.attention = AttentionKernel::unfused;
  for (const OpCost& op : layer_costs(model, {.tp = 8}, unfused).forward) CHECK(op.name != "attention_dropout");
  model.dropout = 0.1;
  CHECK(find(layer_costs(model, {.tp = 8}, unfused).forward, "attention_dropout").bytes > 0.0);
}

TEST_CASE("transformer costs: fp8 adds the cast and transpose of every linear layer's inputs and output gradients") {
  // GELU model h = 1024, f = 4096, 8 heads of 128 (8 kv heads: one per rank at tp = 8), T = 1024
  // tokens. Per rank the linear layers are qkv (k = h = 1024, n = 3 x 128 = 384), out_proj
  // (k = 128, n = 1024), mlp_up (k = 1024, n = 4096 / 8 = 512), mlp_down (k = 512, n = 1024).
  // A cast_transpose reads 2 B and writes 1 + 1 B per element of a T x width operand.
  // Forward inputs: (1024 + 128 + 1024 + 512) x 4 B = 10752 B per token.
  // Backward output gradients: (384 + 1024 + 512 + 1024) x 4 B = 11776 B per token.
  // With SP the rows of qkv's and mlp_up's inputs and of out_proj's and mlp_down's output
  // gradients are sharded: cast on T/8 rows (3 B), transposed after the fp8 gather (2 B on T rows):
  // 1024 x (3/8 + 2) = 2432 B per token each instead of 4096.
  // Forward: 2 x 2432 + 128 x 4 + 512 x 4 = 7424; backward: 384 x 4 + 512 x 4 + 2 x 2432 = 8448.
  const TransformerSpec model{.name = "tiny-gelu", .layers = 1, .hidden = 1024, .ffn_hidden = 4096, .heads = 8, .kv_heads = 8,
                              .vocab = 1000, .mlp = MlpKind::gelu};
  // Linear layers that cast their own inputs (Megatron-DeepSpeed's, Transformer Engine's Linear).
  const TrainingSpec fp8{.seq_len = 1024, .micro_batch = 1, .precision = Precision::fp8,
                         .framework = Framework::megatron_deepspeed};
  const double tokens = 1024.0;
  const LayerCosts plain = layer_costs(model, {.tp = 8}, fp8);
  CHECK(find(plain.forward, "fp8_cast").bytes == doctest::Approx(10752.0 * tokens));
  CHECK(find(plain.backward, "fp8_cast_bwd").bytes == doctest::Approx(11776.0 * tokens));
  const LayerCosts sp = layer_costs(model, {.tp = 8, .sp = true}, fp8);
  CHECK(find(sp.forward, "fp8_cast").bytes == doctest::Approx(7424.0 * tokens));
  CHECK(find(sp.backward, "fp8_cast_bwd").bytes == doctest::Approx(8448.0 * tokens));
  CHECK(find(sp.forward, "fp8_cast").model_flops == 0.0);
  // bf16 has no casts.
  const LayerCosts bf16 = layer_costs(model, {.tp = 8, .sp = true}, {.seq_len = 1024, .micro_batch = 1});
  for (const OpCost& op : bf16.forward) CHECK(op.name != "fp8_cast");
  for (const OpCost& op : bf16.backward) CHECK(op.name != "fp8_cast_bwd");
}

TEST_CASE("transformer costs: Megatron-Core's norms write the qkv and mlp_up inputs in fp8 under delayed scaling") {
  // Transformer Engine's LayerNormLinear (linear_qkv and linear_fc1 in Megatron-Core's layer spec):
  // the norm writes its output as the fp8 operand (1 B an element instead of its bf16 2 B), no
  // cast kernel runs, and the backward transposes the fp8 copy for the wgrad GEMM (1 + 1 B an
  // element on all T rows). Same layer as above: qkv's and mlp_up's inputs are 1024 wide.
  // Forward casts: out_proj's and mlp_down's inputs alone, (128 + 512) x 4 = 2560 B per token.
  // Backward: the output gradients as before (11776 or 8448 with SP) and the two transposes,
  // 2 x 1024 x 2 = 4096 B per token. The norms write 2 x 1024 x 1 B less per token, over 8 with SP.
  const TransformerSpec model{.name = "tiny-gelu", .layers = 1, .hidden = 1024, .ffn_hidden = 4096, .heads = 8, .kv_heads = 8,
                              .vocab = 1000, .mlp = MlpKind::gelu};
  TrainingSpec core{.seq_len = 1024, .micro_batch = 1, .precision = Precision::fp8};
  REQUIRE(core.framework == Framework::megatron_core);
  TrainingSpec deepspeed = core;
  deepspeed.framework = Framework::megatron_deepspeed;
  const double tokens = 1024.0;
  for (const bool sp : {false, true}) {
    CAPTURE(sp);
    const ParallelismSpec p{.tp = 8, .sp = sp};
    const LayerCosts fused = layer_costs(model, p, core);
    const LayerCosts cast = layer_costs(model, p, deepspeed);
    CHECK(find(fused.forward, "fp8_cast").bytes == doctest::Approx(2560.0 * tokens));
    CHECK(find(fused.backward, "fp8_cast_bwd").bytes == doctest::Approx(((sp ? 8448.0 : 11776.0) + 4096.0) * tokens));
    CHECK(find(cast.forward, "norms_elementwise").bytes - find(fused.forward, "norms_elementwise").bytes ==
          doctest::Approx(2048.0 * tokens / (sp ? 8.0 : 1.0)));
    // Per element of the two inputs the fused layer saves the cast's read and write and half the
    // norm's write, and pays the transpose: 3 B on all rows without SP; with SP 3 B on the rank's
    // rows and the norm's 1 B there (the transpose after the gather is paid either way).
    const auto layer_bytes = [](const LayerCosts& c) {
      double bytes = 0.0;
      for (const OpList* ops : {&c.forward, &c.backward})
        for (const OpCost& op : *ops) bytes += op.bytes;
      return bytes;
    };
    CHECK(layer_bytes(cast) - layer_bytes(fused) == doctest::Approx(2.0 * 1024.0 * (sp ? 4.0 / 8.0 : 3.0) * tokens));
    // Current scaling needs the norm's output before its scale: no fusion.
    TrainingSpec current = core;
    current.fp8_recipe = Fp8Recipe::current;
    TrainingSpec current_cast = current;
    current_cast.framework = Framework::megatron_deepspeed;
    CHECK(find(layer_costs(model, p, current).forward, "fp8_cast").bytes ==
          doctest::Approx(find(layer_costs(model, p, current_cast).forward, "fp8_cast").bytes));
  }
}

TEST_CASE("transformer costs: eager elementwise kernels move what plain PyTorch's ops read and write") {
  // Llama 3 8B (h 4096, f 14336, 32 heads, 8 k/v heads of 128), T = 4096 tokens, tp 1. Per token:
  //   two RMSNorms of 36 B and two residual adds of 6 B per hidden unit: 84 x 4096 = 344064
  //   RoPE on q and k, 20 B each: 20 x (4096 + 1024)                                = 102400
  //   repeat_kv copies k and v to the query width: 2 x (1024 + 4096) x 2 B          =  20480
  //   transpose(1, 2).contiguous() of the attention output: 4 x 4096                  =  16384
  //   SwiGLU: silu 4 B and multiply 6 B per ffn unit: 10 x 14336                      = 143360
  //   total 626688 B per token, in 2 x 8 + 2 + 2 x 3 + 2 + 1 + 2 = 29 kernels.
  TrainingSpec eager{.seq_len = 4096, .micro_batch = 1};
  eager.elementwise = ElementwiseKernels::eager;
  eager.rope_fusion = false;  // torchtitan's, without torch.compile
  eager.repeat_kv = true;     // torchtitan's before 2026
  const LayerCosts c = layer_costs(test::llama3_8b(), {}, eager);
  const OpCost& fwd = find(c.forward, "norms_elementwise");
  CHECK(fwd.bytes == doctest::Approx(626688.0 * 4096.0));
  CHECK(fwd.kernels == 29);
  CHECK(find(c.backward, "norms_elementwise_bwd").bytes == doctest::Approx(2.0 * 626688.0 * 4096.0));
  // SDPA taking the groups as they are: no copy.
  eager.repeat_kv = false;
  const OpCost grouped = find(layer_costs(test::llama3_8b(), {}, eager).forward, "norms_elementwise");
  CHECK(grouped.bytes == doctest::Approx((626688.0 - 20480.0) * 4096.0));
  CHECK(grouped.kernels == 27);
  // Fused kernels move far less: 20 B per hidden unit (no dropout mask: Llama trains without
  // dropout) plus the SwiGLU's 3 x 14336 x 2 B.
  const LayerCosts fused = layer_costs(test::llama3_8b(), {}, {.seq_len = 4096, .micro_batch = 1});
  CHECK(find(fused.forward, "norms_elementwise").bytes == doctest::Approx((20.0 * 4096.0 + 6.0 * 14336.0) * 4096.0));
}

TEST_CASE("transformer costs: RoPE op by op beside fused kernels costs the rotated columns 20 B each way") {
  // Llama 3 8B at tp 2, T = 4096 tokens: a rank rotates 16 query heads and 4 key heads of 128,
  // (16 + 4) x 128 = 2560 columns a token; x.float() 2 + 4, the complex multiply 4 + 4 and the
  // cast back 4 + 2 move 20 B an element, 3 kernels for q and 3 for k, and the backward the same
  // three steps on the gradient.
  TrainingSpec unfused{.seq_len = 4096, .micro_batch = 1};
  unfused.rope_fusion = false;
  const ParallelismSpec tp2{.tp = 2};
  const LayerCosts c = layer_costs(test::llama3_8b(), tp2, unfused);
  const OpCost& rope = find(c.forward, "rope");
  CHECK(rope.bytes == doctest::Approx(20.0 * 2560.0 * 4096.0));
  CHECK(rope.kernels == 6);
  CHECK(rope.model_flops == 0.0);
  CHECK(find(c.backward, "rope_bwd").bytes == doctest::Approx(rope.bytes));
  // Fused RoPE (Megatron-Core's, llm-foundry's, NeMo Automodel's today), and eager kernels, which
  // count RoPE among their own ops, have no op of its own.
  const auto has_rope = [](const OpList& ops) {
    for (const OpCost& op : ops) {
      if (op.name == "rope") return true;
    }
    return false;
  };
  CHECK_FALSE(has_rope(layer_costs(test::llama3_8b(), tp2, {.seq_len = 4096, .micro_batch = 1}).forward));
  TrainingSpec eager = unfused;
  eager.elementwise = ElementwiseKernels::eager;
  CHECK_FALSE(has_rope(layer_costs(test::llama3_8b(), tp2, eager).forward));
  // Latent attention rotates each query head's 64 rope columns and the one 64-wide rope key all
  // heads share: DeepSeek-V3's 128 heads at tp 1, 128 x 64 + 64 = 8256 columns a token.
  CHECK(find(layer_costs(test::deepseek_v3(), {}, unfused).forward, "rope").bytes ==
        doctest::Approx(20.0 * 8256.0 * 4096.0));
  // GPT-3's learned positions rotate nothing.
  CHECK_FALSE(has_rope(layer_costs(test::gpt3_175b(), {}, unfused).forward));
  // A full recompute redoes it with the rest of the forward.
  unfused.recompute = Recompute::full;
  CHECK(find(layer_costs(test::llama3_8b(), tp2, unfused).recompute, "rope").bytes == doctest::Approx(rope.bytes));
}

TEST_CASE("transformer costs: separate q, k, v and gate, up linears run a GEMM each and sum their input gradients") {
  // Llama 3 8B (h 4096, 32 query and 8 key/value heads of 128, f 14336) at tp 8 with sequence
  // parallelism, b = 1, s = 8192: every rank's linears see all T = 8192 gathered tokens. torchtitan
  // keeps wq, wk, wv and w1, w3 apart: GEMMs of n = 4096 / 8 = 512, 1024 / 8 = 128, 128 and
  // 14336 / 8 = 1792 twice, where Megatron-Core runs one of n = 768 and one of 3584.
  const double tokens = 8192, h = 4096;
  const ParallelismSpec tp8{.tp = 8, .sp = true};
  TrainingSpec titan{.seq_len = 8192, .micro_batch = 1};
  titan.framework = Framework::torchtitan;
  titan.elementwise = ElementwiseKernels::fused;  // torch.compile
  const LayerCosts c = layer_costs(test::llama3_8b(), tp8, titan);
  CHECK(find(c.forward, "q_proj").gemm_n == 512);
  CHECK(find(c.forward, "k_proj").gemm_n == 128);
  CHECK(find(c.forward, "v_proj").gemm_n == 128);
  CHECK(find(c.backward, "k_proj_dgrad").gemm_k == 128);  // dX = dK Wk: a 128-deep reduction
  CHECK(find(c.forward, "mlp_gate").gemm_n == 1792);
  CHECK(find(c.forward, "mlp_up").gemm_n == 1792);
  // The same FLOPs as the fused GEMMs.
  const LayerCosts core = layer_costs(test::llama3_8b(), tp8, {.seq_len = 8192, .micro_batch = 1});
  CHECK(find(core.forward, "qkv_proj").gemm_n == 768);
  CHECK(find(core.forward, "mlp_up").gemm_n == 3584);
  CHECK(gemm_flops(c.forward) == doctest::Approx(gemm_flops(core.forward)));
  CHECK(gemm_flops(c.backward) == doctest::Approx(gemm_flops(core.backward)));
  // Compiled, each sum is one kernel that reads the linears' T x h bf16 input gradients and writes
  // their total: 3 + 1 passes for q, k, v, 2 + 1 for gate and up.
  const double pass = tokens * h * 2.0;
  CHECK(find(c.backward, "qkv_input_grad_sum").bytes == doctest::Approx(4.0 * pass));
  CHECK(find(c.backward, "qkv_input_grad_sum").kernels == 1);
  CHECK(find(c.backward, "mlp_input_grad_sum").bytes == doctest::Approx(3.0 * pass));
  // Eager autograd adds each arriving gradient into the buffer: two adds of three passes for q, k,
  // v, one for gate and up.
  titan.elementwise = ElementwiseKernels::eager;
  const LayerCosts eager = layer_costs(test::llama3_8b(), tp8, titan);
  CHECK(find(eager.backward, "qkv_input_grad_sum").bytes == doctest::Approx(6.0 * pass));
  CHECK(find(eager.backward, "qkv_input_grad_sum").kernels == 2);
  CHECK(find(eager.backward, "mlp_input_grad_sum").bytes == doctest::Approx(3.0 * pass));
  // Megatron's fused GEMMs produce one input gradient each: nothing to sum.
  for (const OpCost& op : core.backward) {
    CHECK(op.name != "qkv_input_grad_sum");
    CHECK(op.name != "mlp_input_grad_sum");
  }
  // GPT-3's GeLU MLP has one up projection in every framework.
  TrainingSpec gpt = titan;
  gpt.seq_len = 2048;
  for (const OpCost& op : layer_costs(test::gpt3_175b(), tp8, gpt).forward) CHECK(op.name != "mlp_gate");
}

TEST_CASE("transformer costs: repeat_kv copies the key and value groups to the query heads the attention reads") {
  // Llama 3 8B at tp 1, T = 4096 tokens: 32 query heads over 8 key/value heads of 128. Compiled,
  // the keys' copy is RoPE's kernel writing 4096 columns instead of 1024 (3072 more) and the
  // values' a kernel reading 1024 and writing 4096: (3072 + 1024 + 4096) x 2 B a token, the same
  // backward; the attention then reads K and V at 4096 columns each instead of 1024.
  TrainingSpec compiled{.seq_len = 4096, .micro_batch = 1};
  compiled.framework = Framework::torchtitan;
  compiled.elementwise = ElementwiseKernels::fused;
  compiled.repeat_kv = true;
  const LayerCosts c = layer_costs(test::llama3_8b(), {}, compiled);
  CHECK(find(c.forward, "repeat_kv").bytes == doctest::Approx(8192.0 * 2.0 * 4096.0));
  CHECK(find(c.forward, "repeat_kv").kernels == 1);
  CHECK(find(c.backward, "repeat_kv_bwd").bytes == doctest::Approx(find(c.forward, "repeat_kv").bytes));
  compiled.repeat_kv = false;
  const LayerCosts grouped = layer_costs(test::llama3_8b(), {}, compiled);
  for (const OpCost& op : grouped.forward) CHECK(op.name != "repeat_kv");
  CHECK(find(c.forward, "attention").bytes - find(grouped.forward, "attention").bytes ==
        doctest::Approx(4096.0 * 2.0 * (4096.0 - 1024.0) * 2.0));
  // Multi-head attention has nothing to copy.
  compiled.repeat_kv = true;
  for (const OpCost& op : layer_costs(test::gpt3_175b(), {}, compiled).forward) CHECK(op.name != "repeat_kv");
}

TEST_CASE("transformer costs: QK-Norm normalises each query and key head, one pass each way") {
  // Qwen3-30B-A3B's attention (32 query heads and 4 key heads of 128) at tp 1, T = 4096 tokens:
  // QK-Norm's two norms read and write the 4096 + 512 = 4608 query and key columns, 2 B each way:
  // 4 B an element and 2 kernels more in the fused elementwise op, twice that backward; eager, two
  // RMSNorms of PyTorch's eight ops, 36 B an element.
  TransformerSpec model = test::qwen3_30b_a3b();
  const TrainingSpec fused{.seq_len = 4096, .micro_batch = 1};
  const OpCost without = find(layer_costs(model, {}, fused).forward, "norms_elementwise");
  model.qk_norm = true;
  const LayerCosts with = layer_costs(model, {}, fused);
  CHECK(find(with.forward, "norms_elementwise").bytes - without.bytes == doctest::Approx(4.0 * 4608.0 * 4096.0));
  CHECK(find(with.forward, "norms_elementwise").kernels == without.kernels + 2);
  CHECK(find(with.backward, "norms_elementwise_bwd").bytes ==
        doctest::Approx(2.0 * find(with.forward, "norms_elementwise").bytes));
  TrainingSpec eager = fused;
  eager.elementwise = ElementwiseKernels::eager;
  model.qk_norm = false;
  const OpCost eager_without = find(layer_costs(model, {}, eager).forward, "norms_elementwise");
  model.qk_norm = true;
  const OpCost eager_with = find(layer_costs(model, {}, eager).forward, "norms_elementwise");
  CHECK(eager_with.bytes - eager_without.bytes == doctest::Approx(36.0 * 4608.0 * 4096.0));
  CHECK(eager_with.kernels == eager_without.kernels + 16);
}

TEST_CASE("transformer costs: recompute lists hold the redone forward work, none of it model FLOPs") {
  const TransformerSpec model = test::llama3_8b();
  const auto with = [&](Recompute r) {
    return layer_costs(model, {}, {.seq_len = 4096, .micro_batch = 1, .recompute = r});
  };
  CHECK(with(Recompute::none).recompute.empty());
  // Selective: the attention core forward only.
  const LayerCosts selective = with(Recompute::selective);
  REQUIRE(selective.recompute.size() == 1);
  CHECK(selective.recompute[0].flops == doctest::Approx(find(selective.forward, "attention").flops));
  CHECK(selective.recompute[0].model_flops == 0.0);
  // Full: the whole layer forward again.
  const LayerCosts full = with(Recompute::full);
  CHECK(full.recompute.size() == full.forward.size());
  CHECK(total_flops(full.recompute.span()) == doctest::Approx(total_flops(full.forward.span())));
  CHECK(total_bytes(full.recompute.span()) == doctest::Approx(total_bytes(full.forward.span())));
  CHECK(total_model_flops(full.recompute.span()) == 0.0);
}

TEST_CASE("transformer costs: logits are 2 b s h V / tp forward and twice that backward") {
  // Llama 3 8B, b = 2, s = 4096, tp = 4: logits GEMM m = 8192, n = 128256 / 4 = 32064, k = 4096.
  const HeadCosts c = head_costs(test::llama3_8b(), {.tp = 4}, {.seq_len = 4096, .micro_batch = 2});
  const OpCost& logits = find(c.output_forward, "logits");
  CHECK(logits.gemm_m == 8192);
  CHECK(logits.gemm_n == 32064);
  CHECK(logits.gemm_k == 4096);
  const double expected = 2.0 * 2 * 4096 * 4096 * 128256 / 4;
  CHECK(logits.flops == doctest::Approx(expected));
  CHECK(gemm_flops(c.output_backward) == doctest::Approx(2.0 * expected));
  CHECK(find(c.output_forward, "cross_entropy").kind == OpKind::elementwise);
  CHECK(total_flops(c.embedding_forward.span()) == 0.0);
}

TEST_CASE("transformer costs: under fp8 the LM head's GEMMs stay bf16, the layers' run fp8") {
  // Megatron-Core's output layer is its own ColumnParallelLinear, outside Transformer Engine's fp8
  // autocast, and torchtitan's Float8 conversion skips "output": on an H100 the logits take the
  // bf16 GEMM's time whatever the precision, while an fp8 layer's up projection takes the fp8
  // rate (1,979 over 989 TF/s peak, at the profile's fp8 and bf16 e_max).
  TrainingSpec fp8{.seq_len = 4096, .micro_batch = 2, .precision = Precision::fp8};
  TrainingSpec bf16 = fp8;
  bf16.precision = Precision::bf16;
  const GpuSpec gpu = test::h100();
  const ComputeProfile profile = default_compute_profile("h100-sxm");
  const auto time = [&](const OpCost& op, Precision p) { return op_time_s(op, gpu, profile, p); };
  const HeadCosts head_fp8 = head_costs(test::llama3_8b(), {.tp = 4}, fp8);
  const HeadCosts head_bf16 = head_costs(test::llama3_8b(), {.tp = 4}, bf16);
  CHECK(find(head_fp8.output_forward, "logits").bf16_gemm);
  CHECK(time(find(head_fp8.output_forward, "logits"), Precision::fp8) ==
        doctest::Approx(time(find(head_bf16.output_forward, "logits"), Precision::bf16)));
  for (const char* name : {"logits_dgrad", "logits_wgrad"}) {
    CHECK(time(find(head_fp8.output_backward, name), Precision::fp8) ==
          doctest::Approx(time(find(head_bf16.output_backward, name), Precision::bf16)));
  }
  const LayerCosts layer_fp8 = layer_costs(test::llama3_8b(), {.tp = 4}, fp8);
  const LayerCosts layer_bf16 = layer_costs(test::llama3_8b(), {.tp = 4}, bf16);
  const double up_fp8 = time(find(layer_fp8.forward, "mlp_up"), Precision::fp8);
  const double up_bf16 = time(find(layer_bf16.forward, "mlp_up"), Precision::bf16);
  // The up projection's reduction is the hidden size, 4,096: fp8 steps through it twice as fast,
  // so its tiles' fixed cost is twice bf16's k_half in elements (compute_profile.hpp).
  const double k = 4096.0, k_half = profile.k_half.value;
  CHECK(up_bf16 / up_fp8 == doctest::Approx(1979.0 * profile.gemm_max_efficiency_fp8.value * k / (k + 2.0 * k_half) /
                                            (989.0 * profile.gemm_max_efficiency_bf16.value * k / (k + k_half)))
                                .epsilon(0.01));
}

TEST_CASE("transformer costs: the cross-entropy's passes are 4 bytes an element after the fp32 upcast, 2 without") {
  // 8192 x 32064 logits a rank: forward reads the bf16 logits (2 B) and makes 3.5 passes over the
  // softmax's copy; backward reads that copy and writes the bf16 gradient.
  const double logits = 8192.0 * 32064.0;
  const TrainingSpec fp32{.seq_len = 4096, .micro_batch = 2, .cross_entropy = CrossEntropyKernel::fused};
  TrainingSpec bf16 = fp32;
  bf16.fp32_loss = false;
  const HeadCosts upcast = head_costs(test::llama3_8b(), {.tp = 4}, fp32);
  const HeadCosts kept = head_costs(test::llama3_8b(), {.tp = 4}, bf16);
  CHECK(find(upcast.output_forward, "cross_entropy").bytes == doctest::Approx(logits * (2.0 + 3.5 * 4.0)));
  CHECK(find(kept.output_forward, "cross_entropy").bytes == doctest::Approx(logits * (2.0 + 3.5 * 2.0)));
  CHECK(find(upcast.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 6.0));
  CHECK(find(kept.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 4.0));
}

TEST_CASE("transformer costs: Megatron's in-place cross-entropy reads and writes the fp32 logits in each pass") {
  // Counted from core/tensor_parallel/cross_entropy.py. Forward: .float() (2 B read, 4 written),
  // the row max (4 read), then in place the shift, exp and division (4 read + 4 written each) and
  // the row sum (4 read): 38 B an element. Backward: the gradient multiplied in place (4 + 4) and
  // cast back to bf16 by the upcast's backward (4 read + 2 written): 14 B. Without the upcast the
  // eight passes are over 2 B and there is no cast: 16 and 4 B.
  const double logits = 8192.0 * 32064.0;
  const TrainingSpec fp32{.seq_len = 4096, .micro_batch = 2, .cross_entropy = CrossEntropyKernel::inplace};
  TrainingSpec bf16 = fp32;
  bf16.fp32_loss = false;
  const HeadCosts upcast = head_costs(test::llama3_8b(), {.tp = 4}, fp32);
  const HeadCosts kept = head_costs(test::llama3_8b(), {.tp = 4}, bf16);
  CHECK(find(upcast.output_forward, "cross_entropy").bytes == doctest::Approx(logits * 38.0));
  CHECK(find(upcast.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 14.0));
  CHECK(find(kept.output_forward, "cross_entropy").bytes == doctest::Approx(logits * 16.0));
  CHECK(find(kept.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 4.0));
  // Six passes over the logits and a dozen small kernels on the tokens; five kernels back.
  CHECK(find(upcast.output_forward, "cross_entropy").kernels == 18);
  CHECK(find(upcast.output_backward, "cross_entropy_bwd").kernels == 5);
}

TEST_CASE("transformer costs: an eager cross-entropy runs PyTorch's passes one op at a time") {
  // Forward: the upcast (2 B read, 4 written), log_softmax's max, sum and output passes (3 reads
  // and a write of 4 B): 22 B an element. Backward: nll_loss's dense gradient (4 B written),
  // log_softmax's row sum then gradient and output read and the gradient written (16 B), the cast
  // back to bf16 (4 + 2 B): 26 B. Without the upcast the passes are over 2 B and there is no cast.
  const double logits = 8192.0 * 32064.0;
  const TrainingSpec fp32{.seq_len = 4096, .micro_batch = 2, .cross_entropy = CrossEntropyKernel::eager};
  TrainingSpec bf16 = fp32;
  bf16.fp32_loss = false;
  const HeadCosts upcast = head_costs(test::llama3_8b(), {.tp = 4}, fp32);
  const HeadCosts kept = head_costs(test::llama3_8b(), {.tp = 4}, bf16);
  CHECK(find(upcast.output_forward, "cross_entropy").bytes == doctest::Approx(logits * 22.0));
  CHECK(find(upcast.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 26.0));
  CHECK(find(kept.output_forward, "cross_entropy").bytes == doctest::Approx(logits * 8.0));
  CHECK(find(kept.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 10.0));
  CHECK(find(upcast.output_forward, "cross_entropy").kernels == 3);
  CHECK(find(upcast.output_backward, "cross_entropy_bwd").kernels == 4);
}

TEST_CASE("transformer costs: torchtitan's loss under TP runs DTensor's loss_parallel op by op") {
  // Forward: the upcast (2 B read, 4 written), then amax (4 read), the shift (4 + 4), exp (4 + 4),
  // the row sum (4 read) and the log-sum's subtraction (4 + 4): 34 B an element in 9 kernels.
  // Backward: zeros_like (4 written), exp (4 + 4), the sum with the scattered gradient (8 read, 4
  // written), the multiply by the loss's gradient (4 + 4), the cast back to bf16 (4 + 2): 38 B in
  // 7 kernels. Megatron-Core's set runs its own loss, so the same eager key there stays aten's.
  const double logits = 8192.0 * 32064.0;
  const TrainingSpec titan{.seq_len = 4096, .micro_batch = 2, .framework = Framework::torchtitan,
                           .cross_entropy = CrossEntropyKernel::eager};
  const HeadCosts parallel = head_costs(test::llama3_8b(), {.tp = 4}, titan);
  CHECK(find(parallel.output_forward, "cross_entropy").bytes == doctest::Approx(logits * 34.0));
  CHECK(find(parallel.output_backward, "cross_entropy_bwd").bytes == doctest::Approx(logits * 38.0));
  CHECK(find(parallel.output_forward, "cross_entropy").kernels == 9);
  CHECK(find(parallel.output_backward, "cross_entropy_bwd").kernels == 7);
  const HeadCosts one_rank = head_costs(test::llama3_8b(), {.tp = 1}, titan);
  CHECK(find(one_rank.output_forward, "cross_entropy").bytes == doctest::Approx(4.0 * logits * 22.0));
}

double attention_core(const OpList& ops, double OpCost::*field) {
  double sum = 0.0;
  for (const OpCost& op : ops) {
    if (op.name.starts_with("attention")) sum += op.*field;
  }
  return sum;
}

double attention_gemm_flops(const OpList& ops) {
  double sum = 0.0;
  for (const OpCost& op : ops) {
    if (op.kind == OpKind::attention_gemm) sum += op.flops;
  }
  return sum;
}

TEST_CASE("transformer costs: unfused attention of a GPT-3 layer, FLOPs and bytes by hand") {
  // GPT-3 175B layer on one GPU, b = 1, s = 2048, h = 12288, a = 96 heads of d = 128.
  // Scores per layer N = a s^2 = 96 x 2048^2 = 402,653,184; s h = 25,165,824.
  // Forward: Q K^T and probs V, each 2 N d = 103,079,215,104 FLOPs (full: nothing causal skipped),
  // 4 b s^2 h = 206,158,430,208 in all. Bytes: each GEMM reads or writes the 2-byte scores once
  // (2N) and two s x h operands (4 s h): 805,306,368 + 100,663,296 = 905,969,664; softmax reads
  // and writes the scores (4N = 1,610,612,736); dropout reads them and writes them and a 1-byte
  // mask (5N = 2,013,265,920). Sum 13 N + 8 s h = 5,435,817,984 B.
  const double N = 402653184.0, sh = 25165824.0;
  const LayerCosts c = layer_costs(test::gpt3_175b(), {},
                                   {.seq_len = 2048, .micro_batch = 1, .attention = AttentionKernel::unfused});
  const OpCost& scores = find(c.forward, "attention_scores");
  CHECK(scores.kind == OpKind::attention_gemm);
  CHECK(scores.flops == doctest::Approx(103079215104.0));
  CHECK(scores.bytes == doctest::Approx(905969664.0));
  // 96 problems of [2048 x 128] x [128 x 2048], batch folded into m.
  CHECK(scores.gemm_m == 96 * 2048);
  CHECK(scores.gemm_n == 2048);
  CHECK(scores.gemm_k == 128);
  const OpCost& values = find(c.forward, "attention_values");
  CHECK(values.gemm_n == 128);
  CHECK(values.gemm_k == 2048);
  CHECK(find(c.forward, "attention_softmax").bytes == doctest::Approx(1610612736.0));
  CHECK(find(c.forward, "attention_dropout").bytes == doctest::Approx(2013265920.0));
  CHECK(attention_gemm_flops(c.forward) == doctest::Approx(206158430208.0));
  CHECK(attention_core(c.forward, &OpCost::model_flops) == doctest::Approx(206158430208.0));
  CHECK(attention_core(c.forward, &OpCost::bytes) == doctest::Approx(13.0 * N + 8.0 * sh));
  CHECK(attention_core(c.forward, &OpCost::bytes) == doctest::Approx(5435817984.0));

  // Backward: 4 GEMMs (dprobs, dV, dQ, dK) of 2 N d each = 8 b s^2 h = 412,316,860,416 FLOPs, twice
  // the forward as the model-FLOPs convention counts. Bytes: 4 x 905,969,664 for the GEMMs, dropout
  // backward 5N (gradient in and out, mask), softmax backward 6N (gradient and output in, gradient
  // out): 19 N + 16 s h = 8,053,063,680 B.
  CHECK(attention_gemm_flops(c.backward) == doctest::Approx(412316860416.0));
  CHECK(attention_core(c.backward, &OpCost::model_flops) == doctest::Approx(412316860416.0));
  CHECK(attention_core(c.backward, &OpCost::bytes) == doctest::Approx(19.0 * N + 16.0 * sh));
  CHECK(attention_core(c.backward, &OpCost::bytes) == doctest::Approx(8053063680.0));

  // Model FLOPs do not depend on the kernel: the flash layer counts the same.
  const LayerCosts flash = layer_costs(test::gpt3_175b(), {}, {.seq_len = 2048, .micro_batch = 1});
  CHECK(total_model_flops(c.forward.span()) == doctest::Approx(total_model_flops(flash.forward.span())));
  CHECK(total_model_flops(c.backward.span()) == doctest::Approx(total_model_flops(flash.backward.span())));
}

TEST_CASE("transformer costs: ALiBi's bias costs the unfused attention a write and a read of every score") {
  // BLOOM-176B's layer at tp = 4, b = 2, s = 2048: 112 / 4 = 28 heads on the rank, N = 2 x 28 x
  // 2048^2 = 234,881,024 scores. Megatron-DeepSpeed hands the [b x heads, 1, s] bias to baddbmm as
  // its input with beta = 1: PyTorch copies it out to every score (2 B written), and the GEMM reads
  // the scores back before writing them (2 B more): 4 N = 939,524,096 B a forward, one kernel more,
  // no FLOPs that count; the backward does not touch the bias. A fused kernel adds it in place.
  const double N = 2.0 * 28.0 * 2048.0 * 2048.0;
  TransformerSpec bloom{.name = "bloom", .layers = 70, .hidden = 14336, .ffn_hidden = 57344, .heads = 112,
                        .kv_heads = 112, .vocab = 250880, .mlp = MlpKind::gelu, .dropout = 0.1};
  TransformerSpec bloom_alibi = bloom;
  bloom_alibi.alibi = true;
  const TrainingSpec training{.seq_len = 2048, .micro_batch = 2, .attention = AttentionKernel::unfused};
  const LayerCosts plain = layer_costs(bloom, {.tp = 4}, training);
  const LayerCosts alibi = layer_costs(bloom_alibi, {.tp = 4}, training);
  CHECK(attention_core(alibi.forward, &OpCost::bytes) - attention_core(plain.forward, &OpCost::bytes) ==
        doctest::Approx(4.0 * N));
  CHECK(N == 234881024.0);
  CHECK(find(alibi.forward, "attention_alibi_bias").bytes == doctest::Approx(2.0 * N));
  const auto kernels = [](const OpList& ops) {
    int sum = 0;
    for (const OpCost& op : ops) sum += op.kernels;
    return sum;
  };
  CHECK(kernels(alibi.forward) == kernels(plain.forward) + 1);
  CHECK(attention_core(alibi.forward, &OpCost::model_flops) == attention_core(plain.forward, &OpCost::model_flops));
  CHECK(attention_core(alibi.backward, &OpCost::bytes) == attention_core(plain.backward, &OpCost::bytes));
  TrainingSpec fused = training;
  fused.attention = AttentionKernel::flash2;
  CHECK(attention_core(layer_costs(bloom_alibi, {.tp = 4}, fused).forward, &OpCost::bytes) ==
        attention_core(layer_costs(bloom, {.tp = 4}, fused).forward, &OpCost::bytes));
}

TEST_CASE("transformer costs: unfused attention splits heads over TP ranks") {
  // GPT-3 175B at tp = 8: 96 / 8 = 12 heads per rank hold an eighth of the scores: the softmax
  // moves 4 x 12 x 2048^2 = 201,326,592 B, and Q K^T folds 12 x 2048 rows.
  const LayerCosts c = layer_costs(test::gpt3_175b(), {.tp = 8},
                                   {.seq_len = 2048, .micro_batch = 1, .attention = AttentionKernel::unfused});
  CHECK(find(c.forward, "attention_softmax").bytes == doctest::Approx(201326592.0));
  CHECK(find(c.forward, "attention_scores").gemm_m == 12 * 2048);
}

TEST_CASE("transformer costs: selective recompute with unfused attention redoes the whole attention core") {
  // Korthikanti et al. 2022 section 4.2: scores, softmax, dropout and values are recomputed, so the
  // recompute list is the four forward ops, their FLOPs and bytes again, none as model FLOPs.
  const LayerCosts c = layer_costs(
      test::gpt3_175b(), {.tp = 8},
      {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::selective, .attention = AttentionKernel::unfused});
  REQUIRE(c.recompute.size() == 4);
  CHECK(c.recompute[0].name == "attention_scores");
  CHECK(c.recompute[1].name == "attention_softmax");
  CHECK(c.recompute[2].name == "attention_dropout");
  CHECK(c.recompute[3].name == "attention_values");
  CHECK(total_flops(c.recompute.span()) == doctest::Approx(attention_core(c.forward, &OpCost::flops)));
  CHECK(total_bytes(c.recompute.span()) == doctest::Approx(attention_core(c.forward, &OpCost::bytes)));
  CHECK(total_model_flops(c.recompute.span()) == 0.0);
}

}  // namespace
}  // namespace clustersim::models
