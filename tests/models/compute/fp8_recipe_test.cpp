// The fp8 recipes' casts and GEMM rates (training.fp8_recipe, training.fp8_backward), checked
// against bytes counted by hand for a small layer.
#include <doctest/doctest.h>

#include <string_view>

#include "models/compute/compute_profile.hpp"
#include "models/compute/compute_time.hpp"
#include "models/compute/transformer_costs.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

// GELU model h = 1024, f = 4096, 8 heads of 128 (8 kv heads: one per rank at tp = 8), T = 1024
// tokens. Per rank the linear layers are qkv (k = 1024, n = 384), out_proj (k = 128, n = 1024),
// mlp_up (k = 1024, n = 512), mlp_down (k = 512, n = 1024): the forward casts 1024 + 128 + 1024 +
// 512 = 2688 input columns per token, the backward 384 + 1024 + 512 + 1024 = 2944 output-gradient
// columns, and the weights hold 384 x 1024 + 1024 x 128 + 512 x 1024 + 1024 x 512 = 1572864
// elements. A step of global_batch 16 on dp = 1 runs 16 micro-batches.
constexpr double kTokens = 1024.0;
constexpr double kForwardColumns = 2688.0;
constexpr double kBackwardColumns = 2944.0;
constexpr double kWeightElements = 1572864.0;
constexpr double kMicroBatches = 16.0;

TransformerSpec tiny_gelu() {
  return {.name = "tiny-gelu", .layers = 1, .hidden = 1024, .ffn_hidden = 4096, .heads = 8, .kv_heads = 8,
          .vocab = 1000, .mlp = MlpKind::gelu};
}

// Megatron-DeepSpeed's layers cast their own inputs, as Transformer Engine's Linear does, so every
// recipe's casts show here; Megatron-Core's norms write two of them in fp8 (transformer_costs_test).
TrainingSpec fp8_training(Fp8Recipe recipe, bool backward = true) {
  return {.seq_len = 1024, .micro_batch = 1, .global_batch = 16, .precision = Precision::fp8,
          .framework = Framework::megatron_deepspeed, .fp8_recipe = recipe, .fp8_backward = backward};
}

