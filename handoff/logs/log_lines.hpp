#pragma once
/// Small text helpers the log readers share: the file's lines and numbers after a label.

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

}  // namespace clustersim::handoff
