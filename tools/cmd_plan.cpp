// `clustersim plan`: size a cluster before buying or renting it. For a model and a token budget,
// search GPU type, GPU count (whole nodes), network topology and layout; print the Pareto front
// of time-to-train against cost, the option to take and its Megatron-LM arguments.
// The search is planning/plan/plan.hpp's; the reports are tools/render/plan_report.hpp's.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "planning/plan/plan.hpp"
#include "planning/plan/topology_names.hpp"
#include "scenarios/presets.hpp"
#include "tools/checked_option.hpp"
#include "scenarios/scenario_io.hpp"
#include "sim/hashing.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/export_option.hpp"
#include "tools/plan_output.hpp"
#include "tools/plan_resume.hpp"
#include "tools/plan_shards.hpp"
#include "tools/progress.hpp"

namespace clustersim::tools {
namespace {

// "GPU=NUMBER" assignments of --price and --server-price. Every GPU named must be one the plan
// considers, so that a misspelt name is not silently ignored.
std::map<std::string, double> parse_prices(const std::vector<std::string>& assignments, std::string_view option,
                                           const RealRange& range, const std::vector<std::string>& considered) {
  std::map<std::string, double> prices;
  for (const std::string& a : assignments) {
    const auto equals = a.find('=');
    const auto value = equals == std::string::npos ? std::nullopt : parse_plain_decimal(a.substr(equals + 1));
    if (equals == std::string::npos || equals == 0 || !value || !in_range(*value, range)) {
      throw CliError(fmt::format("plan: {}: must be GPU=USD with USD {}, got \"{}\"", option, range.rule(), a));
    }
    const std::string gpu = a.substr(0, equals);
    const auto known = scenarios::gpu_preset_names();
    if (std::find(known.begin(), known.end(), gpu) == known.end()) {
      throw CliError(fmt::format("plan: {}: unknown GPU \"{}\" (known: {})", option, gpu, fmt::join(known, ", ")));
    }
    if (std::find(considered.begin(), considered.end(), gpu) == considered.end()) {
      throw CliError(fmt::format("plan: {}: GPU \"{}\" is not among --gpus ({})", option, gpu, fmt::join(considered, ",")));
    }
    prices[gpu] = *value;
  }
  return prices;
}

std::vector<models::TopologyKind> parse_topologies(const std::string& list) {
  std::vector<models::TopologyKind> kinds;
  for (const auto& name : split_list(list)) {
    const auto kind = planning::topology_from_name(name);
    if (!kind) throw CliError("plan: unknown topology \"" + name + "\" (rail_optimized, fat_tree, dragonfly, torus)");
    kinds.push_back(*kind);
  }
  return kinds;
}

// What makes one plan, for its resume file: the normalised scenario, the validation runs and every
// option but those that cannot change the result (--resume itself, --jobs, --quiet, --csv).
std::string plan_job(std::span<const std::string> args, const std::string& scenario_json, const std::string& validation_text) {
  std::string job = "plan\n" + scenario_json + fmt::format("\nvalidation {:016x}\noptions", sim::fnv1a64(validation_text));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--resume" || arg == "--jobs" || arg == "--csv") {
      ++i;  // and its value
      continue;
    }
    if (arg.starts_with("--resume=") || arg.starts_with("--jobs=") || arg.starts_with("--csv=") || arg == "--quiet")
      continue;
    job += fmt::format(" {}:{}", arg.size(), arg);
  }
  return job;
}

}  // namespace

