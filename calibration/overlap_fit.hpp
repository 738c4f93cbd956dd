#pragma once
/// The overlap constants (models/compute/overlap_interference.hpp) from overlap_bench
/// measurements: a victim kernel timed alone and beside a transfer on another stream.
/// The throughput a victim lost is 1 - alone_s / overlapped_s; then
/// - sms_held = lost x sm_count, over GEMMs beside an NCCL all-reduce of 2+ ranks;
/// - hbm_bytes_per_bus_byte = lost x HBM bandwidth / busbw, over copy kernels beside one;
/// - copy_hbm_bytes_per_byte = lost x HBM bandwidth / copy rate, over copy kernels beside a
///   device-to-device cudaMemcpyAsync;
/// each the mean of its samples with a 95 % interval (mean +- t(0.975, n-1) s / sqrt(n); none for
/// one sample). The other pairs are checks of the model, reported with the same statistics: a GEMM
/// beside a copy engine (the model: no loss), beside a copy kernel of known CTAs (the model: its
/// CTAs), a copy kernel beside a device-host copy (the model: 1 HBM byte per byte).
/// Samples whose transfer did not cover the victim's timed interval, and one-rank NCCL runs (NCCL
/// copies locally on one rank: no bus, no NCCL kernel to measure), are left out with a note.
/// Units: SMs, HBM bytes per byte, seconds, GB/s.
/// Limitations: the HBM bandwidth is the datasheet figure, as overlap_slowdown divides by; a GEMM's
/// loss includes any wave tail (a shape of few waves reads as more SMs held).
/// Source: derivations above; measurements from calibration/bench/overlap_bench.

#include <span>
#include <string>
#include <vector>

#include "calibration/bench_records.hpp"
#include "models/compute/overlap_interference.hpp"
#include "models/spec/gpu_spec.hpp"

namespace clustersim::calibration {

/// One (victim, transfer) pair's estimate: the mean of its samples and the interval.
struct OverlapEstimate {
  std::string quantity{};  // "sms_held", "hbm_bytes_per_bus_byte", ... or a check's name
  std::string victim{};
  std::string comm{};
  int samples = 0;
  double mean_lost = 0.0;  // mean throughput lost by the victim
  double value = 0.0;      // the quantity
  double lo = 0.0, hi = 0.0;  // 95 % interval; NaN with one sample
  double model = 0.0;         // what the built-in constants predict for it
  bool sets_constant = false;  // true: value replaces the profile constant of that name
  std::string from{};          // "file lines a-b"
};

struct OverlapFit {
  std::vector<OverlapEstimate> estimates{};
  std::vector<std::string> notes{};
};

/// A sample with the file it came from.
struct OverlapInput {
  OverlapSample sample{};
  std::string file{};
};

/// `sm_count` of the GPU that ran the samples; `defaults` the built-in constants the estimates are
/// compared with.
OverlapFit fit_overlap(std::span<const OverlapInput> samples, const models::GpuSpec& gpu, int sm_count,
                       const models::OverlapInterference& defaults);

}  // namespace clustersim::calibration
