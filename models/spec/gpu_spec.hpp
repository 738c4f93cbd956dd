#pragma once
/// One GPU type as the simulator sees it: dense tensor peaks, HBM size and bandwidth, NVLink.
/// Units are SI inside the code (FLOP/s, bytes, bytes/s, watts); scenario keys carry the units
/// they are written in and are converted once, at load.
/// Source of the preset values: shared reference "measurements.md" section 4 (vendor datasheets).

#include <string>
#include <string_view>

#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

struct GpuSpec {
  std::string name;
  double bf16_flops_per_s = 0.0;  // dense peak
  double fp8_flops_per_s = 0.0;   // dense peak; 0 where the GPU has no FP8 tensor cores
  // Dense FP4 peak (Blackwell's NVFP4/MXFP4 tensor cores), the peak of training.precision nvfp4; 0
  // where there are none.
  double fp4_flops_per_s = 0.0;
  double hbm_bytes = 0.0;
  double hbm_bytes_per_s = 0.0;
  double nvlink_bytes_per_s = 0.0;  // per direction, per GPU, into the NVSwitch domain
  double power_w = 0.0;

  friend bool operator==(const GpuSpec&, const GpuSpec&) = default;
};

/// The architecture of a GPU preset, read from its name: what a kernel, a recipe or a NCCL table
/// depends on (FlashAttention-3 runs on Hopper, mxfp8 on Blackwell, NCCL's per-channel figures
/// are per architecture). A preset of a known die names it first (h100-96gb-500w is Hopper).
enum class GpuGeneration { ampere, hopper, blackwell, unknown };

constexpr GpuGeneration gpu_generation(std::string_view name) {
  if (name.starts_with("a100")) return GpuGeneration::ampere;
  if (name.starts_with("h100") || name.starts_with("h200")) return GpuGeneration::hopper;
  if (name.starts_with("b200") || name.starts_with("gb200") || name.starts_with("b300") || name.starts_with("gb300"))
    return GpuGeneration::blackwell;
  return GpuGeneration::unknown;
}

/// The dense tensor-core peak of `gpu` at `precision` (bf16, fp8, or FP4 for nvfp4); 0 where the
/// GPU has none.
constexpr double tensor_peak_flops_per_s(const GpuSpec& gpu, Precision precision) {
  switch (precision) {
    case Precision::bf16: return gpu.bf16_flops_per_s;
    case Precision::fp8: return gpu.fp8_flops_per_s;
    case Precision::nvfp4: return gpu.fp4_flops_per_s;
  }
  return 0.0;
}

}  // namespace clustersim::models
