#include "handoff/compare/log_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibration/input_error.hpp"

namespace clustersim::handoff {

namespace {

double sorted_quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

}  // namespace

Spread spread_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("spread_of: no values");
  std::sort(values.begin(), values.end());
  return {.count = values.size(), .median = sorted_quantile(values, 0.5), .p10 = sorted_quantile(values, 0.1),
          .p90 = sorted_quantile(values, 0.9)};
}

StepTimeComparison compare_step_time(const StepLog& log, double predicted_s, std::int64_t warmup_steps) {
  std::vector<double> seconds, tflops;
  std::size_t dropped = 0;
  bool all_tflops = true;
  for (const StepSample& sample : log.samples) {
    if (sample.step <= warmup_steps) {
      ++dropped;
      continue;
    }
    seconds.push_back(sample.seconds);
    if (sample.tflops_per_gpu) tflops.push_back(*sample.tflops_per_gpu);
    else all_tflops = false;
  }
  if (seconds.empty()) {
    throw calibration::InputError(log.file, 0,
                                  "all " + std::to_string(log.samples.size()) + " logged steps are warm-up (step <= " +
                                      std::to_string(warmup_steps) + "); lower --warmup-steps");
  }
  StepTimeComparison c{.file = log.file, .format = log.format, .warmup_steps = warmup_steps, .dropped = dropped,
                       .measured_s = spread_of(seconds), .measured_tflops_per_gpu = std::nullopt,
                       .predicted_s = predicted_s, .relative_error = 0.0};
  if (all_tflops && !tflops.empty()) c.measured_tflops_per_gpu = spread_of(tflops);
  c.relative_error = predicted_s / c.measured_s.median - 1.0;
  return c;
}

BusbwComparison compare_busbw(const calibration::NcclTestsLog& log, std::span<const PredictedCollective> predicted) {
  if (predicted.size() != log.rows.size()) throw std::invalid_argument("compare_busbw: one prediction per row");
  BusbwComparison c{.file = log.file, .op = log.op, .nodes = log.nodes, .ranks = log.ranks, .rows = {}};
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    const calibration::NcclTestsRow& row = log.rows[i];
    const double measured_us = row.best_time_us();
    const double busbw = row.in_place ? std::max(row.out_of_place.busbw_gb_per_s, row.in_place->busbw_gb_per_s)
                                      : row.out_of_place.busbw_gb_per_s;
    c.rows.push_back({.line = row.line, .size_bytes = row.size_bytes, .measured_time_us = measured_us,
                      .measured_busbw_gbps = busbw, .predicted_time_us = predicted[i].time_us,
                      .predicted_busbw_gbps = predicted[i].busbw_gbps,
                      .relative_error = measured_us / predicted[i].time_us - 1.0});
  }
  return c;
}

const BusbwRow* largest_departure(const BusbwComparison& comparison) {
  const BusbwRow* worst = nullptr;
  for (const BusbwRow& row : comparison.rows) {
    if (worst == nullptr || std::abs(row.relative_error) > std::abs(worst->relative_error)) worst = &row;
  }
  return worst;
}

}  // namespace clustersim::handoff
