#pragma once
/// The error every problem in a raw calibration input becomes: one line, "<file>:<line>: <rule>".
/// The line is 1-based; 0 means the whole file (missing, empty, no table). Control characters are
/// escaped (scenarios/printable_text.hpp).

#include <stdexcept>
#include <string>

#include "scenarios/printable_text.hpp"

namespace clustersim::calibration {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, std::string rule)
      : std::runtime_error(scenarios::printable(line > 0 ? file + ":" + std::to_string(line) + ": " + rule
                                                    : file + ": " + rule)),
        file_(std::move(file)),
        line_(line),
        rule_(std::move(rule)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string file_{};
  int line_ = 0;
  std::string rule_{};
};

}  // namespace clustersim::calibration
