// NeMo's step timing: "train_step_timing in s: X" (NeMo 2, nemo/lightning/pytorch/callbacks/
// progress_printer.py) or "train_step_timing in s=X" (NeMo 1's Lightning progress bar). The step
// is the line's "global_step" where it has one, else its "iteration N/".


#include "calibration/input_error.hpp"
#include "handoff/logs/log_lines.hpp"
#include "handoff/logs/step_log.hpp"

namespace clustersim::handoff {

namespace {
constexpr std::string_view nemo_time_label = "train_step_timing in s";

std::optional<double> nemo_value(std::string_view line, std::string_view label) {
  if (auto colon = number_after(line, std::string(label) + ":")) return colon;
  return number_after(line, std::string(label) + "=");
}
}  // namespace

StepLog parse_nemo_log(std::string_view text, const std::string& file) {
  StepLog log{.file = file, .format = LogFormat::nemo, .samples = {}};
  for (const LogLine& line : log_lines(text)) {
    if (line.text.find(nemo_time_label) == std::string_view::npos) continue;
    const auto seconds = nemo_value(line.text, nemo_time_label);
    // A progress bar before the first step shows the key with no value ("train_step_timing in s=,").
    if (!seconds) continue;
    if (*seconds <= 0.0) throw calibration::InputError(file, line.number, "train_step_timing must be a positive number of seconds");
    auto step = step_after(line.text, "global_step:", 0);
    if (!step) step = step_after(line.text, "global_step=", 0);
    if (!step) step = step_after(line.text, "iteration", 0);
    if (!step) {
      throw calibration::InputError(file, line.number, "a NeMo step-timing line has no global_step or \"iteration N/\"");
    }
    log.samples.push_back({.line = line.number, .step = *step, .seconds = *seconds,
                           .tflops_per_gpu = std::nullopt});
  }
  if (log.samples.empty()) throw calibration::InputError(file, 0, "no NeMo \"train_step_timing in s\" line with a value");
  return log;
}

}  // namespace clustersim::handoff
