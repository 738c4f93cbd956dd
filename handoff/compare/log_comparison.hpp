#pragma once
/// A prediction set against what a cluster measured: a training log's steady step times against
/// the predicted step time, and an nccl-tests log's bus bandwidth per size against the predicted.
/// Warm-up rule: a sample whose step number is at most `warmup_steps` is dropped (the first steps
/// compile, autotune and fill caches); the rest are the steady steps. Spread: the median and the
/// 10th and 90th percentiles, linear between the closest ranks (numpy's default, "type 7").
/// Relative error: predicted / measured - 1 (for step time, negative: the prediction is faster; for
/// busbw, negative: the prediction is slower). For busbw it is
/// taken from the times (measured time / predicted time - 1 at the same size and bus factor), since
/// nccl-tests prints bandwidths rounded to 0.01 GB/s.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "calibration/nccl_tests_log.hpp"
#include "handoff/logs/step_log.hpp"

namespace clustersim::handoff {

struct Spread {
  std::size_t count = 0;
  double median = 0.0;
  double p10 = 0.0;
  double p90 = 0.0;
};

/// Of a non-empty list.
Spread spread_of(std::vector<double> values);

struct StepTimeComparison {
  std::string file{};
  LogFormat format = LogFormat::megatron_lm;
  std::int64_t warmup_steps = 0;
  std::size_t dropped = 0;  // warm-up samples
  Spread measured_s{};
  std::optional<Spread> measured_tflops_per_gpu{};
  double predicted_s = 0.0;
  double relative_error = 0.0;
};

/// Throws calibration::InputError "<file>: ..." when every sample is warm-up.
StepTimeComparison compare_step_time(const StepLog& log, double predicted_s, std::int64_t warmup_steps);

struct BusbwRow {
  int line = 0;
  std::int64_t size_bytes = 0;
  double measured_time_us = 0.0;  // the faster placement
  double measured_busbw_gbps = 0.0;
  double predicted_time_us = 0.0;
  double predicted_busbw_gbps = 0.0;
  double relative_error = 0.0;
};

struct BusbwComparison {
  std::string file{};
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::int64_t nodes = 0;
  std::int64_t ranks = 0;
  std::vector<BusbwRow> rows{};
};

struct PredictedCollective {
  double time_us = 0.0;
  double busbw_gbps = 0.0;
};

/// `predicted` holds one entry per row of the log, in its order.
BusbwComparison compare_busbw(const calibration::NcclTestsLog& log, std::span<const PredictedCollective> predicted);

/// The row whose |relative error| is largest (the first of equals); nullptr for no rows.
const BusbwRow* largest_departure(const BusbwComparison& comparison);

}  // namespace clustersim::handoff
