// `clustersim sweep`: rank named layouts (--configs FILE or the scenario's sweep.configs), or every
// valid layout (--search), on one model and cluster.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include <limits>

#include <fmt/format.h>

#include "models/step/step_model.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/sweep_configs.hpp"
#include "calibration/step_inputs.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/export_option.hpp"
#include "tools/file_output.hpp"
#include "tools/render/html_report.hpp"
#include "tools/render/sweep_report.hpp"
#include "tools/render/step_report.hpp"
#include "planning/search/flow_rerank.hpp"
#include "planning/search/sweep_runner.hpp"
#include "planning/validation/band_table.hpp"
#include "sim/hashing.hpp"
#include "tools/progress.hpp"
#include "tools/resumable_search.hpp"
#include "tools/resume_file.hpp"
#include "tools/render/sweep_table.hpp"

namespace clustersim::tools {
namespace {

constexpr std::size_t kDefaultSearchTop = 20;

std::string cluster_text(const scenarios::Scenario& s) {
  return fmt::format("{} x {} ({}), global batch {} x {} tokens", s.cluster.num_gpus, s.cluster.gpu.name,
                     models::node_layout_text(s.cluster), s.training.global_batch, s.training.seq_len);
}

std::string sweep_report_html(const planning::SweepHeader& header, const std::vector<planning::SweepRow>& ranked, const std::string& text,
                              const models::StepInputs* best_inputs, std::string_view best_name) {
  HtmlPage page(fmt::format("clustersim sweep: {}", header.scenario));
  page.paragraph(fmt::format("{} on {}", header.model, header.cluster));
  add_sweep_rows(page, ranked);
  if (best_inputs != nullptr) {
    const models::StepSimulation sim = models::simulate_step(*best_inputs);
    page.heading(fmt::format("Best layout: {}", best_name));
    page.step(sim, header.hbm_bytes);
  }
  page.heading("Text report");
  page.preformatted(text);
  return page.render();
}

}  // namespace

int cmd_sweep(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::string configs_path, csv_path, report_path, shard_text, validation_path, resume_path;
  bool search = false;
  bool whole_steps = false;
  constexpr std::size_t unset = std::numeric_limits<std::size_t>::max();
  std::size_t top = unset;
  unsigned jobs = planning::default_jobs();
  std::size_t flow_check = 0;
  constexpr IntRange flow_check_range{.min = 0, .max = 1000};
  constexpr IntRange top_range{.min = 0, .max = 1000000};
  constexpr IntRange jobs_range{.min = 1, .max = max_jobs};
  ExportOption export_option;
  export_option.add_to(options);
  std::size_t export_row = 1;
  constexpr IntRange export_row_range{.min = 1, .max = 1000000};
  options.visible.add_options()
      ("export-row", integer_option("export-row", &export_row, export_row_range)->value_name("N"),
       with_rule("with --export: the layout of the N-th row of the ranking (default 1, the best)", export_row_range.rule()).c_str())
      ("configs", path_option("configs", &configs_path)->value_name("FILE"),
       "named layouts to compare: a JSON array of {\"name\", \"parallelism\", \"training\"} "
       "(default: the scenario's sweep.configs)")
      ("search", po::bool_switch(&search),
       "enumerate every valid layout (tp, pp, dp, cp, vp, micro-batch, recompute, ZeRO, SP), set "
       "apart those that cannot fit in memory, simulate the rest")
      ("whole-steps", po::bool_switch(&whole_steps),
       "with --search: simulate every pass of every step instead of each step's steady state once where that "
       "is proven exact: the same rows, bit for bit, more slowly (a check of the shortcut)")
      ("flow-check", integer_option("flow-check", &flow_check, flow_check_range)->value_name("N"),
       with_rule("with --search: re-simulate the first N rows of the analytic ranking under the flow fidelity "
                 "on the scenario's network, where contention and the topology count, and rank those N by it "
                 "(default 0: none)",
                 flow_check_range.rule()).c_str())
      ("top", integer_option("top", &top, top_range)->value_name("N"),
       with_rule("print the N best rows; 0: all (default: all configs; 20 in a search)", top_range.rule()).c_str())
      ("csv", path_option("csv", &csv_path)->value_name("FILE"), "write every row, ranked, as CSV")
      ("report", path_option("report", &report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: ranking chart, timeline and breakdown of the best layout")
      ("validation", path_option("validation", &validation_path)->value_name("FILE.csv"),
       "published runs the step-time bands come from, in the columns of clustersim validate's CSV "
       "(default: the built-in validation/published_runs.csv)")
      ("jobs", integer_option("jobs", &jobs, jobs_range)->value_name("N"),
       with_rule("simulate on N threads (default: all cores)", jobs_range.rule()).c_str())
      ("shard", po::value(&shard_text)->value_name("I/N"),
       "evaluate only the I-th of N disjoint slices and print them as JSON for clustersim merge; I and N integers "
       "with 1 <= I <= N")
      ("resume", path_option("resume", &resume_path)->value_name("FILE"),
       "with --search --top 0 or --csv: keep the progress in FILE, rewritten atomically as parts of the search finish; "
       "a run killed midway and started again with the same FILE goes on from it, with the same output "
       "as one uninterrupted run. A FILE of another search is refused. Removed once the output is written");
  const CommandHelp help{
      .name = "sweep",
      .usage = "[SCENARIO] [--configs FILE | --search] [--top N] [--flow-check N] [--csv FILE] [--report FILE.html]\n"
               "                        [--validation FILE.csv] [--export FRAMEWORK] [--export-row N] [--jobs N] [--shard I/N]\n"
               "                        [--resume FILE] [--whole-steps] [--set path=value ...]",
      .description =
          "Rank parallelism layouts of one model on one cluster: step time, tokens/s per GPU, MFU,\n"
          "pipeline bubble, exposed communication, memory per GPU and whether it fits (and why not).\n"
          "Each step time carries a band from the published runs of its validation family (GPU generation,\n"
          "precision, sharding); layouts that fit come first, by the slow end of their band. Output order\n"
          "does not depend on --jobs or --shard.",
      .arguments = "  SCENARIO    scenario JSON file; default: the built-in Llama 3 70B on 256 H100.\n"
                   "              scenarios/seed/twelve-layouts.json holds 12 layouts in sweep.configs",
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  if (search && !configs_path.empty()) throw CliError("sweep: --search and --configs exclude each other");
  if (!resume_path.empty() && !search) throw CliError("sweep: --resume needs --search");
  if (flow_check > 0 && !search) throw CliError("sweep: --flow-check needs --search");
  if (whole_steps && !search) throw CliError("sweep: --whole-steps needs --search");
  if (flow_check > 0 && (!shard_text.empty() || !csv_path.empty() || !resume_path.empty()))
    throw CliError("sweep: --flow-check re-ranks the first rows of one whole search: not with --shard, --csv or --resume");
  if (!resume_path.empty()) check_resume_path(resume_path, {csv_path, report_path});
  const planning::Shard shard = shard_text.empty() ? planning::Shard{} : parse_shard(shard_text);

  scenarios::Scenario scenario =
      scenario_args.load(search ? scenarios::LayoutCheck::searched : scenarios::LayoutCheck::own_layout);
  std::vector<planning::LayoutCandidate> candidates;
  if (search) {
    candidates = planning::search_layouts(calibration::step_inputs(scenario));
    // The search replaces the scenario's own layout, which may not fit the cluster (after a --set
    // cluster.num_gpus, say): the first layout searched stands in for it (in the fingerprint, and
    // where a named profile's widening is measured). With none, the scenario's own rule says why.
    if (auto violation = scenarios::find_violation(scenario)) {
      if (candidates.empty()) {
        throw scenarios::ScenarioError(scenario_args.source_name(), violation->pointer, violation->rule);
      }
      scenario.parallelism = candidates.front().layout.parallelism;
      scenario.training = candidates.front().layout.training;
    }
  }
  models::StepInputs base = calibration::step_inputs(scenario);
  base.steady_state_shortcut = !whole_steps;
  std::optional<planning::BandTable> own_table;
  std::string validation_key;  // bands from another CSV make another sweep: merge must not mix them
  if (!validation_path.empty()) {
    const planning::ValidationCsv csv = planning::load_validation_csv(validation_path);
    validation_key = fmt::format("\nvalidation {:016x}", sim::fnv1a64(csv.text));
    own_table.emplace(csv, jobs);
  }
  const planning::PredictionBands bands(own_table ? *own_table : planning::built_in_band_table(), scenario);
  planning::SweepHeader header{.mode = search ? "search" : "configs",
                     .scenario = scenario.name,
                     .cluster = cluster_text(scenario) + "; communication constants: " +
                                calibration::communication_constants(scenario),
                     .model = scenario.model.name,
                     .hbm_bytes = scenario.cluster.gpu.hbm_bytes,
                     .band_source = bands.source(),
                     .widening = bands.widening(),
                     .shard_index = shard.index,
                     .shard_count = shard.count};
  const bool show_progress = !options.output.quiet && stderr_is_terminal();
  // A shard's output is input to merge: every row, as JSON.
  const TableOptions table_options{.top = shard.count > 1 ? 0 : top != unset ? top : search ? kDefaultSearchTop : 0};
  std::vector<planning::SweepRow> rows;
  if (search) {
    header.fingerprint = planning::fingerprint(scenarios::to_json(scenario) + "\nsearch" + validation_key);
    Progress progress("sweep --search", "layouts simulated", planning::search_simulations(candidates, shard), show_progress,
                      std::cerr);
    // Only the rows shown must be exact: the table's, and the report's chart. A CSV shows them all.
    const std::size_t keep_top =
        !csv_path.empty() || table_options.top == 0
            ? 0
            : std::max({table_options.top, report_path.empty() ? 0 : report_ranking_rows, flow_check});
    if (!resume_path.empty() && keep_top > 0) {
      // Its parts would each prune on their own, and so print other counts than one run.
      throw CliError("sweep: --resume needs a search that simulates every layout that fits (--top 0 or --csv); one "
                     "that ranks only its top rows sets the rest apart and is quick");
    }
    const planning::ProgressFn advance = [&](std::size_t n) { progress.advance(n); };
    if (resume_path.empty()) {
      rows = planning::run_search(base, candidates, bands, shard, jobs, advance, keep_top);
    } else {
      const std::string job = fmt::format("sweep --search\n{}\nshard {}/{}\nkeep {}", header.fingerprint, shard.index,
                                          shard.count, keep_top);
      rows = run_search_resumable(resume_path, job, header, base, candidates, bands, shard, jobs, advance, keep_top);
    }
  } else {
    const std::vector<scenarios::SweepConfig> configs =
        configs_path.empty() ? scenario.sweep.configs : scenarios::load_sweep_configs_file(configs_path);
    if (configs.empty()) {
      throw CliError("sweep: no layouts to compare: give --configs FILE or --search, or a scenario with sweep.configs "
                     "(see scenarios/seed/twelve-layouts.json)");
    }
    header.fingerprint = planning::fingerprint(scenarios::to_json(scenario) + "\nconfigs\n" +
                                               scenarios::sweep_configs_json(configs) + validation_key);
    std::size_t in_shard = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) in_shard += shard.contains(i) ? 1 : 0;
    Progress progress("sweep", "configs", in_shard, show_progress, std::cerr);
    rows = planning::run_configs(scenario, configs, bands, shard, jobs, [&](std::size_t n) { progress.advance(n); });
  }
  planning::rank_rows(rows);
  if (flow_check > 0 && base.fidelity == models::CommFidelity::analytic) {
    header.flow_check = flow_check;
    header.flow_runs = planning::flow_rerank(rows, base, bands, flow_check, jobs);
  }

  std::optional<handoff::LaunchConfig> launch;
  if (export_option.framework()) {
    if (shard.count > 1) throw CliError("sweep: --export needs the whole ranking, not one --shard");
    if (search && table_options.top > 0 && export_row > table_options.top)
      throw CliError(fmt::format("sweep: --export-row {}: a search ranks only its --top {} rows exactly", export_row,
                                 table_options.top));
    if (export_row > rows.size() || rows[export_row - 1].status != planning::RowStatus::simulated)
      throw CliError(fmt::format("sweep: --export-row {}: the ranking has {} rows; the row must be one that was "
                                 "simulated (fits in memory)", export_row, rows.size()));
    launch = handoff::export_launch(*export_option.framework(), scenario.model, scenario.cluster,
                                    rows[export_row - 1].layout);
  }
  const std::string text = sweep_text(header, rows, table_options);
  std::string report_html;
  if (!report_path.empty()) {
    // A config changes only parallelism and training keys, so its layout on `base` is its step.
    const planning::SweepRow* best = rows.empty() || rows.front().status != planning::RowStatus::simulated ? nullptr : &rows.front();
    std::optional<models::StepInputs> best_inputs;
    if (best) best_inputs = planning::with_layout(base, best->layout);
    if (best && best->analytic_step_s > 0) best_inputs->fidelity = models::CommFidelity::flow;
    report_html = sweep_report_html(header, rows, text, best_inputs ? &*best_inputs : nullptr,
                                    best ? (best->name.empty() ? planning::layout_label(best->layout) : best->name) : "");
  }
  // Files once everything is computed, then stdout: a failure leaves no file and no half output.
  if (!csv_path.empty()) write_file_atomically(csv_path, sweep_csv(rows));
  if (!report_path.empty()) write_file_atomically(report_path, report_html);
  if (!resume_path.empty()) std::filesystem::remove(resume_path);  // the job is done
  if (options.output.json || shard.count > 1) {
    nlohmann::ordered_json j = sweep_json(header, rows, table_options);
    if (launch) j["export"] = {{"row", export_row}, {"config", handoff::launch_config_json(*launch)}};
    out << j.dump(2) << '\n';
  } else {
    out << text;
    if (launch) out << fmt::format("\nlaunch configuration of row {}: ", export_row) << handoff::launch_config_text(*launch);
  }
  return 0;
}

}  // namespace clustersim::tools
