#include "calibration/gemm_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "calibration/least_squares.hpp"
#include "models/compute/compute_profile.hpp"

namespace clustersim::calibration {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();


double k_fill(double k, double k_half) { return k / (k + k_half); }

struct Problem {
  std::vector<double> log_measured;
  std::vector<double> log_tile_fill;
  std::vector<double> k;
  std::vector<double> k_rate;  // models::gemm_k_rate_ratio of the sample's precision
  std::vector<int> column;     // the e_max parameter of each sample's precision
  int precisions = 0;
  bool fit_k_half = false;
};

// Gauss-Newton on theta = (log e_max per precision..., [log k_half]). Returns the final linearised
// fit (for the covariance) and leaves the optimum in theta.
LinearFit solve(const Problem& problem, std::vector<double>& theta, double k_half_prior) {
  const std::size_t n = problem.k.size();
  const std::size_t p = theta.size();
  const auto k_half_of = [&](const std::vector<double>& t) {
    return problem.fit_k_half ? std::exp(t.back()) : k_half_prior;
  };
  const auto residuals = [&](const std::vector<double>& t) {
    std::vector<double> r(n);
    const double k_half = k_half_of(t);
    for (std::size_t i = 0; i < n; ++i) {
      r[i] = problem.log_measured[i] - t[static_cast<std::size_t>(problem.column[i])] - problem.log_tile_fill[i] -
             std::log(k_fill(problem.k[i], k_half * problem.k_rate[i]));
    }
    return r;
  };
  const auto jacobian = [&](const std::vector<double>& t) {
    std::vector<double> j(n * p, 0.0);
    const double k_half = k_half_of(t);
    for (std::size_t i = 0; i < n; ++i) {
      j[i * p + static_cast<std::size_t>(problem.column[i])] = 1.0;
      const double scaled = k_half * problem.k_rate[i];
      if (problem.fit_k_half) j[i * p + p - 1] = -scaled / (problem.k[i] + scaled);
    }
    return j;
  };
  const auto sum_sq = [](const std::vector<double>& r) {
    double s = 0.0;
    for (const double x : r) s += x * x;
    return s;
  };

  std::vector<double> r = residuals(theta);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const LinearFit step = least_squares(jacobian(theta), r);
    double scale = 1.0;
    std::vector<double> next(p);
    bool improved = false;
    for (int halving = 0; halving < 40; ++halving, scale *= 0.5) {
      for (std::size_t j = 0; j < p; ++j) next[j] = theta[j] + scale * step.beta[j];
      if (problem.fit_k_half) next.back() = std::clamp(next.back(), 0.0, std::log(1e7));
      if (sum_sq(residuals(next)) <= sum_sq(r)) {
        improved = true;
        break;
      }
    }
    double largest = 0.0;
    for (std::size_t j = 0; j < p; ++j) largest = std::max(largest, std::abs(next[j] - theta[j]));
    if (!improved) break;
    theta = next;
    r = residuals(theta);
    if (largest < 1e-12) break;
  }
  return least_squares(jacobian(theta), r);
}

struct Solution {
  std::vector<double> theta;
  LinearFit linear;
  Problem problem;
};

double peak_of(const GemmFitInputs& inputs, models::Precision precision) {
  switch (precision) {
    case models::Precision::bf16: return inputs.bf16_peak_flops_per_s;
    case models::Precision::fp8: return inputs.fp8_peak_flops_per_s;
    case models::Precision::nvfp4: return inputs.fp4_peak_flops_per_s;
  }
  return 0.0;
}

Solution fit_shape(std::span<const GemmSample> samples, const GemmFitInputs& inputs, const GemmModelShape& shape) {
  Problem problem;
  std::map<models::Precision, int> columns;
  std::map<models::Precision, std::set<std::int64_t>> distinct_k;
  for (const auto& s : samples) {
    if (!columns.contains(s.precision)) columns.emplace(s.precision, static_cast<int>(columns.size()));
    distinct_k[s.precision].insert(s.k);
  }
  problem.precisions = static_cast<int>(columns.size());
  const bool k_varies = std::any_of(distinct_k.begin(), distinct_k.end(), [](const auto& e) { return e.second.size() >= 2; });
  problem.fit_k_half = k_varies && samples.size() >= columns.size() + 1;
  for (const auto& s : samples) {
    problem.log_measured.push_back(std::log(s.tflops * 1e12 / peak_of(inputs, s.precision)));
    problem.log_tile_fill.push_back(std::log(tile_fill(shape, s.m, s.n)));
    problem.k.push_back(static_cast<double>(s.k));
    problem.k_rate.push_back(models::gemm_k_rate_ratio(s.precision));
    problem.column.push_back(columns.at(s.precision));
  }
  std::vector<double> theta(columns.size() + (problem.fit_k_half ? 1 : 0), 0.0);
  std::vector<int> counts(columns.size(), 0);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto c = static_cast<std::size_t>(problem.column[i]);
    theta[c] += problem.log_measured[i] - problem.log_tile_fill[i] -
                std::log(k_fill(problem.k[i], inputs.k_half_prior * problem.k_rate[i]));
    ++counts[c];
  }
  for (std::size_t c = 0; c < counts.size(); ++c) theta[c] /= counts[c];
  if (problem.fit_k_half) theta.back() = std::log(inputs.k_half_prior);
  LinearFit linear = solve(problem, theta, inputs.k_half_prior);
  return {.theta = std::move(theta), .linear = std::move(linear), .problem = std::move(problem)};
}

