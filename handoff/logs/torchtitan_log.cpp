// torchtitan's metric lines (torchtitan/components/metrics.py, MetricsProcessor.log) under the
// Python logging prefix "YYYY-MM-DD HH:MM:SS,mmm - root - INFO - step: N ...".

#include <array>
#include <charconv>

#include "calibration/input_error.hpp"
#include "handoff/logs/log_lines.hpp"
#include "handoff/logs/step_log.hpp"

namespace clustersim::handoff {

namespace {

/// Days from 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's days_from_civil).
std::int64_t titan_days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// Seconds since 1970 of the first "YYYY-MM-DD HH:MM:SS,mmm" in the line, or nullopt.
std::optional<double> titan_timestamp(std::string_view line) {
  constexpr std::size_t length = 23;  // "2026-05-18 16:04:46,338"
  for (std::size_t at = 0; at + length <= line.size(); ++at) {
    const std::string_view s = line.substr(at, length);
    if (s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' || (s[19] != ',' && s[19] != '.')) continue;
    constexpr std::array<std::array<std::size_t, 2>, 7> fields{{{0, 4}, {5, 2}, {8, 2}, {11, 2}, {14, 2}, {17, 2}, {20, 3}}};
    std::array<std::int64_t, 7> v{};
    bool ok = true;
    for (std::size_t f = 0; f < fields.size() && ok; ++f) {
      const std::string_view digits = s.substr(fields[f][0], fields[f][1]);
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), v[f]);
      ok = error == std::errc{} && end == digits.data() + digits.size();
    }
    if (!ok || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60) continue;
    const double days = static_cast<double>(titan_days_from_civil(v[0], v[1], v[2]));
    return days * 86400.0 + static_cast<double>(v[3] * 3600 + v[4] * 60 + v[5]) + static_cast<double>(v[6]) / 1000.0;
  }
  return std::nullopt;
}

bool is_titan_metric_line(std::string_view line) {
  return line.find("step:") != std::string_view::npos && line.find("loss:") != std::string_view::npos &&
         line.find("tps:") != std::string_view::npos;
}

}  // namespace

StepLog parse_torchtitan_log(std::string_view text, const std::string& file) {
  StepLog log{.file = file, .format = LogFormat::torchtitan, .samples = {}};
  std::optional<std::int64_t> last_step;
  double last_time = 0.0;
  for (const LogLine& line : log_lines(text)) {
    if (!is_titan_metric_line(line.text)) continue;
    const auto step = step_after(line.text, "step:", 0);
    if (!step) {
      throw calibration::InputError(file, line.number, "a torchtitan metric line has no whole \"step: N\"");
    }
    const auto time = titan_timestamp(line.text);
    if (!time) {
      throw calibration::InputError(file, line.number,
                                    "a torchtitan metric line has no \"YYYY-MM-DD HH:MM:SS,mmm\" timestamp (the step time is read from them)");
    }
    const std::int64_t n = *step;
    if (last_step && n == *last_step) continue;  // the same step, logged by another rank
    if (last_step && n > *last_step) {
      const double seconds = (*time - last_time) / static_cast<double>(n - *last_step);
      if (seconds <= 0.0) {
        throw calibration::InputError(file, line.number, "the timestamp does not advance from the previous logged step");
      }
      log.samples.push_back({.line = line.number, .step = n, .seconds = seconds,
                             .tflops_per_gpu = number_after(line.text, "tflops:", true)});
    }
    // A lower step starts a new run (a restart from a checkpoint): its first line only sets the clock.
    last_step = n;
    last_time = *time;
  }
  if (log.samples.empty()) {
    throw calibration::InputError(file, 0, "fewer than two torchtitan metric lines of different steps (the step time is the time between them)");
  }
  return log;
}

}  // namespace clustersim::handoff
