// MLPerf's MLLOG lines (mlcommons/logging: ":::MLLOG " then one JSON object) as NVIDIA's NeMo-based
// submissions write their step timing: key "tracked_stats", value {"train_step_timing in s": X}
// (training_results_v4.1 gpt3) or {"train_step_time": X} (v5.0 llama31_405b). Validation timings
// in the same key are skipped.

#include <cmath>

#include <nlohmann/json.hpp>

#include "calibration/input_error.hpp"
#include "handoff/logs/log_lines.hpp"
#include "handoff/logs/step_log.hpp"

namespace clustersim::handoff {

namespace {
constexpr std::string_view mllog_marker = ":::MLLOG ";
}  // namespace

StepLog parse_mllog(std::string_view text, const std::string& file) {
  StepLog log{.file = file, .format = LogFormat::mllog, .samples = {}};
  std::int64_t position = 0;
  for (const LogLine& line : log_lines(text)) {
    const std::size_t at = line.text.find(mllog_marker);
    if (at == std::string_view::npos) continue;
    const auto event = nlohmann::json::parse(line.text.substr(at + mllog_marker.size()), nullptr, false);
    if (event.is_discarded() || !event.is_object()) {
      throw calibration::InputError(file, line.number, "an MLLOG line is not followed by one JSON object");
    }
    const auto event_key = event.find("key");
    if (event_key != event.end() && !event_key->is_string())
      throw calibration::InputError(file, line.number, "an MLLOG event's \"key\" must be a string");
    if (event_key == event.end() || event_key->get<std::string>() != "tracked_stats") continue;
    const auto value = event.find("value");
    if (value == event.end() || !value->is_object()) continue;
    for (const char* key : {"train_step_timing in s", "train_step_time"}) {
      const auto seconds = value->find(key);
      if (seconds == value->end()) continue;
      if (!seconds->is_number() || !(seconds->get<double>() > 0.0) || !std::isfinite(seconds->get<double>())) {
        throw calibration::InputError(file, line.number, std::string("tracked_stats \"") + key + "\" must be a positive number of seconds");
      }
      log.samples.push_back({.line = line.number, .step = ++position, .seconds = seconds->get<double>(),
                             .tflops_per_gpu = std::nullopt});
      break;
    }
  }
  if (log.samples.empty()) {
    throw calibration::InputError(file, 0, "no MLLOG tracked_stats event with \"train_step_timing in s\" or \"train_step_time\"");
  }
  return log;
}

}  // namespace clustersim::handoff
