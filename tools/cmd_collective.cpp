// `clustersim collective`: predicted nccl-tests output for one collective over whole nodes of the
// scenario's cluster, in nccl-tests' table layout (so it can be diffed line by line against a real
// all_reduce_perf / all_gather_perf / ... run) or as JSON rows.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "calibration/nccl_tests_log.hpp"
#include "models/comm/collectives.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/render/nccl_tests_table.hpp"
#include "tools/render/collective_report.hpp"
#include "tools/file_output.hpp"
#include "calibration/step_inputs.hpp"

namespace clustersim::tools {

namespace {

// Sizes take nccl-tests' suffixes: K, M, G as powers of 1024.
constexpr RealRange collective_size_range{.min = 1.0, .max = 1e15};
constexpr std::string_view collective_size_rule = "a size in bytes with an optional K, M or G, 1 B .. 1 PB (e.g. 1K, 8G)";
std::int64_t parse_size(const std::string& text, const std::string& option) {
  double scale = 1.0;
  std::string_view number = text;
  if (!number.empty()) {
    switch (number.back()) {
      case 'K': case 'k': scale = 1024.0; break;
      case 'M': case 'm': scale = 1024.0 * 1024.0; break;
      case 'G': case 'g': scale = 1024.0 * 1024.0 * 1024.0; break;
      default: break;
    }
    if (scale > 1.0) number.remove_suffix(1);
  }
  const auto value = parse_plain_decimal(number);
  if (!value || !in_range(*value * scale, collective_size_range)) {
    throw CliError(fmt::format("collective: --{}: must be {}, got '{}'", option, collective_size_rule, text));
  }
  return static_cast<std::int64_t>(std::llround(*value * scale));
}

}  // namespace

int cmd_collective(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::string op_name = "all_reduce", min_text = "1K", max_text = "8G", report_path, compare_path;
  std::int64_t nodes = 1;
  double factor = 2.0;
  constexpr IntRange nodes_range{.min = 1, .max = 1 << 17};
  // nccl-tests multiplies by an integer factor (2 is usual); a fraction is allowed here, but each
  // step must grow the size by at least 1 %: at most ln(1e15) / ln(1.01) + 1 = 3473 rows from 1 B
  // to 1 PB, each simulated.
  constexpr RealRange factor_range{.min = 1.01, .max = 1024.0};
  options.visible.add_options()
      ("nodes", integer_option("nodes", &nodes, nodes_range)->value_name("N"),
       with_rule("whole nodes taking part, one rank per GPU (default 1)", nodes_range.rule()).c_str())
      ("op", po::value(&op_name)->value_name("NAME"),
       "all_reduce, all_gather, reduce_scatter, alltoall or sendrecv (default all_reduce)")
      ("min", po::value(&min_text)->value_name("SIZE"), with_rule("smallest size, nccl-tests' -b (default 1K)", std::string(collective_size_rule)).c_str())
      ("max", po::value(&max_text)->value_name("SIZE"), with_rule("largest size, nccl-tests' -e (default 8G)", std::string(collective_size_rule)).c_str())
      ("factor", real_option("factor", &factor, factor_range)->value_name("F"),
       with_rule("size step factor, nccl-tests' -f (default 2)", factor_range.rule() + " (at most 3473 sizes)").c_str())
      ("report", path_option("report", &report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: bus bandwidth against size on a log axis")
      ("compare", path_option("compare", &compare_path)->value_name("LOG"),
       "a real nccl-tests log of the same collective, drawn over the prediction in --report");
  const CommandHelp help{
      .name = "collective",
      .usage = "[SCENARIO] [--nodes N] [--op NAME] [--min SIZE] [--max SIZE] [--factor F]\n"
               "                             [--set path=value ...] [--report FILE.html [--compare LOG]]",
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
  if (!compare_path.empty() && report_path.empty()) {
    throw CliError("collective: --compare LOG is drawn in the report: give --report FILE.html too");
  }

  const scenarios::Scenario scenario = scenario_args.load();
  const models::StepInputs inputs = calibration::step_inputs(scenario);
  const std::int64_t cluster_nodes = inputs.cluster.num_gpus / inputs.cluster.gpus_per_node;
  if (nodes < 1 || nodes > cluster_nodes) {
    throw CliError(fmt::format("collective: --nodes {}: the cluster has {} nodes of {} GPUs", nodes, cluster_nodes,
                               inputs.cluster.gpus_per_node));
  }
  NcclTestsRun run = predict_nccl_tests_run(*op, nodes, min_bytes, max_bytes, factor, inputs);
  run.constants = calibration::communication_constants(scenario);
  if (!report_path.empty()) {
    std::optional<calibration::NcclTestsLog> measured;
    if (!compare_path.empty()) measured = calibration::read_nccl_tests_log(compare_path, *op);
    write_file_atomically(report_path, collective_report_html(run, scenario.name, measured ? &*measured : nullptr));
  }
  if (options.output.json) {
    out << nccl_tests_json(run, scenario.name).dump(2) << '\n';
  } else {
    out << nccl_tests_text(run, scenario.name);
  }
  return 0;
}

}  // namespace clustersim::tools
