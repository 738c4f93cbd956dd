// Megatron-LM's training_log lines (megatron/training/training.py): one per --log-interval
// iterations, the time the mean over that interval.


#include "calibration/input_error.hpp"
#include "handoff/logs/log_lines.hpp"
#include "handoff/logs/step_log.hpp"

namespace clustersim::handoff {

namespace {
constexpr std::string_view megatron_time_label = "elapsed time per iteration (ms):";
}  // namespace

StepLog parse_megatron_log(std::string_view text, const std::string& file) {
  StepLog log{.file = file, .format = LogFormat::megatron_lm, .samples = {}};
  for (const LogLine& line : log_lines(text)) {
    if (line.text.find(megatron_time_label) == std::string_view::npos) continue;
    const auto ms = number_after(line.text, megatron_time_label);
    const auto iteration = step_after(line.text, "iteration", 1);
    if (!ms || *ms <= 0.0) {
      throw calibration::InputError(file, line.number, "\"elapsed time per iteration (ms):\" is not followed by a positive number");
    }
    if (!iteration) {
      throw calibration::InputError(file, line.number, "a Megatron-LM iteration line has no \"iteration N/\" count");
    }
    StepSample sample{.line = line.number, .step = *iteration, .seconds = *ms / 1000.0,
                      .tflops_per_gpu = number_after(line.text, "throughput per GPU (TFLOP/s/GPU):")};
    log.samples.push_back(sample);
  }
  if (log.samples.empty()) throw calibration::InputError(file, 0, "no Megatron-LM \"elapsed time per iteration (ms)\" line");
  return log;
}

}  // namespace clustersim::handoff
