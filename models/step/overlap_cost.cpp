#include "models/step/overlap_cost.hpp"

#include <algorithm>

namespace clustersim::models {

namespace {

/// Seconds a pass grows by beside `traffic_s` seconds of traffic, when it lasts `pass_s` and loses
/// `lost_per_s` seconds of its kernels' work per second of traffic. The traffic's seconds are its
/// own (the network sets them), so the work lost is its window times the rate; a pass that the
/// traffic outlasts stretches until its work is done, each second of the stretch losing as much.
double stretch_s(double traffic_s, double pass_s, double lost_per_s) {
  if (lost_per_s >= 1.0 || traffic_s * (1.0 - lost_per_s) <= pass_s) return traffic_s * std::min(lost_per_s, 1.0);
  return pass_s * lost_per_s / (1.0 - lost_per_s);
}

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
      if (pass.gemm_s > 0.0) extra += stretch_s(t.seconds, pass.gemm_s, share.compute_bound);
      continue;
    }
    if (!(pass_s > 0.0)) continue;
    // Spread over the pass, the traffic meets its compute-bound and memory-bound kernels in the
    // shares of the pass's time they fill.
    const double lost_per_s =
        (pass.compute_bound_s * share.compute_bound + pass.memory_bound_s * share.memory_bound) / pass_s;
    extra += stretch_s(t.seconds, pass_s, lost_per_s);
  }
  return extra;
}

}  // namespace clustersim::models
