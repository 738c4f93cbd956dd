#include "handoff/logs/log_format.hpp"

#include "calibration/input_error.hpp"
#include "calibration/input_file.hpp"
#include "handoff/logs/log_lines.hpp"

namespace clustersim::handoff {

std::string_view log_format_name(LogFormat format) {
  switch (format) {
    case LogFormat::megatron_lm: return "Megatron-LM";
    case LogFormat::nemo: return "NeMo";
    case LogFormat::torchtitan: return "torchtitan";
    case LogFormat::mllog: return "MLPerf MLLOG";
    case LogFormat::nccl_tests: return "nccl-tests";
  }
  return "?";
}

namespace {

// A line counts only with the value its format puts there, so that a text that merely names
// the formats (a README, this project's error message) is none of them.
std::optional<LogFormat> format_of_line(std::string_view line) {
  if (const auto at = line.find(":::MLLOG "); at != std::string_view::npos &&
      calibration::trim(line.substr(at + 9)).starts_with('{'))
    return LogFormat::mllog;
  if (number_after(line, "elapsed time per iteration (ms):")) return LogFormat::megatron_lm;
  if (number_after(line, "train_step_timing in s:") || number_after(line, "train_step_timing in s="))
    return LogFormat::nemo;
  if (number_after(line, "step:") && number_after(line, "loss:") && number_after(line, "tps:", true))
    return LogFormat::torchtitan;
  if (calibration::is_nccl_tests_marker_line(line)) return LogFormat::nccl_tests;
  return std::nullopt;
}

}  // namespace

LogFormat detect_log_format(std::string_view text, const std::string& file) {
  int first_text_line = 0;
  for (const LogLine& line : log_lines(text)) {
    if (const auto format = format_of_line(line.text)) return *format;
    if (first_text_line == 0 && !calibration::trim(line.text).empty()) first_text_line = line.number;
  }
  throw calibration::InputError(
      file, first_text_line,
      "not a log clustersim reads: no line of Megatron-LM (\"elapsed time per iteration (ms):\"), NeMo "
      "(\"train_step_timing in s\"), torchtitan (\"step: N  loss: ...  tps: ...\"), MLPerf (\":::MLLOG {...}\") "
      "or nccl-tests (\"# nThread ...\", or \"# ranks: N on M nodes\" above a table without it)");
}

TrainingLog parse_training_log(std::string_view text, const std::string& file) {
  TrainingLog log{.format = detect_log_format(text, file), .steps = std::nullopt, .nccl = std::nullopt};
  switch (log.format) {
    case LogFormat::megatron_lm: log.steps = parse_megatron_log(text, file); break;
    case LogFormat::nemo: log.steps = parse_nemo_log(text, file); break;
    case LogFormat::torchtitan: log.steps = parse_torchtitan_log(text, file); break;
    case LogFormat::mllog: log.steps = parse_mllog(text, file); break;
    case LogFormat::nccl_tests: log.nccl = calibration::parse_nccl_tests_log(text, file); break;
  }
  return log;
}

TrainingLog read_training_log(const std::filesystem::path& path) {
  return parse_training_log(calibration::read_input_file(path), path.string());
}

}  // namespace clustersim::handoff
