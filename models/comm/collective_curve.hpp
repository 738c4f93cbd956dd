#pragma once
/// A measured collective time curve for one collective on one rank layout, as `clustersim
/// calibrate` fits it from nccl-tests runs: contiguous size segments, each a line
/// time = alpha + bytes x bus factor / busbw (or a constant where the sizes are latency-bound).
/// NCCL changes protocol, algorithm and channel count with the message size, so its measured busbw
/// climbs over decades of sizes in a way one alpha-beta line cannot follow; the segments can.
/// Units: bytes (nccl-tests' "size"), seconds, bytes/s.
/// Between two segments' sizes the time is interpolated, straight in log time against log size,
/// from the lower segment's largest size to the upper one's smallest.
/// Limitations: below and above the measured sizes the nearest segment's line extrapolates.
/// Source: calibration/collective_fit.hpp (how the segments are fitted).

#include <cstdint>
#include <vector>

namespace clustersim::models {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all, send_recv };

struct CurveSegment {
  double min_bytes = 0.0;  // the sizes it was fitted on
  double max_bytes = 0.0;
  double alpha_s = 0.0;
  double busbw_bytes_per_s = 0.0;  // 0: latency-bound, the time is alpha alone
};

struct CollectiveCurve {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::int64_t ranks = 0;
  std::int64_t ranks_per_node = 0;
  std::vector<CurveSegment> segments{};  // by size
  // Measured across nodes where the AWS OFI plugin's tuner chose the algorithms (AWS EFA): its
  // sizes' algorithms and fixed costs are that tuner's, so it prices clusters whose fabric runs it
  // and only bounds the others (collective_time_s); a curve measured under NCCL's own tuner
  // prices only the others.
  bool aws_ofi_tuner = false;

  /// Seconds for `bytes`, with `bus_factor` bytes moved per rank per byte of buffer.
  double time_s(double bytes, double bus_factor) const;

  friend bool operator==(const CollectiveCurve&, const CollectiveCurve&) = default;
};

}  // namespace clustersim::models
