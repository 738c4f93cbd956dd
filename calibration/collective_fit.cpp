#include "calibration/collective_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "calibration/least_squares.hpp"
#include "calibration/nccl_tests_log.hpp"

namespace clustersim::calibration {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// busbw in GB/s from a slope in us per byte: factor bytes per (slope x bytes) us.
double busbw_from_slope(double bus_factor, double us_per_byte) {
  return us_per_byte > 0.0 ? bus_factor / us_per_byte / 1e3 : kInf;
}

void score(AlphaBetaSegment& segment, std::span<const CollectivePoint> points, double bus_factor) {
  double sum_sq = 0.0, worst = 0.0, log_mean = 0.0, log_ss = 0.0, log_res = 0.0;
  for (const auto& p : points) log_mean += std::log(p.time_us);
  log_mean /= static_cast<double>(points.size());
  for (const auto& p : points) {
    const double predicted = segment.time_us(static_cast<double>(p.bytes), bus_factor);
    const double relative = predicted / p.time_us - 1.0;
    sum_sq += relative * relative;
    worst = std::max(worst, std::abs(relative));
    const double log_measured = std::log(p.time_us);
    log_ss += (log_measured - log_mean) * (log_measured - log_mean);
    const double log_residual = predicted > 0.0 ? log_measured - std::log(predicted) : kInf;
    log_res += log_residual * log_residual;
  }
  segment.rms_relative = std::sqrt(sum_sq / static_cast<double>(points.size()));
  segment.max_relative = worst;
  segment.r2_log = log_ss > 0.0 ? 1.0 - log_res / log_ss : 1.0;
}

// Latency-bound: the time does not grow with size in this range; alpha = the relative-LS constant.
AlphaBetaSegment constant_segment(std::span<const CollectivePoint> points, SegmentCovariance& covariance) {
  std::vector<double> design, y;
  for (const auto& p : points) {
    design.push_back(1.0 / p.time_us);
    y.push_back(1.0);
  }
  const LinearFit fit = least_squares(design, y);
  AlphaBetaSegment s;
  s.alpha_us = fit.beta[0];
  s.alpha_lo_us = fit.dof > 0 ? fit.lower95(0) : kNaN;
  s.alpha_hi_us = fit.dof > 0 ? fit.upper95(0) : kNaN;
  s.busbw_gb_per_s = s.busbw_lo = s.busbw_hi = kNaN;
  covariance = {.var_alpha = fit.covariance[0], .cov_alpha_slope = 0.0, .var_slope = 0.0, .t95 = fit.t95};
  return s;
}

// Bandwidth-bound with no measurable latency: where the free fit's intercept comes out negative
// (a range of sizes whose time grows faster than linearly, as when NCCL's tuner changes algorithm
// inside it), a time cannot be negative at zero bytes, so the line goes through the origin:
// alpha = 0 and the relative-LS slope alone.
AlphaBetaSegment origin_segment(std::span<const CollectivePoint> points, double bus_factor,
                                SegmentCovariance& covariance) {
  std::vector<double> design, y;
  for (const auto& p : points) {
    design.push_back(static_cast<double>(p.bytes) / p.time_us);
    y.push_back(1.0);
  }
  const LinearFit fit = least_squares(design, y);
  AlphaBetaSegment s;
  s.alpha_us = 0.0;
  s.alpha_lo_us = s.alpha_hi_us = 0.0;
  s.busbw_gb_per_s = busbw_from_slope(bus_factor, fit.beta[0]);
  s.busbw_lo = fit.dof > 0 ? busbw_from_slope(bus_factor, fit.upper95(0)) : kNaN;
  s.busbw_hi = fit.dof > 0 ? busbw_from_slope(bus_factor, fit.lower95(0)) : kNaN;
  covariance = {.var_alpha = 0.0, .cov_alpha_slope = 0.0, .var_slope = fit.covariance[0], .t95 = fit.t95};
  return s;
}

}  // namespace

std::string_view scope_name(LinkScope scope) { return scope == LinkScope::nvlink ? "nvlink" : "network"; }

double AlphaBetaSegment::time_us(double bytes, double bus_factor) const {
  if (std::isnan(busbw_gb_per_s)) return alpha_us;
  return alpha_us + bytes * bus_factor / (busbw_gb_per_s * 1e3);
}

