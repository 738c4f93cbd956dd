// `clustersim run`: simulate one training step of a scenario and report on it.

#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "models/step/step_model.hpp"
#include "scenarios/layout_pointer.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"
#include "calibration/step_inputs.hpp"
#include "tools/render/chrome_trace.hpp"
#include "tools/render/csv_tables.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/export_option.hpp"
#include "tools/file_output.hpp"
#include "tools/render/html_report.hpp"
#include "tools/render/op_table.hpp"
#include "tools/render/prometheus_metrics.hpp"
#include "tools/render/step_report.hpp"

namespace clustersim::tools {

namespace {

/// The step, with a layout the step model rejects (flow fidelity: the network, failed links) named
/// by its JSON pointer, as scenario errors are.
models::StepSimulation simulate(const scenarios::Scenario& scenario, const std::string& source) {
  try {
    return models::simulate_step(calibration::step_inputs(scenario));
  } catch (const models::LayoutError& e) {
    throw scenarios::ScenarioError(source, scenarios::json_pointer(e.field()), e.rule());
  }
}

}  // namespace

int cmd_run(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::string trace_path, report_path, metrics_path, csv_path;
  bool print_scenario = false;
  bool ops = false;
  std::size_t links = 0;
  constexpr IntRange links_range{.min = 0, .max = 1000000};
  ExportOption export_option;
  export_option.add_to(options);
  options.visible.add_options()
      ("trace", path_option("trace", &trace_path)->value_name("FILE"),
       "write the step as Chrome trace-event JSON (open in ui.perfetto.dev)")
      ("report", path_option("report", &report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: pipeline timeline and step-time breakdown")
      ("metrics", path_option("metrics", &metrics_path)->value_name("FILE"),
       "write the prediction as Prometheus text metrics (a node_exporter textfile)")
      ("csv", path_option("csv", &csv_path)->value_name("FILE"),
       "write the per-stage table as CSV: one row per pipeline stage (layers, compute, exposed communication, "
       "bubble, TP/PP/DP/CP/EP communication in seconds, memory in GiB)")
      ("print-scenario", po::bool_switch(&print_scenario), "print the normalised scenario instead of simulating")
      ("ops", po::bool_switch(&ops),
       "also list the compute of one micro-batch on one GPU op by op: each GEMM's shape, FLOPs, HBM bytes, time "
       "and achieved rate, to set against a profiler's kernel table")
      ("links", integer_option("links", &links, links_range)->value_name("N"),
       with_rule("list the N busiest network links: bytes, utilisation, which communication used them (flow fidelity)",
                 links_range.rule()).c_str());
  const CommandHelp help{
      .name = "run",
      .usage = "[SCENARIO] [--set path=value ...] [--links N] [--ops] [--trace FILE]\n"
               "                      [--report FILE.html] [--metrics FILE] [--csv FILE] [--export FRAMEWORK]\n"
               "                      [--print-scenario]",
      .description = "Simulate one training step: step time, tokens/s, model TFLOP/s per GPU, MFU, HFU,\n"
                     "pipeline bubble, exposed communication, a per-stage breakdown and memory per GPU.",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;

  const scenarios::Scenario scenario = scenario_args.load();
  if (print_scenario) {
    if (options.output.json)
      out << nlohmann::ordered_json{{"scenario", nlohmann::ordered_json::parse(scenarios::to_json(scenario))}}.dump(2)
          << '\n';
    else
      out << scenarios::to_json(scenario) << '\n';
    return 0;
  }
  if (links > 0 && scenario.simulation.fidelity != scenarios::Fidelity::flow)
    throw std::invalid_argument(
        "--links: needs simulation.fidelity \"flow\" (the analytic fidelity puts no traffic on links); add --set "
        "simulation.fidelity=flow");
  const std::string source = scenario_args.source_name();
  const models::StepSimulation sim = simulate(scenario, source);
  const std::vector<models::LinkLoad> busiest = models::busiest_links(sim.step, sim.timeline, links);
  const std::vector<models::TimedOp> op_list =
      ops ? models::op_breakdown(calibration::step_inputs(scenario)) : std::vector<models::TimedOp>{};
  // Write the trace before printing, so that a failure leaves neither a file nor a half report.
  if (!trace_path.empty()) write_file_atomically(trace_path, chrome_trace_json(sim.step, sim.timeline));
  if (!report_path.empty()) write_file_atomically(report_path, run_report_html(scenario, sim));
  if (!metrics_path.empty())
    write_file_atomically(metrics_path, prometheus_text(step_metric_families(scenario, calibration::step_inputs(scenario), sim)));
  if (!csv_path.empty()) write_file_atomically(csv_path, run_stages_csv(sim.report));
  const std::optional<handoff::LaunchConfig> launch =
      export_option.framework()
          ? std::optional(handoff::export_launch(*export_option.framework(), scenario.model, scenario.cluster,
                                                 {.parallelism = scenario.parallelism, .training = scenario.training}))
          : std::nullopt;
  const std::optional<calibration::StepTimeBand> band = calibration::step_time_band(scenario);
  if (options.output.json) {
    nlohmann::ordered_json j = step_report_json(scenario, sim.report);
    j["communication_constants"] = calibration::communication_constants(scenario);
    if (band) j["step_time_band_s"] = {{"fast", band->fast_s}, {"slow", band->slow_s}, {"constants", band->constants}};
    if (links > 0) j["links"] = links_json(busiest);
    if (ops) j["ops"] = ops_json(op_list);
    if (launch) j["export"] = handoff::launch_config_json(*launch);
    out << j.dump(2) << '\n';
  } else {
    out << step_report_text(scenario, sim.report);
    out << fmt::format("\n  communication constants: {}\n", calibration::communication_constants(scenario));
    if (band) {
      out << fmt::format("\n  step time with the profile's constants at the ends of their 95 % intervals: "
                         "{:.3f} .. {:.3f} s\n  ({} constants: {})\n",
                         band->fast_s, band->slow_s, band->constants.size(), fmt::join(band->constants, ", "));
    }
    if (links > 0) out << links_text(busiest);
    if (ops) out << ops_text(op_list);
    if (launch) out << "\n" << handoff::launch_config_text(*launch);
  }
  return 0;
}

}  // namespace clustersim::tools
