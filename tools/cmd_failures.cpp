// `clustersim failures`: Monte Carlo simulation of a whole training run with failures, checkpoints
// and restarts; the checkpoint interval sweep; a storage x interval comparison.

#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "models/run/interval_sweep.hpp"
#include "models/run/monte_carlo.hpp"
#include "models/run/random.hpp"
#include "models/run/run_simulation.hpp"
#include "tools/file_output.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "calibration/step_inputs.hpp"
#include "tools/commands.hpp"
#include "tools/render/failures_report.hpp"
#include "tools/failures_resume.hpp"
#include "tools/progress.hpp"
#include "tools/resume_file.hpp"
#include "planning/run_setup.hpp"

namespace clustersim::tools {
namespace {

// The storage comparison simulates every target at each interval: a few intervals, each a
// checkpoint interval a scenario could hold (up to a year).
constexpr RealRange compare_minutes_range{.min = 0.0, .max = 525600.0, .min_exclusive = true};
constexpr std::size_t max_compare_intervals = 16;

std::vector<double> parse_minutes(const std::string& list) {
  const std::string rule = fmt::format("up to {} comma-separated minutes, each {}", max_compare_intervals,
                                       compare_minutes_range.rule());
  std::vector<double> values;
  for (const std::string& item : split_list(list)) {
    const auto value = parse_plain_decimal(item);
    if (!value || !in_range(*value, compare_minutes_range) || values.size() == max_compare_intervals) {
      throw CliError("failures: --compare-intervals: must be " + rule + ", got '" + list + "'");
    }
    values.push_back(*value * 60.0);
  }
  return values;
}

// Rows of the storage comparison, their statistics still to simulate: every target, a node-local one
// uploading to the scenario's shared second target (or NFS), each at every interval.
struct StorageVariant {
  StorageOption row;
  models::RunInputs inputs;
};

std::vector<StorageVariant> storage_variants(const planning::PreparedRun& run, const std::vector<double>& intervals_s,
                                             const std::string& source) {
  using models::SecondTarget;
  using models::StorageKind;
  const models::CheckpointSpec& base = run.setup.checkpoint;
  const SecondTarget upload = base.second_target == SecondTarget::lustre ? SecondTarget::lustre : SecondTarget::nfs;
  std::vector<StorageVariant> variants;
  for (const StorageKind target : {StorageKind::nfs, StorageKind::lustre, StorageKind::local_nvme}) {
    for (const double interval : intervals_s) {
      if (interval > run.inputs.work_s) continue;  // longer than the run: nothing to compare
      models::CheckpointSpec spec = base;
      spec.target = target;
      spec.second_target = target == StorageKind::local_nvme ? upload : SecondTarget::none;
      spec.interval_s = interval;
      spec.interval_steps = 0;
      const planning::PreparedRun variant = planning::with_checkpoint(run, spec, source);
      StorageOption row{.target = std::string(models::to_string(target)),
                        .interval_s = variant.inputs.interval_work_s,
                        .stall_s = variant.checkpoint.stall_s,
                        .commit_after_stall_s = variant.checkpoint.commit_after_stall_s,
                        .restart_s = variant.checkpoint.restart_fixed_s + variant.checkpoint.load_after_node_loss_s};
      if (target == StorageKind::local_nvme) {
        row.target += "+" + std::string(models::to_string(models::second_kind(upload)));
      }
      variants.push_back({.row = std::move(row), .inputs = variant.inputs});
    }
  }
  return variants;
}

// What makes one study: a resume file of another is refused.
std::string failures_job(const scenarios::Scenario& scenario, std::int64_t runs, std::uint64_t seed,
                         const std::vector<double>& intervals_s) {
  std::string job = fmt::format("failures\n{}\nruns {} seed {}\nintervals", scenarios::to_json(scenario), runs, seed);
  for (const double interval : intervals_s) job += fmt::format(" {:a}", interval);
  return job;
}

}  // namespace

int cmd_failures(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::int64_t runs = 1000;
  std::optional<std::uint64_t> seed;
  std::string compare = "30,60";
  std::string resume_path, report_path;
  constexpr IntRange runs_range{.min = 1, .max = max_monte_carlo_runs};
  constexpr IntRange seed_range{};
  options.visible.add_options()
      ("runs", integer_option("runs", &runs, runs_range)->value_name("N"),
       with_rule("Monte Carlo runs per setting (default 1000)", runs_range.rule()).c_str())
      ("seed", integer_option("seed", &seed, seed_range)->value_name("S"),
       with_rule("seed of the runs (default: simulation.seed of the scenario); the same seed gives the same output",
                 seed_range.rule()).c_str())
      ("compare-intervals", po::value(&compare)->value_name("MIN,..."),
       fmt::format("checkpoint intervals in minutes for the storage comparison (default 30,60); up to {}, each {}",
                   max_compare_intervals, compare_minutes_range.rule()).c_str())
      ("resume", path_option("resume", &resume_path)->value_name("FILE"),
       "keep the progress in FILE, rewritten atomically after each batch of runs (the main runs, the interval "
       "sweep, each storage option); a study killed midway and started again with the same FILE goes on from "
       "it, with the same output as one uninterrupted run. A FILE of another study is refused. Removed once "
       "the output is written")
      ("report", path_option("report", &report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: goodput against the checkpoint interval with Young's and Daly's "
       "intervals, lost GPU-hours by cause, the distribution of time-to-train over the runs");
  const CommandHelp help{
      .name = "failures",
      .usage = "[SCENARIO] [--set path=value ...] [--runs N] [--seed S] [--compare-intervals MIN,...]\n"
               "                           [--resume FILE] [--report FILE.html]",
      .description =
          "Simulate the whole training run many times with failures, checkpoints and restarts as events\n"
          "(steps from the token budget, step time from the step model): goodput, mean, P50 and P90\n"
          "time-to-train, interruptions and lost GPU-hours by cause, the best checkpoint interval found\n"
          "by sweeping it next to Young's and Daly's formulas, and each storage target at each of\n"
          "--compare-intervals. Rates and costs: the failures, checkpoint and storage sections.",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  const std::vector<double> intervals = parse_minutes(compare);
  if (!resume_path.empty()) check_resume_path(resume_path, {report_path});

  const scenarios::Scenario scenario = scenario_args.load();
  const std::string source = scenario_args.source_name();
  FailuresStudy study{.runs = runs, .seed = seed.value_or(scenario.simulation.seed)};
  study.run = planning::prepare_run(scenario, source);

  // Progress over every simulated run: the main study, the sweep and the comparison.
  const std::size_t total = static_cast<std::size_t>(runs) * (1 + 15 + 3 * intervals.size());
  Progress bar("failures", "runs", total, !options.output.quiet && stderr_is_terminal(), std::cerr);
  const auto progress = [&bar, last = std::int64_t{0}](std::int64_t done, std::int64_t) mutable {
    if (done < last) last = 0;  // a new simulate_runs call
    bar.advance(static_cast<std::size_t>(done - last));
    last = done;
  };
  std::vector<StorageVariant> variants = storage_variants(study.run, intervals, source);
  // Chunks of the resume file: 0 the main runs, 1 the interval sweep, 2... the storage options.
  std::optional<ResumeFile> resume;
  if (!resume_path.empty()) resume.emplace(resume_path, failures_job(scenario, runs, study.seed, intervals), 2 + variants.size());
  const auto kept = [&](std::size_t chunk) { return resume ? resume->find(chunk) : nullptr; };
  const auto keep = [&](std::size_t chunk, std::string text) {
    if (resume) resume->add(chunk, std::move(text));
  };
  const auto chunk_name = [](std::size_t chunk) { return "chunk " + std::to_string(chunk); };
  const auto batch = [&](std::size_t chunk, const models::RunInputs& inputs) {
    if (const std::string* text = kept(chunk)) {
      bar.advance(static_cast<std::size_t>(runs));
      return statistics_from_text(*text, chunk_name(chunk));
    }
    models::RunStatistics stats = models::simulate_runs(inputs, runs, study.seed, 0, progress);
    keep(chunk, statistics_text(stats));
    return stats;
  };
  study.stats = batch(0, study.run.inputs);
  if (const std::string* text = kept(1)) {
    bar.advance(static_cast<std::size_t>(runs) * 15);
    study.sweep = interval_sweep_from_text(*text, chunk_name(1));
  } else {
    study.sweep = models::sweep_intervals(study.run.inputs, study.run.setup.step_time_s, runs, study.seed, 0, progress);
    keep(1, interval_sweep_text(study.sweep));
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    variants[i].row.stats = batch(2 + i, variants[i].inputs);
    study.storage.push_back(std::move(variants[i].row));
  }
  bar.finish();

  if (!report_path.empty()) {
    // The distribution needs each run's time, which the statistics (and a resume file) do not
    // keep: the main runs again, run i with the seed simulate_runs gave it, so the same runs.
    std::vector<double> wall_s;
    const double horizon_s = models::run_horizon_s(study.run.inputs);
    for (std::int64_t i = 0; i < runs; ++i) {
      const models::RunOutcome o = models::simulate_run(study.run.inputs, models::run_seed(study.seed, static_cast<std::uint64_t>(i)));
      wall_s.push_back(o.finished() ? o.wall_s : horizon_s);
    }
    write_file_atomically(report_path, failures_report_html(scenario, study, wall_s));
  }
  if (options.output.json) {
    nlohmann::ordered_json j = failures_report_json(scenario, study);
    j["communication_constants"] = calibration::communication_constants(scenario);
    out << j.dump(2) << '\n';
  } else {
    out << failures_report_text(scenario, study) << "communication constants: "
        << calibration::communication_constants(scenario) << '\n';
  }
  if (resume) resume->remove();  // the study is done
  return 0;
}

}  // namespace clustersim::tools
