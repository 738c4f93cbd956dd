#include "tools/commands.hpp"

#include <array>

namespace clustersim::tools {

std::span<const Command> commands() {
  static constexpr std::array table{
      Command{.name = "calibrate",
              .summary = "fit a calibration profile to nccl-tests logs and GEMM/memory benchmark results",
              .run = cmd_calibrate},
      Command{.name = "explain",
              .summary = "list every scenario key: type, unit, default, meaning; and the presets",
              .run = cmd_explain},
      Command{.name = "run",
              .summary = "simulate one training step: step time, MFU, bubble, exposed comm, memory",
              .run = cmd_run},
      Command{.name = "validate",
              .summary = "predicted vs measured step time for every published training run",
              .run = cmd_validate},
  };
  return table;
}

}  // namespace clustersim::tools
