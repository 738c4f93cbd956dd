#pragma once
/// `--export FRAMEWORK` of run, sweep and plan: the launch configuration of the command's layout
/// for a training framework (handoff/export/launch_config.hpp), after the command's own output.

#include <optional>
#include <string>

#include "handoff/export/launch_config.hpp"
#include "tools/command_line.hpp"

namespace clustersim::tools {

struct ExportOption {
  std::string name{};  // as given; empty: no export

  /// Registers --export FRAMEWORK, bound to this object (which must outlive parsing).
  void add_to(CommandOptions& options);
  /// The framework named; nullopt when --export was not given.
  std::optional<handoff::Framework> framework() const;
};

}  // namespace clustersim::tools
