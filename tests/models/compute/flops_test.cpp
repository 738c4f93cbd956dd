#include "models/compute/flops.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

using test::gpt3_175b;
using test::llama3_405b;
using test::llama3_70b;
using test::llama3_8b;

TrainingSpec gpt3_training(Recompute recompute) {
  return {.seq_len = 2048, .micro_batch = 1, .global_batch = 1536, .recompute = recompute};
}

TEST_CASE("flops: GPT-3 175B model FLOPs per step match Narayanan et al. 2021 eq. 3 without recompute") {
  // L = 96, h = 12288, s = 2048, V = 51200, B = 1536. With f = 4h and g = a the per-layer count
  // 2 x 12h^2 + 4sh per token, plus 2hV logits, x3 passes, gives
  // 72 B s L h^2 (1 + s/(6h) + V/(12 L h)) = 3.386197e18 FLOPs.
  const double B = 1536, s = 2048, L = 96, h = 12288, V = 51200;
  const double expected = 72.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * L * h));
  CHECK(expected == doctest::Approx(3.386197e18).epsilon(1e-6));
  const double got = model_flops_per_step(gpt3_175b(), gpt3_training(Recompute::none));
  CHECK(got == doctest::Approx(expected).epsilon(1e-3));
  // Model FLOPs do not count recomputation, whatever the setting.
  CHECK(model_flops_per_step(gpt3_175b(), gpt3_training(Recompute::full)) == doctest::Approx(got));
}

TEST_CASE("flops: GPT-3 175B hardware FLOPs with full recompute match 96 B s L h^2 (1 + s/6h + V/16Lh)") {
  // Full recompute adds a fourth pass over every layer (not the logits):
  // 96 B s L h^2 (1 + s/(6h) + V/(16 L h)) = 4.510971e18 FLOPs, the count behind the TFLOP/s of
  // Narayanan et al. 2021.
  const double B = 1536, s = 2048, L = 96, h = 12288, V = 51200;
  const double expected = 96.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
  CHECK(expected == doctest::Approx(4.510971e18).epsilon(1e-6));
  CHECK(hardware_flops_per_step(gpt3_175b(), gpt3_training(Recompute::full)) ==
        doctest::Approx(expected).epsilon(1e-3));
}

TEST_CASE("flops: hardware FLOPs add the attention forward for selective recompute and nothing without") {
  // Selective recompute redoes the scores and values forward: 4 s h per layer and token, i.e.
  // B s L 4 s h = 1536 x 2048 x 96 x 4 x 2048 x 12288 = 3.04e16 more than the model FLOPs.
  const double B = 1536, s = 2048, L = 96, h = 12288;
  const double model = model_flops_per_step(gpt3_175b(), gpt3_training(Recompute::none));
  CHECK(hardware_flops_per_step(gpt3_175b(), gpt3_training(Recompute::none)) == doctest::Approx(model));
  CHECK(hardware_flops_per_step(gpt3_175b(), gpt3_training(Recompute::selective)) ==
        doctest::Approx(model + B * s * L * 4.0 * s * h).epsilon(1e-9));
}

TEST_CASE("flops: Llama 3 70B per token is 6 x (matmul + logits parameters) + 12 L s h") {
  // Gated MLP and grouped-query attention enter only through the matmul parameter count:
  // per layer 2 h^2 (Q, O) + 2 h (h g / a) (K, V) + 3 h f = 855,638,016 for h = 8192, g/a = 1/8,
  // f = 28672; logits V h = 128256 x 8192 = 1,050,673,152. At s = 8192:
  // 6 (80 x 855,638,016 + 1,050,673,152) + 12 x 80 x 8192 x 8192.
  const double per_layer = 2.0 * 8192.0 * 8192.0 + 2.0 * 8192.0 * 1024.0 + 3.0 * 8192.0 * 28672.0;
  CHECK(per_layer == 855638016.0);
  CHECK(static_cast<double>(layer_matmul_parameters(llama3_70b())) == per_layer);
  const double expected = 6.0 * (80.0 * per_layer + 128256.0 * 8192.0) + 12.0 * 80.0 * 8192.0 * 8192.0;
  CHECK(model_flops_per_token(llama3_70b(), 8192) == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("flops: parameter counts of well-known models") {
  // Llama 3 8B: 32 x (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 4096
  // + 2 x 128256 x 4096 = 8,030,261,248, the count of the released checkpoint.
  CHECK(parameter_count(llama3_8b()) == 8'030'261'248);
  CHECK(parameter_count(llama3_8b(), false) == 8'030'261'248 - 2LL * 128256 * 4096);
  // Published sizes; biases and position embeddings are not modelled (GPT-3: 25M + 15M, 0.02%).
  CHECK(static_cast<double>(parameter_count(llama3_70b())) == doctest::Approx(70.6e9).epsilon(1e-3));
  CHECK(static_cast<double>(parameter_count(llama3_405b())) == doctest::Approx(405.9e9).epsilon(1e-3));
  CHECK(static_cast<double>(parameter_count(gpt3_175b())) == doctest::Approx(174.6e9).epsilon(1e-3));
}

TEST_CASE("flops: tied embeddings count the vocabulary matrix once") {
  // GPT-3 175B with V = 51200, h = 12288: untying adds one more 51200 x 12288 matrix.
  TransformerSpec untied = gpt3_175b();
  untied.tied_embeddings = false;
  CHECK(parameter_count(untied) - parameter_count(gpt3_175b()) == 51200LL * 12288);
  CHECK(parameter_count(untied, false) == parameter_count(gpt3_175b(), false));
}

TEST_CASE("flops: peak follows the precision and MFU divides by step time, GPUs and peak") {
  const GpuSpec h100 = test::h100();
  CHECK(peak_flops_per_s(h100, Precision::bf16) == 989e12);
  CHECK(peak_flops_per_s(h100, Precision::fp8) == 1979e12);
  // An A100 has no fp8 tensor cores: asking for its fp8 peak is an error, not zero.
  CHECK_THROWS_AS(peak_flops_per_s(test::a100(), Precision::fp8), std::invalid_argument);
  // 4.95e18 FLOPs in 10 s on 1000 GPUs of 989 TF/s: 4.95e18 / 9.89e18 = 0.5005.
  CHECK(mfu(4.95e18, 10.0, 1000, 989e12) == doctest::Approx(4.95e18 / 9.89e18));
}

}  // namespace
}  // namespace clustersim::models
