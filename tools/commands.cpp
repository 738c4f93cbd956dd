#include "tools/commands.hpp"

#include <array>

namespace clustersim::tools {

std::span<const Command> commands() {
  static constexpr std::array table{
      Command{.name = "explain",
              .summary = "list every scenario key: type, unit, default, meaning; and the presets",
              .run = cmd_explain},
      Command{.name = "run",
              .summary = "simulate one training step: step time, MFU, bubble, exposed comm, memory",
              .run = cmd_run},
  };
  return table;
}

}  // namespace clustersim::tools
