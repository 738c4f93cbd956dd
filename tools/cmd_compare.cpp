// `clustersim compare`: the logs a team already has (Megatron-LM, NeMo, torchtitan, MLPerf MLLOG,
// nccl-tests) against the scenario's prediction: step time per training log, busbw per size per
// nccl-tests log, and which of them departs most.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "calibration/step_inputs.hpp"
#include "handoff/compare/log_comparison.hpp"
#include "handoff/logs/log_format.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/validation_runs.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"
#include "tools/render/nccl_tests_table.hpp"
#include "tools/render/prometheus_metrics.hpp"

namespace clustersim::tools {

namespace {

/// The scenario of a published run of `validate` (scenarios/validation/published_runs.csv).
scenarios::Scenario published_run_scenario(const std::string& id) {
  const auto rows = scenarios::read_validation_rows(scenarios::embedded_validation_csv(),
                                                    scenarios::embedded_validation_csv_name);
  for (const auto& row : rows) {
    if (row.id != id) continue;
    const auto mapped = scenarios::map_validation_row(row, scenarios::embedded_validation_csv_name);
    if (const auto* run = std::get_if<scenarios::ValidationCase>(&mapped)) return run->scenario;
    throw CliError("compare: --run " + id + ": the step model cannot run it: " + std::get<scenarios::SkippedRow>(mapped).reason);
  }
  throw CliError("compare: --run " + id + ": no published run of that id (clustersim validate --json lists them)");
}

struct Departure {
  std::string what{};
  double relative_error = 0.0;
};

std::string percent(double ratio) { return fmt::format("{:+.1f} %", 100.0 * ratio); }

}  // namespace

int cmd_compare(std::span<const std::string> args, std::ostream& out) {
  std::string scenario_path, run_id, metrics_path;
  std::vector<std::string> sets, logs;
  std::int64_t warmup_steps = 10;
  constexpr IntRange warmup_range{.min = 0, .max = 1000000000};
  CommandOptions options;
  options.visible.add_options()
      ("scenario", path_option("scenario", &scenario_path)->value_name("FILE"),
       "scenario JSON file to predict with; default: the built-in Llama 3 70B on 256 H100")
      ("run", po::value(&run_id)->value_name("ID"), "predict with the scenario of a published run of `validate` instead")
      ("set", po::value(&sets)->value_name("path=value")->composing(), "override a scenario key (repeatable)")
      ("warmup-steps", integer_option("warmup-steps", &warmup_steps, warmup_range)->value_name("N"),
       with_rule("drop the logged steps numbered up to N as warm-up (default 10)", warmup_range.rule()).c_str())
      ("metrics", path_option("metrics", &metrics_path)->value_name("FILE"),
       "write the predicted and measured figures as Prometheus text metrics (a node_exporter textfile)");
  options.hidden.add_options()("log", po::value(&logs)->composing(), "log files");
  options.positional.add("log", -1);
  const CommandHelp help{
      .name = "compare",
      .usage = "LOG... [--scenario FILE | --run ID] [--set path=value ...] [--warmup-steps N]\n"
               "                          [--metrics FILE]",
      .description =
          "Set the logs a cluster already has against the prediction: the steady step time (median, P10,\n"
          "P90) of Megatron-LM, NeMo, torchtitan and MLPerf MLLOG logs against the predicted step time,\n"
          "and nccl-tests' bus bandwidth per size against the collective model's (as `collective`).\n"
          "Each log's format is detected from its lines.",
      .arguments = "  LOG         training or nccl-tests log files (one or more)",
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  if (logs.empty()) throw CliError("compare: no LOG given (a Megatron-LM, NeMo, torchtitan, MLLOG or nccl-tests log)");
  if (!run_id.empty() && (!scenario_path.empty() || !sets.empty()))
    throw CliError("compare: --run takes the published run's scenario as it is: not with --scenario or --set");

  std::vector<handoff::TrainingLog> read;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k)
      if (logs[k] == logs[i]) throw CliError("compare: " + logs[i] + " is given twice");
    read.push_back(handoff::read_training_log(logs[i]));
  }

