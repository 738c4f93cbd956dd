// `clustersim validate`: predicted vs measured step time for every published training run.
// The study is planning/validation/validation_report.hpp's; the report is tools/render/validation_table.hpp's.

#include "planning/validation/validation_report.hpp"
#include "planning/validation/validation_source.hpp"
#include "scenarios/scenario_io.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/render/validation_table.hpp"

namespace clustersim::tools {


int cmd_validate(std::span<const std::string> args, std::ostream& out) {
  std::string csv_path;
  bool details = false;
  std::string print_id;
  CommandOptions options;
  options.visible.add_options()(
      "details", po::bool_switch(&details),
      "text: also show each row's measured-time derivation, cross-checks and assumptions")(
      "print-scenario", po::value(&print_id)->value_name("ID"),
      "print the normalised scenario of row ID (a file for clustersim run) instead of validating");
  options.hidden.add_options()("csv", path_option("CSV", &csv_path), "validation CSV");
  options.positional.add("csv", 1);
  const CommandHelp help{
      .name = "validate",
      .usage = "[CSV] [--details] [--print-scenario ID]",
      .description =
          "Simulate every published training run of a validation CSV and compare the predicted\n"
          "step time with the measured one (published directly, or derived from tokens/s,\n"
          "TFLOP/s with the source's FLOP convention, or MFU). Rows the step model cannot\n"
          "express (MoE, non-standard GPUs, missing layout) are listed as skipped with the reason.",
      .arguments = "  CSV         validation CSV with the columns of published_runs.csv; default: the\n"
                   "              built-in scenarios/validation/published_runs.csv",
  };
  if (!parse_command_line(args, help, options, out)) return 0;

  const planning::ValidationCsv csv = planning::load_validation_csv(csv_path);
  if (!print_id.empty()) {
    out << scenarios::to_json(planning::validation_row_scenario(csv, print_id)) << '\n';
    return 0;
  }
  const planning::ValidationReport report = planning::run_validation(csv.text, csv.name);
  out << (options.output.json ? validation_report_json(report) : validation_report_text(report, csv.name, details));
  return 0;
}

}  // namespace clustersim::tools
