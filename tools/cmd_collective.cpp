// `clustersim collective`: predicted nccl-tests output for one collective over whole nodes of the
// scenario's cluster, in nccl-tests' table layout (so it can be diffed line by line against a real
// all_reduce_perf / all_gather_perf / ... run) or as JSON rows.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "calibration/nccl_tests_log.hpp"
#include "models/comm/collectives.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/render/nccl_tests_table.hpp"
#include "calibration/step_inputs.hpp"

namespace clustersim::tools {

namespace {

// Sizes take nccl-tests' suffixes: K, M, G as powers of 1024.
std::int64_t parse_size(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw CliError(fmt::format("collective: --{} {}: not a size (use bytes with K, M or G, e.g. 1K, 8G)", option, text));
  }
  const std::string suffix = text.substr(used);
  double scale = 1.0;
  if (suffix == "K" || suffix == "k") scale = 1024.0;
  else if (suffix == "M" || suffix == "m") scale = 1024.0 * 1024.0;
  else if (suffix == "G" || suffix == "g") scale = 1024.0 * 1024.0 * 1024.0;
  else if (!suffix.empty()) throw CliError(fmt::format("collective: --{} {}: unknown suffix '{}' (K, M or G)", option, text, suffix));
  const double bytes = value * scale;
  if (!(bytes >= 1.0) || bytes > 1e15) throw CliError(fmt::format("collective: --{} {}: must be 1 B .. 1 PB", option, text));
  return static_cast<std::int64_t>(std::llround(bytes));
}

}  // namespace

int cmd_collective(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::string op_name = "all_reduce", min_text = "1K", max_text = "8G";
  std::int64_t nodes = 1;
  double factor = 2.0;
  options.visible.add_options()
      ("nodes", po::value(&nodes)->value_name("N"), "whole nodes taking part, one rank per GPU (default 1)")
      ("op", po::value(&op_name)->value_name("NAME"),
       "all_reduce, all_gather, reduce_scatter, alltoall or sendrecv (default all_reduce)")
      ("min", po::value(&min_text)->value_name("SIZE"), "smallest size, nccl-tests' -b (default 1K)")
      ("max", po::value(&max_text)->value_name("SIZE"), "largest size, nccl-tests' -e (default 8G)")
      ("factor", po::value(&factor)->value_name("F"), "size step factor, nccl-tests' -f (default 2)");
  const CommandHelp help{
      .name = "collective",
      .usage = "[SCENARIO] --nodes N --op all_reduce --min 1K --max 8G [--set path=value ...] [--json]",
      .description =
          "Predict an nccl-tests run on the scenario's cluster (GPU, node, NICs, fabric, topology and\n"
          "calibration profile): one row per size with time, algbw and busbw as nccl-tests prints\n"
          "them (GB/s = 1e9 B/s, float elements), and the average bus bandwidth at the end.",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;

  const auto op = calibration::parse_collective_name(op_name);
  if (!op) {
    throw CliError("collective: --op " + op_name + ": not all_reduce, all_gather, reduce_scatter, alltoall or sendrecv");
  }
  const std::int64_t min_bytes = parse_size(min_text, "min"), max_bytes = parse_size(max_text, "max");
  if (max_bytes < min_bytes) throw CliError("collective: --max must be >= --min");
  if (!(factor > 1.0)) throw CliError("collective: --factor must be > 1");

  const scenarios::Scenario scenario = scenario_args.load();
  const models::StepInputs inputs = calibration::step_inputs(scenario);
  const std::int64_t cluster_nodes = inputs.cluster.num_gpus / inputs.cluster.gpus_per_node;
  if (nodes < 1 || nodes > cluster_nodes) {
    throw CliError(fmt::format("collective: --nodes {}: the cluster has {} nodes of {} GPUs", nodes, cluster_nodes,
                               inputs.cluster.gpus_per_node));
  }
  NcclTestsRun run = predict_nccl_tests_run(*op, nodes, min_bytes, max_bytes, factor, inputs);
  run.constants = calibration::communication_constants(scenario);
  if (scenario_args.json) {
    out << nccl_tests_json(run, scenario.name).dump(2) << '\n';
  } else {
    out << nccl_tests_text(run, scenario.name);
  }
  return 0;
}

}  // namespace clustersim::tools
