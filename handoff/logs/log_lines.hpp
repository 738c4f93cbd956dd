#pragma once
/// Small text helpers the log readers share: the file's lines and numbers after a label.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::handoff {

struct LogLine {
  int number = 0;  // 1-based
  std::string_view text{};
};

/// The lines of the text ("\r\n" or "\n"), numbered.
std::vector<LogLine> log_lines(std::string_view text);

/// The decimal number right after the first `label` in `line` (spaces skipped; digit-group commas
/// dropped where `grouped`), or nullopt where the label is absent or no number follows.
std::optional<double> number_after(std::string_view line, std::string_view label, bool grouped = false);

/// The step count right after `label`: a whole number of at least `least`, and below 2^53 (a count
/// a double holds exactly, so one read as "1.2e78" is no step); nullopt otherwise.
std::optional<std::int64_t> step_after(std::string_view line, std::string_view label, std::int64_t least);

}  // namespace clustersim::handoff
