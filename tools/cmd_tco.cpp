// `clustersim tco`: build versus rent over a horizon, the break-even month, the cost of the
// training run (time-to-train with goodput from the failure simulation) and a sensitivity table.

#include <algorithm>
#include <iostream>
#include <string_view>

#include <fmt/format.h>

#include "models/run/monte_carlo.hpp"
#include "models/cost/tco.hpp"
#include "scenarios/scenario_error.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "calibration/step_inputs.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"
#include "planning/run_setup.hpp"
#include "tools/file_output.hpp"
#include "tools/render/csv_tables.hpp"
#include "tools/render/tco_report.hpp"

namespace clustersim::tools {

int cmd_tco(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::int64_t runs = 200;
  std::string csv_path, report_path;
  constexpr IntRange runs_range{.min = 1, .max = max_monte_carlo_runs};
  options.visible.add_options()
      ("runs", integer_option("runs", &runs, runs_range)->value_name("N"),
       with_rule("Monte Carlo runs for the time-to-train of the training run (default 200)", runs_range.rule()).c_str())
      ("csv", path_option("csv", &csv_path)->value_name("FILE"),
       "write the cumulative cost curves as CSV, one row per month from 0 to the horizon: month, build_usd, and "
       "rent_<option>_usd for each rent option with a price (plot them: they cross at the break-even month)")
      ("report", path_option("report", &report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: the cumulative cost curves with the break-even months and the "
       "sensitivity tornado");
  const CommandHelp help{
      .name = "tco",
      .usage = "[SCENARIO] [--set path=value ...] [--runs N] [--csv FILE] [--report FILE.html]",
      .description =
          "Build versus rent over cost.horizon_years: the bill of the build (servers, the network's\n"
          "switches, NICs, transceivers and cables counted on its topology, storage, energy, colocation,\n"
          "staff, maintenance), each rent option's cumulative cost and break-even month, the cost of the\n"
          "training run (time-to-train with failures, as `clustersim failures` simulates it) and dollars\n"
          "per million tokens, and the five inputs whose +/-20 % moves the result most.\n"
          "Prices: the cost section (clustersim explain).",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;

  const scenarios::Scenario scenario = scenario_args.load();
  const std::string source = scenario_args.source_name();
  if (const auto problem = models::find_cost_problem(scenario.cost)) {
    std::string pointer = "/" + problem->field;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    throw scenarios::ScenarioError(source, pointer, problem->rule);
  }

  TcoStudy study{.runs = runs};
  const models::NetworkParts network = models::network_parts(scenario.cluster);
  study.tco = models::compute_tco(scenario.cluster, scenario.cost, network);
  study.sensitivity = models::sensitivity(scenario.cluster, scenario.cost, network);

  const bool spot = scenario.cost.rent.spot_usd_per_gpu_hour > 0;
  Progress bar("tco", "runs", static_cast<std::size_t>(runs) * (spot ? 2 : 1), !options.output.quiet && stderr_is_terminal(),
               std::cerr);
  const auto progress = [&bar, last = std::int64_t{0}](std::int64_t done, std::int64_t) mutable {
    if (done < last) last = 0;
    bar.advance(static_cast<std::size_t>(done - last));
    last = done;
  };
  const std::uint64_t seed = scenario.simulation.seed;
  const planning::PreparedRun run = planning::prepare_run(scenario, source);
  // A run that does not finish has no time-to-train, so no cost.
  const auto finished = [&](const models::RunStatistics& stats, std::string_view rental) {
    if (stats.unfinished == 0) return;
    throw CliError(fmt::format("tco: {} of {} runs{} do not finish within {:.0f}x the failure-free time, so the run "
                               "has no cost (see clustersim failures)",
                               stats.unfinished, stats.runs, rental, models::run_horizon_factor));
  };
  const models::RunStatistics stats = models::simulate_runs(run.inputs, runs, seed, 0, progress);
  finished(stats, "");
  double spot_wall_s = 0.0;
  if (spot) {
    const planning::PreparedRun spot_run = planning::prepare_run(scenario, source, scenario.cost.rent.spot_preemption_per_node_s);
    const models::RunStatistics spot_stats = models::simulate_runs(spot_run.inputs, runs, seed, 0, progress);
    finished(spot_stats, " on spot capacity");
    spot_wall_s = spot_stats.mean_wall_s;
  }
  bar.finish();
  study.goodput = stats.mean_goodput;
  study.failure_free_s = run.inputs.work_s;
  study.run = models::run_cost(scenario.cluster, scenario.cost, study.tco.build, scenario.training.tokens,
                               stats.mean_wall_s, spot_wall_s);

  if (!csv_path.empty()) write_file_atomically(csv_path, tco_cumulative_csv(study.tco));
  if (!report_path.empty()) write_file_atomically(report_path, tco_report_html(scenario, study));
  if (options.output.json) {
    nlohmann::ordered_json j = tco_report_json(scenario, study);
    j["communication_constants"] = calibration::communication_constants(scenario);
    out << j.dump(2) << '\n';
  } else {
    out << tco_report_text(scenario, study) << "communication constants: "
        << calibration::communication_constants(scenario) << '\n';
  }
  return 0;
}

}  // namespace clustersim::tools