  scenarios::Scenario scenario;
  if (!run_id.empty()) {
    scenario = published_run_scenario(run_id);
  } else {
    ScenarioArgs scenario_args;
    scenario_args.output = &options.output;
    scenario_args.scenario_path = scenario_path;
    scenario_args.sets = sets;
    scenario = scenario_args.load();
  }
  const models::StepInputs inputs = calibration::step_inputs(scenario);
  const models::StepSimulation sim = models::simulate_step(inputs);
  const models::StepTimes& times = sim.report.times;

  std::vector<handoff::StepTimeComparison> steps;
  std::vector<handoff::BusbwComparison> collectives;
  for (const auto& log : read) {
    if (log.steps) {
      steps.push_back(handoff::compare_step_time(*log.steps, times.step_time_s, warmup_steps));
      continue;
    }
    const calibration::NcclTestsLog& nccl = *log.nccl;
    const std::int64_t cluster_nodes = inputs.cluster.num_gpus / inputs.cluster.gpus_per_node;
    if (nccl.gpus_per_node != inputs.cluster.gpus_per_node || nccl.nodes > cluster_nodes) {
      throw CliError(fmt::format("compare: {}: {} nodes of {} GPUs; the scenario's cluster has {} nodes of {}", nccl.file,
                                 nccl.nodes, nccl.gpus_per_node, cluster_nodes, inputs.cluster.gpus_per_node));
    }
    std::vector<handoff::PredictedCollective> predicted;
    for (const auto& row : nccl.rows) {
      const NcclTestsRun run = predict_nccl_tests_run(nccl.op, nccl.nodes, row.size_bytes, row.size_bytes, 2.0, inputs);
      predicted.push_back({.time_us = run.rows.front().time_us, .busbw_gbps = run.rows.front().busbw_gbps});
    }
    collectives.push_back(handoff::compare_busbw(nccl, predicted));
  }

  std::optional<Departure> worst;
  const auto consider = [&worst](std::string what, double error) {
    if (!worst || std::abs(error) > std::abs(worst->relative_error)) worst = Departure{std::move(what), error};
  };
  for (const auto& s : steps) consider(fmt::format("step time of {}", s.file), s.relative_error);
  for (const auto& c : collectives) {
    if (const auto* row = handoff::largest_departure(c))
      consider(fmt::format("{} busbw at {} B ({})", calibration::collective_name(c.op), row->size_bytes, c.file),
               row->relative_error);
  }
  if (!metrics_path.empty()) {
    std::vector<MetricFamily> families = step_metric_families(scenario, inputs, sim);
    for (auto& family : compare_metric_families(scenario, steps, collectives)) families.push_back(std::move(family));
    write_file_atomically(metrics_path, prometheus_text(families));
  }
  const double exposed_s = times.exposed_comm_fraction * times.step_time_s;
  const double bubble_s = times.bubble_fraction * times.step_time_s;