models::CollectiveCurve CollectiveModel::curve() const {
  models::CollectiveCurve out{
      .op = op, .ranks = ranks, .ranks_per_node = ranks_per_node, .segments = {}, .aws_ofi_tuner = aws_ofi_tuner};
  for (const auto& s : segments) {
    out.segments.push_back({.min_bytes = static_cast<double>(s.min_bytes),
                            .max_bytes = static_cast<double>(s.max_bytes),
                            .alpha_s = s.alpha_us * 1e-6,
                            .busbw_bytes_per_s = std::isnan(s.busbw_gb_per_s) ? 0.0 : s.busbw_gb_per_s * 1e9});
  }
  return out;
}

double CollectiveModel::predict_time_us(double bytes) const {
  if (segments.empty()) throw std::logic_error("collective model without segments");
  return curve().time_s(bytes, bus_factor()) * 1e6;
}

double CollectiveModel::predict_busbw_gb_per_s(double bytes) const {
  return bytes * bus_factor() / predict_time_us(bytes) / 1e3;
}

AlphaBetaSegment fit_alpha_beta(std::span<const CollectivePoint> points, double bus_factor,
                                SegmentCovariance* covariance) {
  SegmentCovariance unused;
  SegmentCovariance& cov = covariance != nullptr ? *covariance : unused;
  // Row i of the relative fit: (1/t_i, bytes_i/t_i) . (alpha, slope) = 1.
  std::vector<double> design, y;
  for (const auto& p : points) {
    design.push_back(1.0 / p.time_us);
    design.push_back(static_cast<double>(p.bytes) / p.time_us);
    y.push_back(1.0);
  }
  const LinearFit fit = least_squares(design, y);
  AlphaBetaSegment s;
  if (fit.beta[1] <= 0.0) {
    s = constant_segment(points, cov);
  } else if (fit.beta[0] < 0.0) {
    s = origin_segment(points, bus_factor, cov);
  } else {
    cov = {.var_alpha = fit.covariance[0], .cov_alpha_slope = fit.covariance[1], .var_slope = fit.covariance[3],
           .t95 = fit.t95};
    s.alpha_us = fit.beta[0];
    s.busbw_gb_per_s = busbw_from_slope(bus_factor, fit.beta[1]);
    if (fit.dof > 0) {
      s.alpha_lo_us = fit.lower95(0);
      s.alpha_hi_us = fit.upper95(0);
      s.busbw_lo = busbw_from_slope(bus_factor, fit.upper95(1));
      s.busbw_hi = busbw_from_slope(bus_factor, fit.lower95(1));
    } else {
      s.alpha_lo_us = s.alpha_hi_us = s.busbw_lo = s.busbw_hi = kNaN;
    }
  }
  s.min_bytes = points.front().bytes;
  s.max_bytes = points.back().bytes;
  s.points = static_cast<int>(points.size());
  score(s, points, bus_factor);
  return s;
}

std::pair<double, double> busbw_interval(const CollectiveFit& fit, std::size_t index, double bytes) {
  const AlphaBetaSegment& s = fit.model.segments.at(index);
  const SegmentCovariance& c = fit.covariance.at(index);
  if (std::isnan(c.t95)) return {kNaN, kNaN};
  const double time = s.time_us(bytes, fit.model.bus_factor());
  const double half = c.t95 * std::sqrt(c.var_alpha + 2.0 * bytes * c.cov_alpha_slope + bytes * bytes * c.var_slope);
  const double work = bytes * fit.model.bus_factor() / 1e3;
  return {work / (time + half), time - half > 0.0 ? work / (time - half) : kInf};
}

