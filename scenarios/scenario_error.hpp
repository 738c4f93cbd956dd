#pragma once
/// The error every scenario problem becomes: one line, "<source>: <json pointer>: <rule>".
/// The source is a file name (or "--set", or an embedded preset's path); the pointer is omitted
/// when the problem concerns the whole document (missing file, malformed JSON). Control characters
/// in any part are escaped (printable_text.hpp), so a key "\u0000" cannot cut the message short.

#include <stdexcept>
#include <string>

#include "scenarios/printable_text.hpp"

namespace clustersim::scenarios {

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string source, std::string pointer, std::string rule)
      : std::runtime_error(format(source, pointer, rule)),
        source_(std::move(source)),
        pointer_(std::move(pointer)),
        rule_(std::move(rule)) {}

  const std::string& source() const { return source_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& rule() const { return rule_; }

 private:
  static std::string format(const std::string& source, const std::string& pointer,
                            const std::string& rule) {
    std::string message = printable(source);
    for (const std::string* part : {&pointer, &rule}) {
      if (part->empty()) continue;
      if (!message.empty()) message += ": ";
      message += printable(*part);
    }
    return message;
  }

  std::string source_;
  std::string pointer_;
  std::string rule_;
};

}  // namespace clustersim::scenarios
