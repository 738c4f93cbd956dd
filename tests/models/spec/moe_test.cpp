// Mixture-of-experts model arithmetic against published figures and hand counts.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "models/compute/compute_profile.hpp"
#include "models/compute/flops.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/spec/moe.hpp"
#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

TEST_CASE("moe: Mixtral 8x7B holds 46.7B parameters, 12.9B of them active per token (Mistral AI's figures)") {
  const TransformerSpec m = test::mixtral_8x7b();
  // Mistral AI, "Mixtral of experts" (2023-12-11): 46.7B total parameters, 12.9B used per token.
  CHECK(static_cast<double>(parameter_count(m)) == doctest::Approx(46.7e9).epsilon(0.005));
  CHECK(static_cast<double>(active_parameter_count(m)) == doctest::Approx(12.9e9).epsilon(0.005));
  CHECK(moe_layer_count(m) == 32);
}

TEST_CASE("moe: DeepSeek-V3 holds 671B parameters, 37B activated, Qwen3-30B-A3B 30.5B, 3.3B activated") {
  // DeepSeek-V3 report (arXiv:2412.19437) abstract: 671B total parameters with 37B activated for
  // each token (the 14B multi-token-prediction module is not part of the main model).
  const TransformerSpec ds = test::deepseek_v3();
  CHECK(static_cast<double>(parameter_count(ds)) == doctest::Approx(671e9).epsilon(0.005));
  CHECK(static_cast<double>(active_parameter_count(ds)) == doctest::Approx(37.5e9).epsilon(0.02));
  CHECK(moe_layer_count(ds) == 58);
  // MLA by hand: W_DQ 7168 x 1536, W_UQ 1536 x 128 x 192, W_DKV 7168 x 576, W_UKV 512 x 128 x 256,
  // W_O 128 x 128 x 7168.
  CHECK(attention_matmul_parameters(ds) ==
        7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168);
  // Qwen3 model card: 30.5B in total, 3.3B activated.
  const TransformerSpec qwen = test::qwen3_30b_a3b();
  CHECK(static_cast<double>(parameter_count(qwen)) == doctest::Approx(30.5e9).epsilon(0.005));
  CHECK(static_cast<double>(active_parameter_count(qwen)) == doctest::Approx(3.3e9).epsilon(0.02));
  // Its attention: Q and O 2048 x (32 x 128), K and V 2048 x (4 x 128).
  CHECK(attention_matmul_parameters(qwen) == 2 * 2048 * 4096 + 2 * 2048 * 512);
}

