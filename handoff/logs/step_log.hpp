#pragma once
/// The step times a training framework's own log reports, read from the lines it prints anyway:
/// - Megatron-LM: `iteration N/ M | ... | elapsed time per iteration (ms): X | ...`, averaged by
///   Megatron over its --log-interval (megatron/training/training.py, training_log);
/// - NeMo: `train_step_timing in s` with `:` (NeMo 2's progress printer, "Training epoch E,
///   iteration N/M | ... |") or `=` (NeMo 1's Lightning progress bar, "global_step=N.0, ...");
///   the value is the step time NeMo's timing callback measured (nemo/utils/exp_manager.py);
/// - torchtitan: `step: N  loss: ...  tps: ...  tflops: ...  mfu: ...%` (torchtitan
///   components/metrics.py). torchtitan prints no step time: it is the time between two logged
///   steps' timestamps over the steps between them (ms resolution), each line's time the moment
///   the step was logged; a line repeated by other ranks for the same step counts once;
/// - MLPerf MLLOG: `:::MLLOG {json}`, events with key "tracked_stats" whose value holds
///   "train_step_timing in s" or "train_step_time" (seconds), as NVIDIA's NeMo submissions log
///   (mlcommons/training_results_v4.1 and v5.0, custom_callbacks.py); numbered in log order.
/// Units: seconds. Lines of other content (NCCL chatter, validation) are skipped.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::handoff {

enum class LogFormat { megatron_lm, nemo, torchtitan, mllog, nccl_tests };

/// "Megatron-LM", "NeMo", "torchtitan", "MLPerf MLLOG", "nccl-tests".
std::string_view log_format_name(LogFormat format);

struct StepSample {
  int line = 0;            // 1-based line of the file
  std::int64_t step = 0;   // the log's step number (MLLOG: the sample's position in the log)
  double seconds = 0.0;    // step time
  std::optional<double> tflops_per_gpu{};  // where the framework prints it (Megatron-LM, torchtitan)
};

struct StepLog {
  std::string file{};
  LogFormat format = LogFormat::megatron_lm;
  std::vector<StepSample> samples{};  // in log order
};

/// Each throws calibration::InputError "<file>:<line>: <rule>" for a malformed line of its format,
/// or "<file>: ..." when the text holds none.
StepLog parse_megatron_log(std::string_view text, const std::string& file);
StepLog parse_nemo_log(std::string_view text, const std::string& file);
StepLog parse_torchtitan_log(std::string_view text, const std::string& file);
StepLog parse_mllog(std::string_view text, const std::string& file);

}  // namespace clustersim::handoff