CollectiveFit fit_collective(const CollectiveGroup& group, const CollectiveFitOptions& options) {
  const std::string name = fmt::format("{} on {} ranks ({} per node) from {}", collective_name(group.op),
                                       group.ranks, group.ranks_per_node, group.source);
  std::vector<CollectivePoint> points = group.points;
  std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  const auto n = points.size();
  if (n < 2 || points.front().bytes == points.back().bytes) {
    throw std::invalid_argument(name + ": an alpha-beta fit needs at least two different sizes");
  }
  const double factor = models::bus_factor(group.op, group.ranks);

  // best[s][j]: the cheapest split of points [0, j) into s segments. A segment costs 1 (1.5 with
  // only two sizes: an exact line without an interval), plus a large penalty per unit of relative
  // error beyond the tolerance, so the fewest segments that meet the tolerance win, and where none
  // does, the split that misses it least. Ties go to the smaller sum of squared relative errors.
  struct Cell {
    double cost = kInf;
    double sum_sq = kInf;
    std::size_t from = 0;
  };
  constexpr std::size_t shortest = 2;
  const std::size_t most = n / shortest;
  const std::size_t limit =
      options.max_segments > 0 ? std::min<std::size_t>(most, static_cast<std::size_t>(options.max_segments)) : most;
  std::vector<std::vector<AlphaBetaSegment>> fits(n);
  std::vector<std::vector<SegmentCovariance>> covariances(n);
  for (std::size_t i = 0; i < n; ++i) {
    fits[i].resize(n + 1);
    covariances[i].resize(n + 1);
    for (std::size_t j = i + shortest; j <= n; ++j) {
      const std::span<const CollectivePoint> range(points.data() + i, j - i);
      if (range.front().bytes == range.back().bytes) continue;  // one size: no line
      fits[i][j] = fit_alpha_beta(range, factor, &covariances[i][j]);
    }
  }
  std::vector<std::vector<Cell>> best(limit + 1, std::vector<Cell>(n + 1));
  best[0][0] = {.cost = 0.0, .sum_sq = 0.0, .from = 0};
  for (std::size_t s = 1; s <= limit; ++s) {
    for (std::size_t j = shortest; j <= n; ++j) {
      for (std::size_t i = 0; i + shortest <= j; ++i) {
        if (best[s - 1][i].cost == kInf || fits[i][j].points == 0) continue;
        const auto& seg = fits[i][j];
        const double cost = best[s - 1][i].cost + (seg.points == 2 ? 1.5 : 1.0) +
                            1000.0 * std::max(0.0, seg.max_relative - options.tolerance);
        const double sum_sq = best[s - 1][i].sum_sq + seg.rms_relative * seg.rms_relative * seg.points;
        Cell& cell = best[s][j];
        if (cost < cell.cost - 1e-12 || (std::abs(cost - cell.cost) <= 1e-12 && sum_sq < cell.sum_sq)) {
          cell = {.cost = cost, .sum_sq = sum_sq, .from = i};
        }
      }
    }
  }
  std::size_t segments = 0;
  for (std::size_t s = 1; s <= limit; ++s) {
    const Cell& c = best[s][n];
    if (c.cost == kInf) continue;
    if (segments == 0 || c.cost < best[segments][n].cost - 1e-12 ||
        (std::abs(c.cost - best[segments][n].cost) <= 1e-12 && c.sum_sq < best[segments][n].sum_sq)) {
      segments = s;
    }
  }
  if (segments == 0) throw std::invalid_argument(name + ": no split of the sizes into segments of two or more sizes");

  CollectiveFit result;
  result.model = {.op = group.op, .ranks = group.ranks, .ranks_per_node = group.ranks_per_node,
                  .source = group.source, .segments = {}};
  for (std::size_t s = segments, j = n; s > 0; --s) {
    const std::size_t i = best[s][j].from;
    result.model.segments.push_back(fits[i][j]);
    result.covariance.push_back(covariances[i][j]);
    j = i;
  }
  std::reverse(result.model.segments.begin(), result.model.segments.end());
  std::reverse(result.covariance.begin(), result.covariance.end());
  result.points = points;
  double sum_sq = 0.0;
  for (const auto& p : points) {
    const double predicted = result.model.predict_time_us(static_cast<double>(p.bytes));
    result.predicted_us.push_back(predicted);
    const double relative = predicted / p.time_us - 1.0;
    sum_sq += relative * relative;
    result.max_relative = std::max(result.max_relative, std::abs(relative));
  }
  result.rms_relative = std::sqrt(sum_sq / static_cast<double>(n));
  return result;
}

}  // namespace clustersim::calibration
