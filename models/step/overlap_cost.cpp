#include "models/step/overlap_cost.hpp"

#include <algorithm>

namespace clustersim::models {

namespace {

/// Time a kernel of `seconds` takes extra when it loses `lost` of its throughput.
double slowed_extra(double seconds, double lost) { return lost < 1.0 ? seconds * lost / (1.0 - lost) : seconds; }

}  // namespace

double interference_s(const PassCompute& pass, std::span<const BesideTraffic> traffic, const GpuSpec& gpu,
                      const ComputeProfile& profile) {
  const int sm_count = profile.sm_count.value;
  double extra = 0.0;
  const double pass_s = std::max(pass.duration_s, pass.compute_bound_s + pass.memory_bound_s);
  for (const BesideTraffic& t : traffic) {
    if (!(t.seconds > 0.0)) continue;
    InterferenceShare share = overlap_slowdown(gpu, sm_count, profile.overlap, CommEngine::sm_kernel, t.bus_bytes_per_s);
    if (t.sms_held >= 0.0 && sm_count > 0)  // its own SMs, not an NCCL kernel's
      share.compute_bound = std::clamp(t.sms_held, 0.0, static_cast<double>(sm_count)) / sm_count;
    if (t.under_gemms_only) {
      if (pass.gemm_s > 0.0) extra += std::min(1.0, t.seconds / pass.gemm_s) * slowed_extra(pass.gemm_s, share.compute_bound);
      continue;
    }
    if (!(pass_s > 0.0)) continue;
    const double phi = std::min(1.0, t.seconds / pass_s);
    extra += phi * (slowed_extra(pass.compute_bound_s, share.compute_bound) +
                    slowed_extra(pass.memory_bound_s, share.memory_bound));
  }
  return extra;
}

}  // namespace clustersim::models