TEST_CASE("moe: model FLOPs count the active parameters a token is multiplied by") {
  const TransformerSpec m = test::mixtral_8x7b();
  // Per layer and token, by hand: Q and O 4096 x 4096 each, K and V 4096 x 1024 each; the router
  // 4096 x 8; two SwiGLU experts of 3 x 4096 x 14336. Times 2 FLOPs, plus 4 s h for attention,
  // plus the logits 2 h V; x 3 for forward and backward.
  const double attention = 2.0 * 4096.0 * 4096.0 + 2.0 * 4096.0 * 1024.0;
  const double active_mlp = 4096.0 * 8.0 + 2.0 * 3.0 * 4096.0 * 14336.0;
  const double s = 4096.0;
  const double expected = 3.0 * (32.0 * (2.0 * (attention + active_mlp) + 4.0 * s * 4096.0) + 2.0 * 4096.0 * 32000.0);
  CHECK(model_flops_per_token(m, 4096) == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("moe: which layers route to experts (dense leading layers, every n-th layer after)") {
  TransformerSpec m = test::mixtral_8x7b();
  m.layers = 12;
  m.dense_layers = 3;  // DeepSeek-V3's first_k_dense_replace
  CHECK(!is_moe_layer(m, 2));
  CHECK(is_moe_layer(m, 3));
  CHECK(moe_layers_in(m, 0, 12) == 9);
  m.moe_layer_freq = 2;  // layers 3, 5, 7, 9, 11
  CHECK(moe_layers_in(m, 0, 12) == 5);
  CHECK(moe_layers_in(m, 4, 4) == 2);  // 5 and 7
  const std::vector<std::int64_t> split{3, 3, 3, 3};  // pp 2, vp 2: stage 0 holds chunks 0 and 2
  CHECK(moe_layers_of_stage(m, split, 2, 0) == 1);  // chunk 0 (0-2): none; chunk 2 (6-8): 7
  CHECK(moe_layers_of_stage(m, split, 2, 1) == 4);  // chunk 1 (3-5): 3, 5; chunk 3 (9-11): 9, 11
  m.experts = 0;
  CHECK(moe_layers_in(m, 0, 12) == 0);
}

TEST_CASE("moe: a grouped GEMM pads each expert's tiles and counts waves over all of them") {
  // 8 experts of 64 x 4096 with 128 x 128 tiles on 132 SMs: 1 x 32 tiles each, 256 in all, two
  // waves: 8 x 64 x 4096 useful of 2 x 132 x 128 x 128 computed. The 128 x 64 tile gives the same.
  const double expected = 8.0 * 64.0 * 4096.0 / (2.0 * 132.0 * 128.0 * 128.0);
  CHECK(grouped_gemm_tile_fill(128, 128, 132, 8, 64, 4096) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(grouped_gemm_tile_fill(128, 128, 132, 1, 512, 4096) == doctest::Approx(gemm_tile_fill(128, 128, 132, 512, 4096)));
}

TEST_CASE("moe: layout rules for expert parallelism") {
  const TransformerSpec m = test::mixtral_8x7b();
  const ClusterSpec c = test::h100_cluster(64);
  TrainingSpec t{.seq_len = 4096, .micro_batch = 1, .global_batch = 256};
  ParallelismSpec p{.tp = 2, .pp = 1, .dp = 32, .sp = true, .ep = 8};
  CHECK(!layout_violation(m, p, t, c));
  p.ep = 3;
  auto v = layout_violation(m, p, t, c);
  REQUIRE(v);
  CHECK(v->field == LayoutField::parallelism_ep);
  CHECK(v->rule == "3 does not divide experts=8");
  p.ep = 8;
  p.zero = 3;  // FSDP2 shards a MoE layer whole; DeepSpeed's 2021 tensor units are not modelled
  CHECK(!layout_violation(m, p, t, c));
  p.sharding = ShardingFramework::deepspeed_zero3_2021;
  v = layout_violation(m, p, t, c);
  REQUIRE(v);
  CHECK(v->field == LayoutField::parallelism_sharding);
  p.zero = 1;
  p.sp = false;
  v = layout_violation(m, p, t, c);
  REQUIRE(v);
  CHECK(v->field == LayoutField::parallelism_sp);
  // fp8 (every recipe) runs a mixture-of-experts model, latent attention's included.
  p.sp = true;
  t.precision = Precision::fp8;
  CHECK(!layout_violation(m, p, t, c));
  t.fp8_recipe = Fp8Recipe::blockwise;
  CHECK(!layout_violation(m, p, t, c));
  CHECK(!layout_violation(test::deepseek_v3(), {.tp = 1, .pp = 1, .dp = 64, .ep = 8}, t, c));
  t = {.seq_len = 4096, .micro_batch = 1, .global_batch = 256};
  TransformerSpec dense = test::llama3_8b();
  p = {.tp = 1, .pp = 1, .dp = 64, .ep = 2};
  v = layout_violation(dense, p, t, c);
  REQUIRE(v);
  CHECK(v->rule == "ep=2 needs a mixture-of-experts model (model.experts > 0)");
  TransformerSpec bad = m;
  bad.experts_per_token = 9;
  p = {.tp = 1, .pp = 1, .dp = 64};
  v = layout_violation(bad, p, t, c);
  REQUIRE(v);
  CHECK(v->field == LayoutField::model_experts_per_token);
}

TEST_CASE("sliding window: a banded layer computes the key tiles its window touches") {
  // Every layer windowed to 128 keys of a 4,096-token sequence: the kernel computes 2 tiles of 128
  // keys per query tile (the band crosses a tile edge) instead of half the 4,096 of a causal layer;
  // the model FLOPs count the window's 128 keys.
  TransformerSpec m = test::llama3_8b();
  const ParallelismSpec p{.tp = 1, .pp = 1, .dp = 1};
  const TrainingSpec t{.seq_len = 4096, .micro_batch = 1, .global_batch = 1, .recompute = Recompute::none};
  auto attention_op = [&](const TransformerSpec& model) {
    for (const OpCost& op : layer_costs(model, p, t).forward)
      if (op.name == "attention") return op;
    return OpCost{};
  };
  const OpCost full = attention_op(m);
  m.sliding_window = 128;
  m.sliding_window_layers = 1;
  const OpCost banded = attention_op(m);
  CHECK(banded.flops == doctest::Approx(full.flops / 0.5 * 256.0 / 4096.0));
  CHECK(banded.model_flops == doctest::Approx(full.model_flops * 128.0 / 4096.0));
  // Every other layer windowed: model FLOPs per token average the two.
  m.sliding_window_layers = 2;
  const double s = 4096.0, per_key = 2.0 * 32.0 * (128.0 + 128.0);
  TransformerSpec dense = test::llama3_8b();
  CHECK(model_flops_per_token(m, 4096) ==
        doctest::Approx(model_flops_per_token(dense, 4096) - 3.0 * 32.0 * 0.5 * per_key * (s - 128.0)));
}

TEST_CASE("moe: the holders a token's experts lie on, by hand") {
  TransformerSpec m = test::mixtral_8x7b();  // 8 experts
  m.experts_per_token = 3;
  // Consecutive: starts 0, 3, 6, 1, 4, 7, 2, 5. Over 4 holders of 2 experts every start spans 2;
  // over 2 holders of 4, starts 0, 1, 4, 5 stay on one and 2, 3, 6, 7 span two: 1.5.
  CHECK(expert_holders_per_token(m, MoeRouting::consecutive, 4) == doctest::Approx(2.0));
  CHECK(expert_holders_per_token(m, MoeRouting::consecutive, 2) == doctest::Approx(1.5));
  // Uniform over 2 holders of 4: a holder is missed when all 3 come from the other 4 experts,
  // C(4, 3) / C(8, 3) = 4 / 56.
  CHECK(expert_holders_per_token(m, MoeRouting::uniform, 2) == doctest::Approx(2.0 * (1.0 - 4.0 / 56.0)));
  // Top-3 over 8 holders of one expert each: three holders, however chosen.
  CHECK(expert_holders_per_token(m, MoeRouting::uniform, 8) == doctest::Approx(3.0));
  CHECK(expert_holders_per_token(m, MoeRouting::consecutive, 8) == doctest::Approx(3.0));
  CHECK(expert_holders_per_token(m, MoeRouting::uniform, 1) == 1.0);
}