double rms_of(const Solution& solution) {
  double sum = 0.0;
  for (const double r : solution.linear.residuals) sum += (std::exp(-r) - 1.0) * (std::exp(-r) - 1.0);
  return std::sqrt(sum / static_cast<double>(solution.linear.residuals.size()));
}

}  // namespace

double tile_fill(const GemmModelShape& shape, std::int64_t m, std::int64_t n) {
  return models::gemm_tile_fill(shape.tile_m, shape.tile_n, shape.sm_count, m, n);
}

GemmFit fit_gemm(std::span<const GemmSample> samples, const GemmFitInputs& inputs) {
  if (samples.empty()) throw std::invalid_argument("GEMM fit: no samples");
  for (const auto& s : samples) {
    if (!(peak_of(inputs, s.precision) > 0.0)) {
      throw std::invalid_argument(fmt::format("GEMM fit: line {} is an {} GEMM but the GPU has no {} peak", s.line,
                                              models::precision_name(s.precision), models::precision_name(s.precision)));
    }
  }
  // Below one wave of output tiles cuBLASLt switches to split-K or stream-K kernels, which the
  // model does not have: such samples would pull k_half towards what those kernels cost.
  std::vector<GemmSample> fitted;
  std::vector<GemmSample> below_one_wave;
  for (const auto& s : samples) {
    const std::int64_t tiles = ((s.m + inputs.shape.tile_m - 1) / inputs.shape.tile_m) *
                               ((s.n + inputs.shape.tile_n - 1) / inputs.shape.tile_n);
    (tiles >= inputs.shape.sm_count ? fitted : below_one_wave).push_back(s);
  }
  if (fitted.empty()) fitted.swap(below_one_wave);  // nothing else to fit: keep them all
  samples = fitted;
  const Solution best = fit_shape(samples, inputs, inputs.shape);
  const LinearFit& lin = best.linear;
  const Problem& problem = best.problem;

  GemmFit fit;
  fit.below_one_wave = std::move(below_one_wave);
  fit.dof = lin.dof;
  const auto value_at = [&](std::size_t j, int count) {
    FittedValue v{.value = std::exp(best.theta[j]), .lo = kNaN, .hi = kNaN, .fitted = true, .samples = count};
    if (lin.dof > 0) {
      v.lo = std::exp(best.theta[j] - lin.t95 * lin.standard_error[j]);
      v.hi = std::exp(best.theta[j] + lin.t95 * lin.standard_error[j]);
    }
    return v;
  };
  std::map<models::Precision, int> counts;
  for (const auto& s : samples) ++counts[s.precision];
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto column = static_cast<std::size_t>(problem.column[i]);
    FittedValue& target = samples[i].precision == models::Precision::nvfp4 ? fit.e_max_fp4
                          : samples[i].precision == models::Precision::fp8 ? fit.e_max_fp8
                                                                           : fit.e_max_bf16;
    if (!target.fitted) target = value_at(column, counts[samples[i].precision]);
  }
  if (problem.fit_k_half) {
    fit.k_half = value_at(best.theta.size() - 1, static_cast<int>(samples.size()));
  } else {
    fit.k_half = {.value = inputs.k_half_prior, .lo = kNaN, .hi = kNaN, .fitted = false, .samples = 0};
  }

  double sum_sq = 0.0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    GemmPointFit point{.sample = s,
                       .measured = std::exp(problem.log_measured[i]),
                       .predicted = 0.0,
                       .tile_fill = std::exp(problem.log_tile_fill[i]),
                       .k_fill = k_fill(problem.k[i], fit.k_half.value * problem.k_rate[i])};
    const double e_max = s.precision == models::Precision::nvfp4 ? fit.e_max_fp4.value
                         : s.precision == models::Precision::fp8 ? fit.e_max_fp8.value
                                                                 : fit.e_max_bf16.value;
    point.predicted = e_max * point.tile_fill * point.k_fill;
    const double relative = point.predicted / point.measured - 1.0;
    sum_sq += relative * relative;
    fit.max_relative = std::max(fit.max_relative, std::abs(relative));
    fit.points.push_back(point);
  }
  fit.rms_relative = std::sqrt(sum_sq / static_cast<double>(samples.size()));

  fit.tile_check.push_back({.shape = inputs.shape, .rms_relative = fit.rms_relative});
  for (const auto& [tm, tn] : {std::pair{128, 128}, std::pair{128, 256}, std::pair{256, 128}}) {
    if (tm == inputs.shape.tile_m && tn == inputs.shape.tile_n) continue;
    const GemmModelShape other{.tile_m = tm, .tile_n = tn, .sm_count = inputs.shape.sm_count};
    fit.tile_check.push_back({.shape = other, .rms_relative = rms_of(fit_shape(samples, inputs, other))});
  }
  return fit;
}

}  // namespace clustersim::calibration
