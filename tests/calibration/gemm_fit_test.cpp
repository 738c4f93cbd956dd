#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "calibration/gemm_fit.hpp"

namespace {

using namespace clustersim::calibration;
using clustersim::models::Precision;

const GemmModelShape h100_shape{.tile_m = 128, .tile_n = 256, .sm_count = 132};

TEST_CASE("gemm fit: tile fill by hand on H100 (128 x 256 tiles, 132 SMs)") {
  // 1024^2: 8 x 4 = 32 tiles of 128 x 256 in one wave of 132 fill 1024^2 / (132 x 128 x 256) =
  // 0.2424; the half-width 128 x 128 tiles, 64 of them, fill 1024^2 / (132 x 128 x 128) = 0.4848.
  CHECK(tile_fill(h100_shape, 1024, 1024) == doctest::Approx(1048576.0 / 2162688.0));
  // 4096 x 1280: 32 x 5 = 160 tiles of 128 x 256 (or 256 x 128) take 2 waves: 0.606; 320 of
  // 128 x 128 take 3 waves (396 slots): 4096 x 1280 / (396 x 16384) = 0.808, the best.
  CHECK(tile_fill(h100_shape, 4096, 1280) == doctest::Approx(4096.0 * 1280.0 / (396.0 * 16384.0)));
  // 2048^2: 128 tiles, one wave: 4194304 / 4325376 = 0.9697.
  CHECK(tile_fill(h100_shape, 2048, 2048) == doctest::Approx(4194304.0 / 4325376.0));
  // 4096^2: 512 tiles, 4 waves of 132 = 528 tiles: 512 / 528.
  CHECK(tile_fill(h100_shape, 4096, 4096) == doctest::Approx(512.0 / 528.0));
  // 802816 x 192: 6272 x 1 tiles (each 3/4 used), 48 waves = 6336 tiles.
  CHECK(tile_fill(h100_shape, 802816, 192) == doctest::Approx(802816.0 * 192.0 / (6336.0 * 32768.0)));
  // 1536 x 2816 = 12 x 11 = 132 full tiles: exactly one full wave.
  CHECK(tile_fill(h100_shape, 1536, 2816) == doctest::Approx(1.0));
}

TEST_CASE("gemm fit: recovers e_max per precision and k_half from noisy samples within 2%") {
  // Truth: e_max bf16 0.80, fp8 0.70, k_half 300 (600 fp8 elements of k: fp8 steps through k twice
  // as fast, models::gemm_k_rate_ratio); +-0.5% noise. Shapes with full waves
  // (1536 x 2816, 3072 x 2816: fill 1), and 1024^2, whose 32 tiles are under one wave: the fit
  // leaves its 10 samples out (split-K territory), whatever they say.
  const double bf16_peak = 989e12, fp8_peak = 1979e12;
  std::mt19937 generator(7);
  std::vector<GemmSample> samples;
  int line = 0;
  for (const auto precision : {Precision::bf16, Precision::fp8}) {
    for (const auto& [m, n, fill] : {std::tuple{1536, 2816, 1.0}, std::tuple{3072, 2816, 1.0},
                                     std::tuple{1024, 1024, 1048576.0 / 4325376.0}}) {
      for (const int k : {256, 512, 1024, 2048, 8192}) {
        const double e_max = precision == Precision::bf16 ? 0.80 : 0.70;
        const double peak = precision == Precision::bf16 ? bf16_peak : fp8_peak;
        const double u = static_cast<double>(generator()) / 4294967296.0;
        const double k_half = precision == Precision::bf16 ? 300.0 : 600.0;
        const double efficiency = e_max * fill * k / (k + k_half) * (1.0 + 0.005 * (2.0 * u - 1.0));
        samples.push_back({.line = ++line, .m = m, .n = n, .k = k,
                           .dtype = precision == Precision::bf16 ? "bf16" : "fp8_e4m3", .precision = precision,
                           .time_us = 0.0, .tflops = efficiency * peak / 1e12, .source = ""});
      }
    }
  }
  const auto fit = fit_gemm(samples, {.shape = h100_shape, .bf16_peak_flops_per_s = bf16_peak,
                                      .fp8_peak_flops_per_s = fp8_peak, .k_half_prior = 256.0});
  CHECK(fit.e_max_bf16.fitted);
  CHECK(fit.e_max_bf16.value == doctest::Approx(0.80).epsilon(0.02));
  CHECK(fit.e_max_fp8.value == doctest::Approx(0.70).epsilon(0.02));
  CHECK(fit.k_half.fitted);
  CHECK(fit.k_half.value == doctest::Approx(300.0).epsilon(0.02));
  CHECK(fit.k_half.lo < fit.k_half.value);
  CHECK(fit.k_half.hi > fit.k_half.value);
  CHECK(fit.below_one_wave.size() == 10);
  CHECK(fit.dof == 20 - 3);
  CHECK(fit.max_relative < 0.01);
  REQUIRE(fit.tile_check.size() == 3);  // the given shape, then 128 x 128 and 256 x 128
  CHECK(fit.tile_check[0].shape.tile_n == 256);
  CHECK(fit.tile_check[0].rms_relative < 0.01);
}

TEST_CASE("gemm fit: k_half keeps its prior when the samples do not vary k") {
  // One bf16 GEMM: 2048^2 x 4096 at 700 TF/s on a 989 TF/s part. Fill 4194304 / 4325376,
  // k_fill = 4096 / (4096 + 256): e_max = 700 / 989 / fill / k_fill.
  const std::vector<GemmSample> one = {{.line = 1, .m = 2048, .n = 2048, .k = 4096, .dtype = "bf16",
                                        .precision = Precision::bf16, .time_us = 0.0, .tflops = 700.0, .source = ""}};
  const auto fit = fit_gemm(one, {.shape = h100_shape, .bf16_peak_flops_per_s = 989e12, .fp8_peak_flops_per_s = 1979e12,
                                  .k_half_prior = 256.0});
  CHECK_FALSE(fit.k_half.fitted);
  CHECK(fit.k_half.value == 256.0);
  CHECK(fit.e_max_bf16.value == doctest::Approx(700.0 / 989.0 / (4194304.0 / 4325376.0) / (4096.0 / 4352.0)));
  CHECK_FALSE(fit.e_max_fp8.fitted);
  CHECK(fit.dof == 0);
}

TEST_CASE("gemm fit: nvfp4 samples give e_max nvfp4, their k consumed 4 times bf16's rate") {
  // One nvfp4 GEMM beside a bf16 one, k held (k_half keeps its prior 202): the GB200's cuBLASLt FP4
  // at 8192^3, 7,535.6 TF/s of 10,000 (Azure ND GB200 v6, measurements.md 2.2), on 128 x 256 tiles
  // and 148 SMs: 2048 tiles in 14 waves fill 2048 / 2072; k_fill = 8192 / (8192 + 4 x 202).
  const GemmModelShape blackwell{.tile_m = 128, .tile_n = 256, .sm_count = 148};
  const std::vector<GemmSample> samples = {
      {.line = 1, .m = 8192, .n = 8192, .k = 8192, .dtype = "bf16", .precision = Precision::bf16, .time_us = 0.0,
       .tflops = 1800.0, .source = ""},
      {.line = 2, .m = 8192, .n = 8192, .k = 8192, .dtype = "nvfp4", .precision = Precision::nvfp4, .time_us = 0.0,
       .tflops = 7535.6, .source = ""}};
  const auto fit = fit_gemm(samples, {.shape = blackwell, .bf16_peak_flops_per_s = 2450e12, .fp8_peak_flops_per_s = 4900e12,
                                      .fp4_peak_flops_per_s = 10000e12, .k_half_prior = 202.0});
  CHECK(fit.e_max_fp4.fitted);
  CHECK(fit.e_max_fp4.value == doctest::Approx(0.75356 / (2048.0 / 2072.0) / (8192.0 / (8192.0 + 808.0))));
  CHECK_FALSE(fit.e_max_fp8.fitted);
  // Without FP4 tensor cores the sample is refused.
  CHECK_THROWS_AS(fit_gemm(samples, {.shape = blackwell, .bf16_peak_flops_per_s = 2450e12, .fp8_peak_flops_per_s = 4900e12,
                                     .k_half_prior = 202.0}),
                  std::invalid_argument);
}

TEST_CASE("gemm fit: an fp8 sample on a GPU without fp8 is refused") {
  const std::vector<GemmSample> fp8 = {{.line = 4, .m = 1024, .n = 1024, .k = 1024, .dtype = "fp8_e4m3",
                                        .precision = Precision::fp8, .time_us = 0.0, .tflops = 100.0, .source = ""}};
  CHECK_THROWS_AS(fit_gemm(fp8, {.shape = h100_shape, .bf16_peak_flops_per_s = 312e12, .fp8_peak_flops_per_s = 0.0,
                                 .k_half_prior = 256.0}),
                  std::invalid_argument);
}

}  // namespace
