#include "models/compute/compute_time.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::models {

double op_time_s(const OpCost& op, const GpuSpec& gpu, const ComputeProfile& profile, Precision precision) {
  double compute_s = 0.0;
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::attention_gemm: {
      // fp8 and nvfp4 recipes cast the linear layers only; the attention core stays bf16, and so
      // do the backward GEMMs when the recipe keeps them there.
      const bool bf16_only = op.kind == OpKind::attention_gemm || op.bf16_gemm;
      const Precision p = bf16_only ? Precision::bf16 : precision;
      const double peak = tensor_peak_flops_per_s(gpu, p);
      const double recipe = p == Precision::fp8 ? op.fp8_rate : 1.0;
      const double rate = peak * recipe * grouped_gemm_efficiency(profile, p, op.gemm_groups, op.gemm_m, op.gemm_n, op.gemm_k);
      if (!(rate > 0.0)) {
        throw std::invalid_argument(fmt::format("{}: GPU {} / profile {} has no {} GEMM rate", op.name,
                                                gpu.name, profile.gpu, precision_name(p)));
      }
      compute_s = op.flops / rate;
      break;
    }
    case OpKind::attention:
      compute_s = op.flops / (gpu.bf16_flops_per_s * attention_sustained_efficiency(profile, op.attention_kernel));
      if (op.attention_dropout) compute_s *= attention_dropout_factor(profile, op.attention_kernel);
      if (op.attention_fp8) compute_s *= fp8_attention_time_ratio(profile, op.attention_keys, op.attention_backward);
      break;
    case OpKind::elementwise:
      break;
  }
  const double memory_s = op.bytes / (gpu.hbm_bytes_per_s * profile.hbm_efficiency.value);
  return std::max(compute_s, memory_s) + op.kernels * profile.launch_overhead_s.value;
}

double ops_time_s(std::span<const OpCost> ops, const GpuSpec& gpu, const ComputeProfile& profile,
                  Precision precision) {
  double sum = 0.0;
  for (const OpCost& op : ops) sum += op_time_s(op, gpu, profile, precision);
  return sum;
}

}  // namespace clustersim::models