  if (options.output.json) {
    nlohmann::ordered_json j;
    j["scenario"] = scenario.name;
    j["predicted"] = {{"step_time_s", times.step_time_s}, {"exposed_comm_s", exposed_s}, {"bubble_s", bubble_s},
                      {"mfu", sim.report.mfu}, {"model_tflops_per_gpu", sim.report.model_tflops_per_gpu}};
    j["warmup_steps"] = warmup_steps;
    j["step_logs"] = nlohmann::ordered_json::array();
    for (const auto& s : steps) {
      nlohmann::ordered_json e{{"file", s.file}, {"format", handoff::log_format_name(s.format)},
                               {"steps_used", s.measured_s.count}, {"steps_dropped", s.dropped},
                               {"measured_step_time_s", {{"median", s.measured_s.median}, {"p10", s.measured_s.p10}, {"p90", s.measured_s.p90}}},
                               {"predicted_step_time_s", s.predicted_s}, {"relative_error", s.relative_error},
                               {"measured_minus_predicted_s", s.measured_s.median - s.predicted_s}};
      if (s.measured_tflops_per_gpu) e["measured_tflops_per_gpu_median"] = s.measured_tflops_per_gpu->median;
      j["step_logs"].push_back(e);
    }
    j["nccl_tests_logs"] = nlohmann::ordered_json::array();
    for (const auto& c : collectives) {
      nlohmann::ordered_json e{{"file", c.file}, {"collective", calibration::collective_name(c.op)}, {"nodes", c.nodes},
                               {"ranks", c.ranks}, {"rows", nlohmann::ordered_json::array()}};
      for (const auto& r : c.rows)
        e["rows"].push_back({{"size_bytes", r.size_bytes}, {"measured_time_us", r.measured_time_us},
                             {"measured_busbw_gbps", r.measured_busbw_gbps}, {"predicted_time_us", r.predicted_time_us},
                             {"predicted_busbw_gbps", r.predicted_busbw_gbps}, {"relative_error", r.relative_error}});
      j["nccl_tests_logs"].push_back(e);
    }
    if (worst) j["largest_departure"] = {{"what", worst->what}, {"relative_error", worst->relative_error}};
    out << j.dump(2) << '\n';
    return 0;
  }

  out << fmt::format("{}: predicted step {:.3f} s (exposed communication {:.3f} s, bubble {:.3f} s), MFU {:.1f} %\n",
                     scenario.name, times.step_time_s, exposed_s, bubble_s, 100.0 * sim.report.mfu);
  out << fmt::format("error = predicted / measured - 1, of the step time and of the bus bandwidth; warm-up: the logged steps numbered up to {} are dropped\n",
                     warmup_steps);
  if (!steps.empty()) {
    out << fmt::format("\n  {:<14} {:>5} {:>7} {:>12} {:>22} {:>11} {:>9}  {}\n", "format", "steps", "dropped",
                       "median s", "P10 .. P90 s", "predicted s", "error", "log");
    for (const auto& s : steps) {
      out << fmt::format("  {:<14} {:>5} {:>7} {:>12.4f} {:>22} {:>11.4f} {:>9}  {}\n", handoff::log_format_name(s.format),
                         s.measured_s.count, s.dropped, s.measured_s.median,
                         fmt::format("{:.4f} .. {:.4f}", s.measured_s.p10, s.measured_s.p90), s.predicted_s,
                         percent(s.relative_error), s.file);
      const double gap = s.measured_s.median - s.predicted_s;
      out << fmt::format("    measured - predicted = {:+.3f} s: {:.2f} x the predicted exposed communication, {:.2f} x the bubble\n",
                         gap, exposed_s > 0.0 ? gap / exposed_s : 0.0, bubble_s > 0.0 ? gap / bubble_s : 0.0);
    }
  }
  for (const auto& c : collectives) {
    out << fmt::format("\n  {} over {} nodes ({} ranks): {}\n", calibration::collective_name(c.op), c.nodes, c.ranks, c.file);
    out << fmt::format("  {:>14} {:>13} {:>11} {:>13} {:>11} {:>9}\n", "size B", "measured us", "busbw GB/s",
                       "predicted us", "busbw GB/s", "error");
    for (const auto& r : c.rows)
      out << fmt::format("  {:>14} {:>13.2f} {:>11.2f} {:>13.2f} {:>11.2f} {:>9}\n", r.size_bytes, r.measured_time_us,
                         r.measured_busbw_gbps, r.predicted_time_us, r.predicted_busbw_gbps, percent(r.relative_error));
  }
  if (worst) out << fmt::format("\nlargest departure: {}, {}\n", worst->what, percent(worst->relative_error));
  return 0;
}

}  // namespace clustersim::tools
