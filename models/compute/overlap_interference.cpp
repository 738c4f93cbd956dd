#include "models/compute/overlap_interference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/compute/compute_profile.hpp"

namespace clustersim::models {
namespace {

// Per bus byte of a ring collective, NCCL's runRing (src/device/all_reduce.h): every chunk this
// GPU receives is written into its HBM by the sending peer and read once by its kernel (2 bytes);
// the user input is read and the output written once each, S bytes apiece against the
// 2(n-1)/n x S bus bytes of an all-reduce, n/(n-1) more: 2 + n/(n-1) = 3.14 at n = 8, 3 for
// large n. All-gather and reduce-scatter come to 3 + 2/(n-1) and 3 + 1/(n-1) in the same count.
Sourced<double> ring_hbm_traffic() {
  return {3.0,
          "NCCL src/device/all_reduce.h runRing: each received chunk is written to HBM by the peer and "
          "read once by the kernel, input read and output written once: 2 + n/(n-1) HBM bytes per bus "
          "byte, 3 for large n (3.14 at n = 8); an upper bound where NCCL's direct mode writes into the "
          "output buffer"};
}

Sourced<double> copy_hbm_traffic() {
  return {2.0, "a device-to-device copy reads and writes each byte once (the read + write count of STREAM "
               "Copy and calibration/bench/membw_bench)"};
}

constexpr std::string_view kRingA100 =
    "NCCL ring channels on an 8-GPU HGX A100 node: 24 (NCCL_DEBUG=INFO 'Channel 23/24', "
    "NVIDIA/nccl-tests issue #100), one CTA and so one SM per channel";
constexpr std::string_view kRingH100 =
    "an ncclAllGather kernel on H100 SXM (132 SMs) held 24 CTAs beside a GEMM in Nsight Systems (NVIDIA "
    "developer forum, 'Compute-Communication Overlap Causes Severe GEMM Performance Degradation because "
    "of Tail Effect', 2025); NVLS all-reduce holds 16 (NVLS_NCHANNELS_SM90, NCCL src/transport/nvls.cc)";
constexpr std::string_view kBlackwell =
    "NCCL src/transport/nvls.cc: NVLS_NCHANNELS_SM100 = 32 CTAs across nodes (24 inside one NVLink "
    "domain, NVLS_NCHANNELS_SM100_NVL); Blackwell ring channel counts not found published";

OverlapInterference with_sms(double sms, std::string_view source) {
  return {.sms_held = {sms, std::string(source)},
          .hbm_bytes_per_bus_byte = ring_hbm_traffic(),
          .copy_hbm_bytes_per_byte = copy_hbm_traffic()};
}

}  // namespace

OverlapInterference default_overlap_interference(std::string_view gpu) {
  if (gpu == "a100-80gb") return with_sms(24, kRingA100);
  if (gpu == "h100-sxm") return with_sms(24, kRingH100);
  if (gpu == "h200-sxm") return with_sms(24, std::string("as h100-sxm (the same GH100 die and NVLink 4 node): ") + std::string(kRingH100));
  if (gpu_generation(gpu) == GpuGeneration::blackwell) return with_sms(32, kBlackwell);
  const std::string none = "no built-in overlap constants for GPU \"" + std::string(gpu) + "\": interference not modelled";
  return {.sms_held = {0.0, none}, .hbm_bytes_per_bus_byte = {0.0, none}, .copy_hbm_bytes_per_byte = {0.0, none}};
}

InterferenceShare overlap_slowdown(const GpuSpec& gpu, int sm_count, const OverlapInterference& interference,
                                   CommEngine engine, double comm_bytes_per_s) {
  const double rate = std::max(0.0, comm_bytes_per_s);
  InterferenceShare share;
  const double bytes_per_byte = engine == CommEngine::sm_kernel ? interference.hbm_bytes_per_bus_byte.value
                                                                : interference.copy_hbm_bytes_per_byte.value;
  if (gpu.hbm_bytes_per_s > 0.0) share.memory_bound = std::min(1.0, bytes_per_byte * rate / gpu.hbm_bytes_per_s);
  if (engine == CommEngine::sm_kernel && sm_count > 0) {
    share.sms_taken = std::clamp(interference.sms_held.value, 0.0, static_cast<double>(sm_count));
    share.compute_bound = share.sms_taken / static_cast<double>(sm_count);
  }
  return share;
}

double overlapped_gemm_efficiency(const ComputeProfile& profile, double sms_taken, Precision precision, int m, int n,
                                  int k) {
  const int sms = profile.sm_count.value;
  const int taken = std::clamp(static_cast<int>(std::lround(sms_taken)), 0, sms);
  if (taken == sms) return 0.0;
  ComputeProfile left = profile;
  left.sm_count.value = sms - taken;
  return gemm_efficiency(left, precision, m, n, k) * static_cast<double>(sms - taken) / static_cast<double>(sms);
}

}  // namespace clustersim::models
