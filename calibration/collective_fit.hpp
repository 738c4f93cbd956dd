#pragma once
/// Alpha-beta fits of measured collective times: time_us = alpha_us + bytes x bus_factor / busbw,
/// linear in bytes, per collective and rank layout (scope nvlink: one node; network: several).
/// Fitted by relative least squares: each row (1, bytes) = time is divided by the measured time,
/// so the fit minimises the sum of squared relative errors and an 8 B latency counts as much as a
/// 16 GiB transfer. alpha and 1/busbw come with 95 % intervals from the residual variance and
/// (X^T X)^-1 of the weighted rows (least_squares.hpp); busbw's interval is 1/slope's.
/// One straight line rarely covers 8 B to 16 GiB: NCCL switches protocol (LL, LL128, Simple),
/// algorithm and channel count with size, so measured busbw climbs over decades. The fit therefore
/// splits the sizes into the fewest contiguous segments whose lines all stay within a relative
/// tolerance, by dynamic programming (segments of 3+ sizes preferred: a 2-size segment is an exact
/// line without an interval); max_segments = 1 gives the classic single alpha-beta line. A segment whose slope comes out negative is latency-bound: refitted as a
/// constant, with no busbw (NaN).
/// Units: bytes, microseconds, GB/s (1e9 bytes/s), as nccl-tests prints them.
/// Limitations: between two segments the nearer one (in log size) predicts, so the model steps at
/// segment edges; R^2 is on log time (the scale the fit weighs); the intervals assume independent
/// relative errors, which repeated runs of one binary on one machine only approximate.
/// Source: NCCL's tuning model (per protocol and algorithm: latency + bytes / bandwidth) and
/// nccl-tests' bus-bandwidth convention (PERFORMANCE.md).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/comm/collectives.hpp"

namespace clustersim::calibration {

enum class LinkScope { nvlink, network };
std::string_view scope_name(LinkScope scope);

struct CollectivePoint {
  std::int64_t bytes = 0;
  double time_us = 0.0;
  int line = 0;  // where it was read, for the report
};

/// The measurements of one collective on one rank layout.
struct CollectiveGroup {
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::int64_t ranks = 0;
  std::int64_t ranks_per_node = 0;
  std::string source{};  // file(s) the points came from
  std::vector<CollectivePoint> points{};
};

struct AlphaBetaSegment {
  std::int64_t min_bytes = 0;  // the sizes it was fitted on
  std::int64_t max_bytes = 0;
  int points = 0;
  double alpha_us = 0.0;
  double alpha_lo_us = 0.0, alpha_hi_us = 0.0;  // 95 %; NaN with fewer than 3 points
  double busbw_gb_per_s = 0.0;                  // NaN: latency-bound segment
  double busbw_lo = 0.0, busbw_hi = 0.0;        // 95 %; hi is +inf when the slope's interval reaches 0
  double r2_log = 0.0;                          // R^2 of log(time)
  double rms_relative = 0.0;                    // sqrt(mean((predicted / measured - 1)^2))
  double max_relative = 0.0;                    // max |predicted / measured - 1|

  double time_us(double bytes, double bus_factor) const;
};

/// The fitted curve of one collective on one layout, as a calibration profile stores it.
struct CollectiveModel {
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::int64_t ranks = 0;
  std::int64_t ranks_per_node = 0;
  std::string source{};
  std::vector<AlphaBetaSegment> segments{};  // by size
  bool aws_ofi_tuner = false;  // across nodes under the AWS OFI plugin's tuner (models::CollectiveCurve)

  std::int64_t nodes() const { return ranks / ranks_per_node; }
  LinkScope scope() const { return nodes() > 1 ? LinkScope::network : LinkScope::nvlink; }
  double bus_factor() const { return models::bus_factor(op, ranks); }
  /// The same curve in the step model's SI units (the nearest segment in log size predicts).
  models::CollectiveCurve curve() const;
  double predict_time_us(double bytes) const;
  double predict_busbw_gb_per_s(double bytes) const;  // bytes x bus factor / predicted time
};

struct CollectiveFitOptions {
  double tolerance = 0.03;  // max |relative time error| a segment may leave
  int max_segments = 0;     // 0: as many as the tolerance needs
};

/// A segment's parameter covariance (alpha in us, slope in us per byte), for intervals of the
/// predicted time at a given size: var(t) = var_alpha + 2 x bytes x cov + bytes^2 x var_slope.
struct SegmentCovariance {
  double var_alpha = 0.0;
  double cov_alpha_slope = 0.0;
  double var_slope = 0.0;  // 0 for a latency-bound (constant) segment
  double t95 = 0.0;        // Student's t(0.975, dof); NaN when dof == 0
};

struct CollectiveFit {
  CollectiveModel model{};
  std::vector<SegmentCovariance> covariance{};  // per segment of model
  std::vector<CollectivePoint> points{};  // sorted by size
  std::vector<double> predicted_us{};     // per point
  double rms_relative = 0.0;            // over all points
  double max_relative = 0.0;
};

/// One relative-least-squares line through `points` (>= 2, at least two distinct sizes).
AlphaBetaSegment fit_alpha_beta(std::span<const CollectivePoint> points, double bus_factor,
                                SegmentCovariance* covariance = nullptr);

/// 95 % interval of the busbw segment `index` of `fit` predicts at `bytes` (from the interval of
/// its predicted time); {NaN, NaN} without residual degrees of freedom.
std::pair<double, double> busbw_interval(const CollectiveFit& fit, std::size_t index, double bytes);

/// Segments and fits a group (>= 2 points). Throws std::invalid_argument naming the group when
/// there are too few points or sizes.
CollectiveFit fit_collective(const CollectiveGroup& group, const CollectiveFitOptions& options = {});

}  // namespace clustersim::calibration
