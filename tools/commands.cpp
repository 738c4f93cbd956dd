#include "tools/commands.hpp"

#include <array>

namespace clustersim::tools {

std::span<const Command> commands() {
  static constexpr std::array table{
      Command{.name = "calibrate",
              .summary = "fit a calibration profile to nccl-tests logs and GEMM/memory benchmark results",
              .run = cmd_calibrate},
      Command{.name = "collective",
              .summary = "predicted nccl-tests table (time, algbw, busbw per size) for one collective",
              .run = cmd_collective},
      Command{.name = "compare",
              .summary = "training and nccl-tests logs against the prediction: step time, busbw per size",
              .run = cmd_compare},
      Command{.name = "explain",
              .summary = "list every scenario key: type, unit, default, meaning; and the presets",
              .run = cmd_explain},
      Command{.name = "failures",
              .summary = "Monte Carlo of the whole run: goodput, time-to-train, losses, best checkpoint interval",
              .run = cmd_failures},
      Command{.name = "import",
              .summary = "a Megatron-LM, NeMo, torchtitan or DeepSpeed configuration as a scenario",
              .run = cmd_import},
      Command{.name = "merge",
              .summary = "combine the shard outputs of `sweep --shard I/N` into one sweep result",
              .run = cmd_merge},
      Command{.name = "plan",
              .summary = "size a cluster: GPU type, count, topology and layout; Pareto front of time vs cost",
              .run = cmd_plan},
      Command{.name = "run",
              .summary = "simulate one training step: step time, MFU, bubble, exposed comm, memory",
              .run = cmd_run},
      Command{.name = "sweep",
              .summary = "rank parallelism layouts: named configs, or every valid layout with --search",
              .run = cmd_sweep},
      Command{.name = "tco",
              .summary = "build vs rent: cumulative cost, break-even month, cost of the run, sensitivity",
              .run = cmd_tco},
      Command{.name = "topo",
              .summary = "the network as a graph: switches, cables, bisection (max-flow), hops",
              .run = cmd_topo},
      Command{.name = "validate",
              .summary = "predicted vs measured step time for every published training run",
              .run = cmd_validate},
  };
  return table;
}

}  // namespace clustersim::tools
