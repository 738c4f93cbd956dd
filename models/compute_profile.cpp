#include "models/compute_profile.hpp"

#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::models {
namespace {

// Shared by every bundled profile.
constexpr std::string_view kMamf =
    "measurements.md 2.1: MAMF (torch.matmul, best of a shape sweep, stas00/ml-engineering)";
constexpr std::string_view kCublasLt = "measurements.md 2.2: Azure AI-benchmarking-guide cuBLASLt";
constexpr std::string_view kFlashAttention2 =
    "measurements.md 2.2: FlashAttention-2, head dim 128, batch 2, seq 8192 (Azure "
    "AI-benchmarking-guide), TF/s over bf16 dense peak";
constexpr std::string_view kStream = "measurements.md 2.2: STREAM copy (Azure AI-benchmarking-guide) over datasheet HBM bandwidth";

Sourced<double> k_half_fit() {
  // Solves 1024^3 on H100 fp8: 274.1 TF/s measured = 1979 x 0.709 x tile_fill 0.242 x k_fill;
  // k_fill(1024) = 0.80 gives k_half = 256. The same curve is within 5% at 4096^3 to 16384^3.
  return {256.0, fmt::format("fit: {} 1024^3 H100 v5 FP8 row, given MAMF e_max and tile_fill", kCublasLt)};
}

Sourced<double> launch_overhead() {
  return {4e-6,
          "assumption: typical CUDA kernel launch latency plus ramp-up/tail of a few microseconds "
          "per kernel without CUDA graphs; not measured here"};
}

Sourced<int> hopper_tile_m() { return {128, "assumption: 128 x 256 CTA tile, common for Hopper/Blackwell cuBLAS and CUTLASS GEMMs"}; }
Sourced<int> hopper_tile_n() { return {256, "assumption: 128 x 256 CTA tile, common for Hopper/Blackwell cuBLAS and CUTLASS GEMMs"}; }

ComputeProfile a100() {
  return {
      .gpu = "a100-80gb",
      .gemm_max_efficiency_bf16 = {271.2 / 312.0, fmt::format("{}: A100 SXM bf16 271.2 / 312 TF/s", kMamf)},
      .gemm_max_efficiency_fp8 = {0.0, "A100 has no fp8 tensor cores (measurements.md 4)"},
      .sm_count = {108, "NVIDIA A100 whitepaper: 108 SMs"},
      .tile_m = {128, "assumption: 128 x 128 CTA tile, the common Ampere cuBLAS/CUTLASS bf16 tile; "
                      "matches the A100 cuBLASLt 1024^3 row (119 TF/s) within 10%"},
      .tile_n = {128, "assumption: 128 x 128 CTA tile (see tile_m)"},
      .k_half = k_half_fit(),
      .attention_efficiency = {179.5 / 312.0, fmt::format("{}; A100 179.5 TF/s at head dim 64", kFlashAttention2)},
      .hbm_efficiency = {1.61 / 2.039, fmt::format("{}: A100-80GB 1.61 / 2.039 TB/s", kStream)},
      .launch_overhead_s = launch_overhead(),
  };
}

ComputeProfile h100() {
  return {
      .gpu = "h100-sxm",
      .gemm_max_efficiency_bf16 = {794.5 / 989.0, fmt::format("{}: H100 SXM bf16 794.5 / 989 TF/s", kMamf)},
      .gemm_max_efficiency_fp8 = {1402.6 / 1979.0, fmt::format("{}: H100 SXM fp8 e4m3 1402.6 / 1979 TF/s", kMamf)},
      .sm_count = {132, "measurements.md 4: H100 SXM5 132 SMs (NVIDIA whitepaper via Lockwood)"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = k_half_fit(),
      .attention_efficiency = {327.9 / 989.0, fmt::format("{}: H100 327.9 TF/s", kFlashAttention2)},
      .hbm_efficiency = {2.90 / 3.35, fmt::format("{}: H100 2.90 / 3.35 TB/s", kStream)},
      .launch_overhead_s = launch_overhead(),
  };
}

ComputeProfile h200() {
  return {
      .gpu = "h200-sxm",
      .gemm_max_efficiency_bf16 = {794.5 / 989.0,
                                   fmt::format("{}: H100 SXM bf16 794.5 / 989 TF/s, noted there as "
                                               "\"H200 is the same\"", kMamf)},
      .gemm_max_efficiency_fp8 = {1453.4 / 1979.0, fmt::format("{}: H200 SXM fp8 e4m3 1453.4 / 1979 TF/s", kMamf)},
      .sm_count = {132, "H200 uses the H100 SXM5 die: 132 SMs (measurements.md 4)"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = k_half_fit(),
      .attention_efficiency = {329.3 / 989.0, fmt::format("{}: H200 329.3 TF/s", kFlashAttention2)},
      .hbm_efficiency = {4.01 / 4.8, fmt::format("{}: H200 4.01 / 4.8 TB/s", kStream)},
      .launch_overhead_s = launch_overhead(),
  };
}

ComputeProfile b200() {
  return {
      .gpu = "b200",
      .gemm_max_efficiency_bf16 = {1745.0 / 2250.0, fmt::format("{}: B200 SXM bf16 1745.0 / 2250 TF/s", kMamf)},
      .gemm_max_efficiency_fp8 = {3432.5 / 4500.0, fmt::format("{}: B200 SXM fp8 e4m3 3432.5 / 4500 TF/s", kMamf)},
      .sm_count = {148, "assumption: 148 SMs enabled on B200 (NVIDIA Blackwell material; not in measurements.md)"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = k_half_fit(),
      .attention_efficiency = {373.9 / 2450.0,
                               fmt::format("assumption: no B200 row; the GB200 value of {}: 373.9 / 2450 TF/s",
                                           kFlashAttention2)},
      .hbm_efficiency = {4.01 / 4.8, fmt::format("assumption: no B200 row; the H200 value of {}", kStream)},
      .launch_overhead_s = launch_overhead(),
  };
}

ComputeProfile gb200() {
  return {
      .gpu = "gb200",
      // Against NVIDIA's 2450/4900 TF/s peaks (measurements.md 4, dgxc), so that e_max x peak gives
      // the measured TF/s when the GPU preset uses them; against ml-engineering's 2500/5000 the
      // fractions are 0.729 and 0.723.
      .gemm_max_efficiency_bf16 = {1822.0 / 2450.0, fmt::format("{}: GB200 bf16 1822.0 TF/s over NVIDIA's 2450", kMamf)},
      .gemm_max_efficiency_fp8 = {3615.6 / 4900.0, fmt::format("{}: GB200 fp8 e4m3 3615.6 TF/s over NVIDIA's 4900", kMamf)},
      .sm_count = {148, "assumption: 148 SMs per Blackwell GPU, as B200"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = k_half_fit(),
      .attention_efficiency = {373.9 / 2450.0, fmt::format("{}: GB200 373.9 / 2450 TF/s", kFlashAttention2)},
      .hbm_efficiency = {4.01 / 4.8, fmt::format("assumption: no GB200 row; the H200 value of {}", kStream)},
      .launch_overhead_s = launch_overhead(),
  };
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

ComputeProfile default_compute_profile(std::string_view gpu) {
  if (gpu == "a100-80gb") return a100();
  if (gpu == "h100-sxm") return h100();
  if (gpu == "h200-sxm") return h200();
  if (gpu == "b200") return b200();
  if (gpu == "gb200") return gb200();
  throw std::invalid_argument(fmt::format(
      "no bundled compute profile for GPU \"{}\" (have a100-80gb, h100-sxm, h200-sxm, b200, gb200)", gpu));
}

double gemm_efficiency(const ComputeProfile& profile, Precision precision, int m, int n, int k) {
  const double e_max = precision == Precision::fp8 ? profile.gemm_max_efficiency_fp8.value
                                                   : profile.gemm_max_efficiency_bf16.value;
  if (m <= 0 || n <= 0 || k <= 0) return e_max;
  const std::int64_t tile_m = profile.tile_m.value, tile_n = profile.tile_n.value;
  const std::int64_t sms = profile.sm_count.value;
  const std::int64_t tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n);
  const std::int64_t waves = ceil_div(tiles, sms);
  const double tile_fill =
      static_cast<double>(m) * static_cast<double>(n) / static_cast<double>(waves * sms * tile_m * tile_n);
  const auto kd = static_cast<double>(k);
  const double k_fill = kd / (kd + profile.k_half.value);
  return e_max * tile_fill * k_fill;
}

}  // namespace clustersim::models
