// `clustersim calibrate`: raw benchmark results and nccl-tests logs in, a fitted calibration profile out.
// The fit is calibration/calibrate.hpp's; the report is tools/render/calibration_report.hpp's.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibration/calibrate.hpp"
#include "calibration/nccl_tests_log.hpp"
#include "calibration/profile.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"
#include "tools/render/calibration_report.hpp"

namespace clustersim::tools {
namespace {

namespace cal = calibration;

// The arguments that determine the profile: all but where it goes, how the report looks, and the
// note (kept in a field of its own).
std::vector<std::string> recorded_arguments(std::span<const std::string> args) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out" || args[i] == "--note" || args[i] == "--network-source") {
      ++i;
      continue;
    }
    if (args[i].starts_with("--out=") || args[i].starts_with("--note=") || args[i].starts_with("--network-source=") ||
        args[i] == "--json" || args[i] == "--quiet") {
      continue;
    }
    kept.push_back(args[i]);
  }
  return kept;
}

}  // namespace

int cmd_calibrate(std::span<const std::string> args, std::ostream& out) {
  std::vector<std::string> inputs;
  std::string out_path, collective, fabric = "infiniband";
  cal::CalibrateOptions options;
  CommandOptions command;
  constexpr RealRange tolerance_range{.min = 0.0, .max = 1.0, .min_exclusive = true};
  constexpr IntRange segments_range{.min = 0, .max = 64};
  constexpr RealRange nic_range{.min = 0.0, .max = 1e5, .min_exclusive = true};
  constexpr IntRange nics_range{.min = 1, .max = 64};
  command.visible.add_options()
      ("out", path_option("out", &out_path)->value_name("PROFILE.json"), "where to write the profile (required)")
      ("gpu", po::value(&options.gpu)->value_name("NAME"),
       "GPU preset the inputs were measured on; default: from the device names in the inputs")
      ("collective", po::value(&collective)->value_name("NAME"),
       "collective of nccl-tests logs that do not show it (all_gather vs alltoall)")
      ("tolerance", real_option("tolerance", &options.fit.tolerance, tolerance_range)->value_name("FRACTION"),
       with_rule("largest relative time error an alpha-beta segment may leave (default 0.03)", tolerance_range.rule()).c_str())
      ("max-segments", integer_option("max-segments", &options.fit.max_segments, segments_range)->value_name("N"),
       with_rule("at most this many alpha-beta segments per collective (1: one line; 0: as the tolerance needs; default 0)",
                 segments_range.rule()).c_str())
      ("nic-gbit-per-s", real_option("nic-gbit-per-s", &options.nic_gbit_per_s, nic_range)->value_name("GBIT"),
       with_rule("line rate of one NIC, for network_efficiency (default 400)", nic_range.rule()).c_str())
      ("nics-per-node", integer_option("nics-per-node", &options.nics_per_node, nics_range)->value_name("N"),
       with_rule("NICs per node, for network_efficiency (default 8)", nics_range.rule()).c_str())
      ("fabric", po::value(&fabric)->value_name("NAME"),
       "infiniband (default), roce, omnipath or efa: with the NIC rate and count, the network the inputs were "
       "measured on")
      ("aws-ofi-tuner", po::bool_switch(&options.aws_ofi_tuner),
       "the logs across nodes ran under the AWS OFI plugin's tuner (AWS EFA, implied by --fabric efa): their "
       "curves then price only clusters whose fabric runs it")
      ("network-source", po::value(&options.network_source)->value_name("TEXT"),
       "where that network (fabric, NIC rate, NICs per node) is stated, kept in the profile")
      ("note", po::value(&options.note)->value_name("TEXT"),
       "where and when the inputs were measured, kept in the profile's metadata");
  command.hidden.add_options()("input", po::value(&inputs)->composing(), "raw inputs");
  command.positional.add("input", -1);
  const CommandHelp help{
      .name = "calibrate",
      .usage = "RAW... --out PROFILE.json [--gpu NAME] [--collective NAME] [--tolerance FRACTION] [--max-segments N]\n"
               "                            [--nic-gbit-per-s GBIT] [--nics-per-node N] [--fabric NAME] [--aws-ofi-tuner]\n"
               "                            [--network-source TEXT] [--note TEXT]",
      .description =
          "Fit the step model's constants to measurements and write a calibration profile.\n"
          "Collectives: alpha-beta lines (time = alpha + bytes x bus factor / busbw) per collective\n"
          "and rank layout, by relative least squares with 95% intervals, split into size segments\n"
          "where one line cannot follow NCCL's protocol changes. GEMMs: e_max and k_half of the\n"
          "tile/wave efficiency model. The profile is written only when everything succeeded.",
      .arguments =
          "  RAW         nccl-tests logs (all_reduce_perf, all_gather_perf, reduce_scatter_perf,\n"
          "              alltoall_perf, sendrecv_perf; or calibration/bench/nccl_bench) and JSON-lines\n"
          "              results of calibration/bench (gemm_bench, membw_bench, nccl_bench --json)",
      .json_help = "print the fit report as one JSON object instead of text",
  };
  if (!parse_command_line(args, help, command, out)) return 0;
  if (inputs.empty()) throw CliError("calibrate: no raw inputs given (see clustersim calibrate --help)");
  if (out_path.empty()) throw CliError("calibrate: --out PROFILE.json is required");
  if (const std::optional<models::Fabric> f = models::fabric_from_name(fabric)) {
    options.fabric = *f;
  } else {
    throw CliError(fmt::format("calibrate: --fabric {}: not one of {}", fabric, fmt::join(models::kFabricNames, ", ")));
  }
  if (!collective.empty()) {
    options.collective = cal::parse_collective_name(collective);
    if (!options.collective) {
      throw CliError("calibrate: --collective " + collective +
                     ": not all_reduce, all_gather, reduce_scatter, all_to_all or send_recv");
    }
  }
  options.arguments = recorded_arguments(args);

  const cal::Calibration result = cal::calibrate(inputs, options);
  const std::string profile_text = cal::profile_to_json(result.profile);
  const std::string report = command.output.json ? calibration_report_json(result, out_path, profile_text)
                                    : calibration_report_text(result, out_path);
  write_file_atomically(out_path, profile_text);
  out << report;
  return 0;
}

}  // namespace clustersim::tools