int cmd_plan(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  const planning::PlanRequest defaults;
  double deadline_days = 0.0, budget_usd = 0.0, oversubscription = defaults.oversubscription;
  std::string gpus_text, topologies_text;
  for (const auto& gpu : defaults.gpus) gpus_text += (gpus_text.empty() ? "" : ",") + gpu;
  for (const auto kind : defaults.topologies)
    topologies_text += (topologies_text.empty() ? "" : ",") + std::string(planning::topology_name(kind));
  std::string pricing = "rent", report_path, validation_path, resume_path, csv_path, shard_text;
  std::vector<std::string> price_args, server_price_args;
  std::int64_t min_gpus = 0, max_gpus = 0;
  unsigned jobs = planning::default_jobs();
  std::int64_t flow_check = static_cast<std::int64_t>(planning::kFlowCandidates);
  constexpr IntRange flow_check_range{.min = 0, .max = 64};
  constexpr RealRange days_range{.min = 0.0, .max = 36500.0, .min_exclusive = true};
  constexpr RealRange budget_range{.min = 0.0, .max = 1e15, .min_exclusive = true};
  constexpr IntRange gpus_range{.min = 1, .max = planning::max_plan_gpus};
  constexpr RealRange oversubscription_range{.min = 1.0, .max = 64.0};
  constexpr RealRange gpu_hour_range{.min = 0.0, .max = 1e4, .min_exclusive = true};
  constexpr RealRange server_range{.min = 0.0, .max = 1e9, .min_exclusive = true};
  constexpr IntRange jobs_range{.min = 1, .max = max_jobs};
  ExportOption export_option{.name = "megatron-lm"};
  export_option.add_to(options);
  options.visible.add_options()
      ("deadline-days", real_option("deadline-days", &deadline_days, days_range)->value_name("D"),
       with_rule("train within D calendar days", days_range.rule()).c_str())
      ("budget-usd", real_option("budget-usd", &budget_usd, budget_range)->value_name("B"),
       with_rule("spend at most B US dollars on the run", budget_range.rule()).c_str())
      ("gpus", po::value(&gpus_text)->value_name("LIST"), ("GPU types to consider (default: " + gpus_text + ")").c_str())
      ("min-gpus", integer_option("min-gpus", &min_gpus, gpus_range)->value_name("N"),
       with_rule("smallest cluster (default: the scenario's GPUs / 8)", gpus_range.rule()).c_str())
      ("max-gpus", integer_option("max-gpus", &max_gpus, gpus_range)->value_name("N"),
       with_rule("largest cluster (default: the scenario's GPUs x 4)", gpus_range.rule()).c_str())
      ("topologies", po::value(&topologies_text)->value_name("LIST"),
       ("network topologies (default: " + topologies_text + ")").c_str())
      ("oversubscription", real_option("oversubscription", &oversubscription, oversubscription_range)->value_name("X"),
       with_rule(fmt::format("fat-tree leaf oversubscription (default {})", defaults.oversubscription),
                 oversubscription_range.rule()).c_str())
      ("flow-check", integer_option("flow-check", &flow_check, flow_check_range)->value_name("N"),
       with_rule("re-run the N best analytic layouts of each option on the front and of the choice under the "
                 "flow fidelity on its own topology, where contention and the topology count, and keep the "
                 "best; 0: analytic only (default 2)",
                 flow_check_range.rule()).c_str())
      ("pricing", po::value(&pricing)->value_name("rent|build"),
       "rent: on-demand GPU-hours; build: owned cost per GPU-hour from the cost model (cost.build), "
       "network priced from the topology's parts (default: rent)")
      ("price", po::value(&price_args)->value_name("GPU=USD")->composing(),
       with_rule("on-demand price of one GPU-hour of a GPU type among --gpus (repeatable)", "USD " + gpu_hour_range.rule()).c_str())
      ("server-price", po::value(&server_price_args)->value_name("GPU=USD")->composing(),
       with_rule("price of one 8-GPU server of a GPU type among --gpus, for --pricing build (repeatable)",
                 "USD " + server_range.rule()).c_str())
      ("report", path_option("report", &report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: Pareto chart, timeline and breakdown of the choice")
      ("csv", path_option("csv", &csv_path)->value_name("FILE"),
       "write every option the plan priced as CSV, one row each: GPU type and count, topology, layout, step time "
       "and band, MFU, days and cost with their bands, on_front, chosen")
      ("validation", path_option("validation", &validation_path)->value_name("FILE.csv"),
       "published runs the step-time bands come from, in the columns of clustersim validate's CSV "
       "(default: the built-in validation/published_runs.csv)")
      ("jobs", integer_option("jobs", &jobs, jobs_range)->value_name("N"),
       with_rule("simulate on N threads (default: all cores)", jobs_range.rule()).c_str())
      ("shard", po::value(&shard_text)->value_name("I/N"),
       "simulate only the layouts of every N-th cluster (GPU type and count) from the I-th and print them as "
       "one JSON document; `clustersim merge` of all N documents prints what the plan without --shard prints")
      ("resume", path_option("resume", &resume_path)->value_name("FILE"),
       "keep the progress in FILE, rewritten atomically as rounds of the layout runs finish; a plan killed "
       "midway and started again with the same FILE goes on from it, with the same output as one "
       "uninterrupted run. A FILE of another plan is refused. Removed once the output is written");
  const CommandHelp help{
      .name = "plan",
      .usage = "[SCENARIO] [--deadline-days D] [--budget-usd B] [--gpus LIST] [--min-gpus N] [--max-gpus N]\n"
               "                       [--topologies LIST] [--oversubscription X] [--flow-check N] [--pricing rent|build]\n"
               "                       [--price GPU=USD ...] [--server-price GPU=USD ...] [--validation FILE.csv]\n"
               "                       [--report FILE.html] [--csv FILE] [--export FRAMEWORK] [--jobs N] [--shard I/N]\n"
               "                       [--resume FILE] [--set path=value ...]",
      .description =
          "Size a cluster before buying or renting it. For the scenario's model, sequence length, global\n"
          "batch and token budget (training.tokens), search GPU type, GPU count (whole nodes), topology and\n"
          "layout; print the Pareto front of time-to-train against cost, the cheapest option that meets\n"
          "the deadline (with only a budget: the fastest within it), and its launch configuration\n(--export, default megatron-lm).\n"
          "Each step time carries a band from the published runs of its validation family (GPU generation,\n"
          "precision, sharding); the front and the choice take each option at the slow end of its band.\n"
          "Prices: --price, else the scenario's cost.rent.on_demand_usd_per_gpu_hour for its own GPU,\n"
          "else a built-in dated price (listed in the output).",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  if (pricing != "rent" && pricing != "build") throw CliError("plan: --pricing must be rent or build");
  const bool build = pricing == "build";
  const std::vector<std::string> gpus = split_list(gpus_text);
  const auto rent_prices = parse_prices(price_args, "--price", gpu_hour_range, gpus);
  const auto server_prices = parse_prices(server_price_args, "--server-price", server_range, gpus);
  const planning::Shard shard = shard_text.empty() ? planning::Shard{} : parse_shard(shard_text);
  const bool sharded = !shard_text.empty();
  if (sharded && (!report_path.empty() || !csv_path.empty()))
    throw CliError("plan: --report and --csv need the whole plan: give them to `clustersim merge` of the shards");
  std::optional<planning::ValidationCsv> validation_csv;
  std::optional<planning::BandTable> validation;
  std::string validation_text;
  if (!validation_path.empty()) {
    validation_csv = planning::load_validation_csv(validation_path);
    validation_text = validation_csv->text;
    validation.emplace(*validation_csv, jobs);
  }
  planning::PlanRequest request{
      // The plan replaces the scenario's cluster and layout, as a search does: only its model and
      // training need hold (the default scenario's H100 need not run nvfp4 for --gpus gb200).
      .scenario = scenario_args.load(scenarios::LayoutCheck::searched),
      .gpus = gpus,
      .min_gpus = min_gpus,
      .max_gpus = max_gpus,
      .topologies = parse_topologies(topologies_text),
      .oversubscription = oversubscription,
      .pricing = build ? planning::Pricing::build : planning::Pricing::rent,
      .given_prices = build ? server_prices : rent_prices,
      .deadline_days = deadline_days,
      .budget_usd = budget_usd,
      .jobs = jobs,
      .simulate_chosen = !report_path.empty(),
      .flow_candidates = static_cast<std::size_t>(flow_check),
      .validation = validation ? &*validation : nullptr,
  };
  std::optional<PlanResumeStore> store;
  if (!resume_path.empty()) {
    check_resume_path(resume_path, {report_path, csv_path});
    store.emplace(resume_path, plan_job(args, scenarios::to_json(request.scenario), validation_text));
    request.store = &*store;
  }
  std::optional<Progress> bar;
  const auto progress = [&](std::size_t layouts) -> planning::ProgressFn {
    if (options.output.quiet || !stderr_is_terminal()) return {};
    bar.emplace("plan", "layouts simulated", layouts, true, std::cerr);
    return [&bar](std::size_t done) { bar->advance(done); };
  };
  if (sharded) {
    const planning::PlanResult prepared = planning::prepare_plan(request);
    const planning::LayoutRuns runs = planning::simulate_plan_layouts(request, prepared, shard, progress);
    if (bar) bar->finish();
    out << plan_shard_json(request, *export_option.framework(), validation_csv ? &*validation_csv : nullptr, prepared,
                           runs, shard);
    if (store) store->remove();
    return 0;
  }
  const planning::PlanResult result = planning::make_plan(request, progress);
  if (bar) bar->finish();

  emit_plan(request, result,
            {.framework = *export_option.framework(), .json = options.output.json, .report_path = report_path,
             .csv_path = csv_path},
            out);
  if (store) store->remove();  // the plan is done
  return 0;
}

}  // namespace clustersim::tools