const OpCost* find_op(const OpList& ops, std::string_view name) {
  for (const OpCost& op : ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const OpCost& op_named(const OpList& ops, std::string_view name) {
  const OpCost* op = find_op(ops, name);
  REQUIRE_MESSAGE(op != nullptr, "no op named ", name);
  return *op;
}

double layer_time_s(const LayerCosts& c, Precision precision) {
  const ComputeProfile profile = default_compute_profile("h100-sxm");
  return ops_time_s(c.forward.span(), test::h100(), profile, precision) +
         ops_time_s(c.backward.span(), test::h100(), profile, precision);
}

TEST_CASE("fp8 recipes: the casts of a small layer move the bytes counted by hand") {
  const ParallelismSpec tp8{.tp = 8};
  // delayed: read 2 B, write the fp8 copy and its transpose (1 + 1 B), amax inside the cast.
  const LayerCosts delayed = layer_costs(tiny_gelu(), tp8, fp8_training(Fp8Recipe::delayed));
  CHECK(op_named(delayed.forward, "fp8_cast").bytes == doctest::Approx(kForwardColumns * 4.0 * kTokens));
  CHECK(op_named(delayed.backward, "fp8_cast_bwd").bytes == doctest::Approx(kBackwardColumns * 4.0 * kTokens));
  CHECK(op_named(delayed.forward, "fp8_cast").kernels == 4);
  // Weights: 4 B per element once a step, spread over its 16 micro-batches.
  CHECK(op_named(delayed.forward, "fp8_weight_cast").bytes == doctest::Approx(kWeightElements * 4.0 / kMicroBatches));
  // Amax history: 12 scales (input, weight, output gradient of 4 GEMMs) x 1024 fp32, read + written.
  CHECK(op_named(delayed.forward, "fp8_scale_update").bytes == doctest::Approx(12.0 * 1024.0 * 4.0 * 2.0));

  // current: an amax pass reads the bf16 tensor first (2 B more), 3 kernels a cast.
  const LayerCosts current = layer_costs(tiny_gelu(), tp8, fp8_training(Fp8Recipe::current));
  CHECK(op_named(current.forward, "fp8_cast").bytes == doctest::Approx(kForwardColumns * 6.0 * kTokens));
  CHECK(op_named(current.forward, "fp8_cast").kernels == 12);
  CHECK(op_named(current.forward, "fp8_weight_cast").bytes == doctest::Approx(kWeightElements * 6.0 / kMicroBatches));
  CHECK(find_op(current.forward, "fp8_scale_update") == nullptr);

  // blockwise: two copies quantised from bf16, each with an fp32 scale per 128 (activations) or
  // per 128 x 128 (weights) elements: 2 + 2 x (1 + 4/128) = 4.0625 B, weights 2 + 2 x (1 + 4/16384).
  const LayerCosts blockwise = layer_costs(tiny_gelu(), tp8, fp8_training(Fp8Recipe::blockwise));
  CHECK(op_named(blockwise.forward, "fp8_cast").bytes == doctest::Approx(kForwardColumns * 4.0625 * kTokens));
  CHECK(op_named(blockwise.backward, "fp8_cast_bwd").bytes == doctest::Approx(kBackwardColumns * 4.0625 * kTokens));
  CHECK(op_named(blockwise.forward, "fp8_weight_cast").bytes ==
        doctest::Approx(kWeightElements * (2.0 + 2.0 * (1.0 + 4.0 / 16384.0)) / kMicroBatches));

  // mxfp8: an E8M0 byte per 32 elements on both copies, weights included: 2 + 2 x (1 + 1/32).
  const LayerCosts mxfp8 = layer_costs(tiny_gelu(), tp8, fp8_training(Fp8Recipe::mxfp8));
  CHECK(op_named(mxfp8.forward, "fp8_cast").bytes == doctest::Approx(kForwardColumns * 4.0625 * kTokens));
  CHECK(op_named(mxfp8.forward, "fp8_weight_cast").bytes == doctest::Approx(kWeightElements * 4.0625 / kMicroBatches));
}

TEST_CASE("fp8 recipes: with sequence parallelism block recipes quantise both copies on the rank's rows") {
  // Sharded operands (qkv's and mlp_up's inputs, 1024 columns each) on T/8 rows: 4.0625 / 8 B per
  // token and column; out_proj's (128) and mlp_down's (512) inputs on all T rows: 4.0625 B.
  const ParallelismSpec sp{.tp = 8, .sp = true};
  const double forward = 2.0 * 1024.0 * 4.0625 / 8.0 + (128.0 + 512.0) * 4.0625;
  const LayerCosts mxfp8 = layer_costs(tiny_gelu(), sp, fp8_training(Fp8Recipe::mxfp8));
  CHECK(op_named(mxfp8.forward, "fp8_cast").bytes == doctest::Approx(forward * kTokens));
  // delayed keeps Transformer Engine's cast, fp8 gather, transpose: 1024 x (3/8 + 2) per operand.
  const LayerCosts delayed = layer_costs(tiny_gelu(), sp, fp8_training(Fp8Recipe::delayed));
  CHECK(op_named(delayed.forward, "fp8_cast").bytes == doctest::Approx(7424.0 * kTokens));
}

TEST_CASE("fp8 recipes: delayed and current differ by the amax pass bytes exactly") {
  for (const ParallelismSpec& p : {ParallelismSpec{.tp = 8}, ParallelismSpec{.tp = 8, .sp = true}}) {
    CAPTURE(p.sp);
    const LayerCosts delayed = layer_costs(tiny_gelu(), p, fp8_training(Fp8Recipe::delayed));
    const LayerCosts current = layer_costs(tiny_gelu(), p, fp8_training(Fp8Recipe::current));
    // The amax pass reads each operand where it is cast: the sharded ones (1024 + 1024 columns
    // forward, out_proj's and mlp_down's 1024 + 1024 backward) on T/8 rows with SP.
    const double rows_of_sharded = p.sp ? kTokens / 8.0 : kTokens;
    const double forward_pass = 2.0 * (2048.0 * rows_of_sharded + 640.0 * kTokens);
    const double backward_pass = 2.0 * (2048.0 * rows_of_sharded + 896.0 * kTokens);
    CHECK(op_named(current.forward, "fp8_cast").bytes - op_named(delayed.forward, "fp8_cast").bytes ==
          doctest::Approx(forward_pass));
    CHECK(op_named(current.backward, "fp8_cast_bwd").bytes - op_named(delayed.backward, "fp8_cast_bwd").bytes ==
          doctest::Approx(backward_pass));
    CHECK(op_named(current.forward, "fp8_weight_cast").bytes - op_named(delayed.forward, "fp8_weight_cast").bytes ==
          doctest::Approx(2.0 * kWeightElements / kMicroBatches));
  }
}

TEST_CASE("fp8 recipes: fp8_backward false casts the forward copies only and runs dgrad and wgrad at bf16") {
  const ParallelismSpec tp8{.tp = 8};
  const LayerCosts forward_only = layer_costs(tiny_gelu(), tp8, fp8_training(Fp8Recipe::delayed, false));
  // One copy (2 + 1 B), no transpose; no output-gradient casts; weights 3 B; 8 scales.
  CHECK(op_named(forward_only.forward, "fp8_cast").bytes == doctest::Approx(kForwardColumns * 3.0 * kTokens));
  CHECK(find_op(forward_only.backward, "fp8_cast_bwd") == nullptr);
  CHECK(op_named(forward_only.forward, "fp8_weight_cast").bytes == doctest::Approx(kWeightElements * 3.0 / kMicroBatches));
  CHECK(op_named(forward_only.forward, "fp8_scale_update").bytes == doctest::Approx(8.0 * 1024.0 * 4.0 * 2.0));

  // Every backward GEMM takes as long as the same op of a bf16 layer; the forward GEMMs as fp8's.
  const LayerCosts bf16 = layer_costs(tiny_gelu(), tp8, {.seq_len = 1024, .micro_batch = 1, .global_batch = 16});
  const LayerCosts full_fp8 = layer_costs(tiny_gelu(), tp8, fp8_training(Fp8Recipe::delayed));
  const ComputeProfile profile = default_compute_profile("h100-sxm");
  int backward_gemms = 0;
  for (const OpCost& op : forward_only.backward) {
    if (op.kind != OpKind::gemm) continue;
    ++backward_gemms;
    const OpCost& reference = op_named(bf16.backward, op.name);
    CAPTURE(op.name);
    CHECK(op.bytes == doctest::Approx(reference.bytes));
    CHECK(op_time_s(op, test::h100(), profile, Precision::fp8) ==
          doctest::Approx(op_time_s(reference, test::h100(), profile, Precision::bf16)).epsilon(1e-12));
  }
  CHECK(backward_gemms == 8);
  for (const OpCost& op : forward_only.forward) {
    if (op.kind != OpKind::gemm) continue;
    CHECK(op_time_s(op, test::h100(), profile, Precision::fp8) ==
          doctest::Approx(op_time_s(op_named(full_fp8.forward, op.name), test::h100(), profile, Precision::fp8)));
    CHECK(op_time_s(op, test::h100(), profile, Precision::fp8) <
          op_time_s(op_named(bf16.forward, op.name), test::h100(), profile, Precision::bf16));
  }
}

TEST_CASE("fp8 recipes: block-scaled GEMMs run at FBGEMM's measured fraction of the per-tensor rate") {
  // A compute-bound 8192^3 GEMM: its time grows by 1 / 0.755 (the mean of 870.40/1125.51,
  // 828.34/1082.75, 828.31/1141.38), launch aside.
  const double rate = (870.40 / 1125.51 + 828.34 / 1082.75 + 828.31 / 1141.38) / 3.0;
  const ComputeProfile profile = default_compute_profile("h100-sxm");
  const LayerCosts blockwise = layer_costs(test::llama3_70b(), {.tp = 8}, fp8_training(Fp8Recipe::blockwise));
  const LayerCosts delayed = layer_costs(test::llama3_70b(), {.tp = 8}, fp8_training(Fp8Recipe::delayed));
  const OpCost& block_up = op_named(blockwise.forward, "mlp_up");
  CHECK(block_up.fp8_rate == doctest::Approx(rate));
  const double launch = profile.launch_overhead_s.value;
  CHECK(op_time_s(block_up, test::h100(), profile, Precision::fp8) - launch ==
        doctest::Approx((op_time_s(op_named(delayed.forward, "mlp_up"), test::h100(), profile, Precision::fp8) - launch) /
                        rate));
  // The whole layer: blockwise is slower than delayed on H100.
  CHECK(layer_time_s(blockwise, Precision::fp8) > layer_time_s(delayed, Precision::fp8));
  // A bf16 run ignores the recipe.
  TrainingSpec bf16 = fp8_training(Fp8Recipe::blockwise);
  bf16.precision = Precision::bf16;
  // (The layers are named: op_named returns a reference into them.)
  const LayerCosts bf16_layer = layer_costs(test::llama3_70b(), {.tp = 8}, bf16);
  const LayerCosts plain_layer =
      layer_costs(test::llama3_70b(), {.tp = 8}, {.seq_len = 1024, .micro_batch = 1, .global_batch = 16});
  CHECK(op_time_s(op_named(bf16_layer.forward, "mlp_up"), test::h100(), profile, Precision::bf16) ==
        doctest::Approx(op_time_s(op_named(plain_layer.forward, "mlp_up"), test::h100(), profile, Precision::bf16)));
}

TEST_CASE("fp8 recipes: ZeRO-3 casts the weights every micro-batch, recompute reuses them") {
  const LayerCosts zero3 = layer_costs(tiny_gelu(), {.tp = 8, .zero = 3}, fp8_training(Fp8Recipe::delayed));
  const OpCost& weights = op_named(zero3.forward, "fp8_weight_cast");
  CHECK(weights.bytes == doctest::Approx(kWeightElements * 4.0));
  CHECK(weights.kernels == 4);

  TrainingSpec full = fp8_training(Fp8Recipe::delayed);
  full.recompute = Recompute::full;
  const LayerCosts recomputed = layer_costs(tiny_gelu(), {.tp = 8}, full);
  CHECK(find_op(recomputed.recompute, "fp8_cast") != nullptr);
  CHECK(find_op(recomputed.recompute, "fp8_weight_cast") == nullptr);
  CHECK(find_op(recomputed.recompute, "fp8_scale_update") == nullptr);
}

TEST_CASE("nvfp4: the casts read the bf16 tensor for its amax, then write two 0.5625-byte copies") {
  // An amax pass (2 B), the quantise kernel's read (2 B) and two copies of E2M1 values with an
  // E4M3 scale per 16 (0.5 + 1/16 B each): 5.125 B an element, 2 kernels a cast; no amax history.
  TrainingSpec t = fp8_training(Fp8Recipe::delayed);
  t.precision = Precision::nvfp4;
  const LayerCosts nvfp4 = layer_costs(tiny_gelu(), ParallelismSpec{.tp = 8}, t);
  CHECK(op_named(nvfp4.forward, "fp8_cast").bytes == doctest::Approx(kForwardColumns * 5.125 * kTokens));
  CHECK(op_named(nvfp4.backward, "fp8_cast_bwd").bytes == doctest::Approx(kBackwardColumns * 5.125 * kTokens));
  CHECK(op_named(nvfp4.forward, "fp8_cast").kernels == 8);
  CHECK(op_named(nvfp4.forward, "fp8_weight_cast").bytes == doctest::Approx(kWeightElements * 5.125 / kMicroBatches));
  CHECK(find_op(nvfp4.forward, "fp8_scale_update") == nullptr);
  // The GEMMs read their inputs at 0.5625 B an element.
  CHECK(gemm_input_bytes(Precision::nvfp4) == 0.5625);
}

TEST_CASE("fp8 attention: Q, K and V are cast before the forward, the output gradient before the backward") {
  // Per rank at tp = 8: Q 128, K 128 and V 128 columns a token; the output gradient 128. A current
  // scaling cast moves 5 B an element (amax read 2, read 2, write 1) in 3 kernels a tensor.
  TrainingSpec t = fp8_training(Fp8Recipe::delayed);
  const LayerCosts plain = layer_costs(tiny_gelu(), ParallelismSpec{.tp = 8}, t);
  t.fp8_attention = true;
  const LayerCosts with = layer_costs(tiny_gelu(), ParallelismSpec{.tp = 8}, t);
  CHECK(op_named(with.forward, "fp8_cast").bytes - op_named(plain.forward, "fp8_cast").bytes ==
        doctest::Approx(kTokens * 384.0 * 5.0));
  CHECK(op_named(with.backward, "fp8_cast_bwd").bytes - op_named(plain.backward, "fp8_cast_bwd").bytes ==
        doctest::Approx(kTokens * 128.0 * 5.0));
  CHECK(op_named(with.forward, "fp8_cast").kernels - op_named(plain.forward, "fp8_cast").kernels == 9);
  CHECK(op_named(with.forward, "attention").attention_fp8);
  CHECK(op_named(with.backward, "attention_bwd").attention_backward);
  CHECK(op_named(with.forward, "attention").attention_keys == 1024.0);
}

// A GELU mixture-of-experts layer, h = 1024, 8 heads of 128, 8 experts of f = 512, 2 a token, no
// shared experts, on one GPU: 1024 tokens route 2048 rows, padded to 16 per expert under delayed
// scaling, 7.5 rows each on average: 2108 rows through both expert GEMMs.
TEST_CASE("fp8 recipes: a mixture-of-experts layer casts its routed rows and its experts' weights") {
  TransformerSpec moe = tiny_gelu();
  moe.ffn_hidden = 0;
  moe.experts = 8;
  moe.experts_per_token = 2;
  moe.expert_ffn_hidden = 512;
  const ParallelismSpec one{};
  const LayerCosts c = moe_layer_costs(moe, one, fp8_training(Fp8Recipe::delayed));
  constexpr double kRows = 2048.0 + 8.0 * 7.5;
  // Delayed scaling: read 2 B, write the copy and its transpose, 1 B each.
  CHECK(op_named(c.forward, "experts_fp8_cast").bytes == doctest::Approx(kRows * (1024.0 + 512.0) * 4.0));
  CHECK(op_named(c.backward, "experts_fp8_cast_bwd").bytes == doctest::Approx(kRows * (512.0 + 1024.0) * 4.0));
  // The attention's two projections cast as a dense layer's (qkv input 1024 columns, out_proj's
  // 1024); no MLP of the layer's own, so no mlp_up or mlp_down cast.
  CHECK(op_named(c.forward, "fp8_cast").bytes == doctest::Approx(2048.0 * 4.0 * kTokens));
  CHECK(op_named(c.forward, "fp8_cast").kernels == 2);
  // Weights: qkv 3072 x 1024, out 1024 x 1024 and 8 experts of 512 x 1024 up and 1024 x 512 down,
  // 4 B each once a step of 16 micro-batches.
  const double weights = 3072.0 * 1024.0 + 1024.0 * 1024.0 + 8.0 * 2.0 * 512.0 * 1024.0;
  CHECK(op_named(c.forward, "fp8_weight_cast").bytes == doctest::Approx(weights * 4.0 / kMicroBatches));
  // Amax histories: 2 projections and 2 GEMMs per expert, 3 scales each, 1024 fp32 read + written.
  CHECK(op_named(c.forward, "fp8_scale_update").bytes == doctest::Approx(18.0 * 3.0 * 1024.0 * 4.0 * 2.0));
  CHECK(op_named(c.forward, "experts_up").flops == doctest::Approx(2.0 * kRows * 512.0 * 1024.0));
  // bf16 pads nothing and casts nothing.
  TrainingSpec bf16 = fp8_training(Fp8Recipe::delayed);
  bf16.precision = Precision::bf16;
  const LayerCosts plain = moe_layer_costs(moe, one, bf16);
  CHECK(op_named(plain.forward, "experts_up").flops == doctest::Approx(2.0 * 2048.0 * 512.0 * 1024.0));
  CHECK(find_op(plain.forward, "experts_fp8_cast") == nullptr);
  // MXFP8 pads to 32 rows, 15.5 more per expert on average.
  const LayerCosts mx = moe_layer_costs(moe, one, fp8_training(Fp8Recipe::mxfp8));
  CHECK(op_named(mx.forward, "experts_up").flops == doctest::Approx(2.0 * (2048.0 + 8.0 * 15.5) * 512.0 * 1024.0));
}

// DeepSeek-V3's dense layer on one GPU, 1024 tokens: the latent attention's four projections cast
// their inputs (h, q_lora 1536, h, kv_lora 512) and output gradients (1536, 128 x 192, 576 and
// 128 x (128 + 128)); the output projection and the MLP (f = 18432, SwiGLU) as any layer's.
TEST_CASE("fp8 recipes: latent attention casts each of its projections") {
  const LayerCosts c = layer_costs(test::deepseek_v3(), {}, fp8_training(Fp8Recipe::delayed));
  const double forward_columns = 7168.0 + 1536.0 + 7168.0 + 512.0 + 128.0 * 128.0 + 7168.0 + 18432.0;
  const double backward_columns =
      1536.0 + 128.0 * 192.0 + 576.0 + 128.0 * 256.0 + 7168.0 + 2.0 * 18432.0 + 7168.0;
  CHECK(op_named(c.forward, "fp8_cast").bytes == doctest::Approx(forward_columns * 4.0 * kTokens));
  CHECK(op_named(c.forward, "fp8_cast").kernels == 7);
  CHECK(op_named(c.backward, "fp8_cast_bwd").bytes == doctest::Approx(backward_columns * 4.0 * kTokens));
  const double weights = 1536.0 * 7168.0 + 128.0 * 192.0 * 1536.0 + 576.0 * 7168.0 + 128.0 * 256.0 * 512.0 +
                         7168.0 * 128.0 * 128.0 + 2.0 * 18432.0 * 7168.0 + 7168.0 * 18432.0;
  CHECK(op_named(c.forward, "fp8_weight_cast").bytes == doctest::Approx(weights * 4.0 / kMicroBatches));
  // Amax histories of 7 GEMMs: 4 projections, the output projection, the MLP's two.
  CHECK(op_named(c.forward, "fp8_scale_update").bytes == doctest::Approx(7.0 * 3.0 * 1024.0 * 4.0 * 2.0));
}

}  // namespace
}  // namespace clustersim::models
