// `clustersim plan`: size a cluster before buying or renting it. For a model and a token budget,
// search GPU type, GPU count (whole nodes), network topology and layout; print the Pareto front
// of time-to-train against cost, the option to take and its Megatron-LM arguments.
// The search is planning/plan/plan.hpp's; the reports are tools/render/plan_report.hpp's.

#include <cmath>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "planning/plan/plan.hpp"
#include "planning/plan/topology_names.hpp"
#include "scenarios/scenario_io.hpp"
#include "sim/hashing.hpp"
#include "tools/command_line.hpp"
#include "calibration/step_inputs.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"
#include "tools/plan_resume.hpp"
#include "tools/progress.hpp"
#include "tools/render/plan_report.hpp"

namespace clustersim::tools {
namespace {

// "GPU=NUMBER" assignments of --price and --server-price.
std::map<std::string, double> parse_prices(const std::vector<std::string>& assignments, std::string_view option) {
  std::map<std::string, double> prices;
  for (const std::string& a : assignments) {
    const auto equals = a.find('=');
    double value = 0.0;
    bool ok = equals != std::string::npos && equals > 0;
    if (ok) {
      try {
        std::size_t used = 0;
        value = std::stod(a.substr(equals + 1), &used);
        ok = used == a.size() - equals - 1 && std::isfinite(value) && value > 0;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) throw CliError(fmt::format("plan: {} expects GPU=USD with a positive price, got \"{}\"", option, a));
    prices[a.substr(0, equals)] = value;
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
// option but those that cannot change the result (--resume itself, --jobs, --quiet).
std::string plan_job(std::span<const std::string> args, const std::string& scenario_json, const std::string& validation_text) {
  std::string job = "plan\n" + scenario_json + fmt::format("\nvalidation {:016x}\noptions", sim::fnv1a64(validation_text));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--resume" || arg == "--jobs") {
      ++i;  // and its value
      continue;
    }
    if (arg.starts_with("--resume=") || arg.starts_with("--jobs=") || arg == "--quiet") continue;
    job += fmt::format(" {}:{}", arg.size(), arg);
  }
  return job;
}

}  // namespace

int cmd_plan(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  double deadline_days = 0.0, budget_usd = 0.0, oversubscription = 2.0;
  std::string gpus_text = "a100-80gb,h100-sxm,h200-sxm,b200", topologies_text = "rail_optimized,fat_tree,dragonfly";
  std::string pricing = "rent", report_path, validation_path, resume_path;
  std::vector<std::string> price_args, server_price_args;
  std::int64_t min_gpus = 0, max_gpus = 0;
  unsigned jobs = planning::default_jobs();
  bool quiet = false;
  options.visible.add_options()
      ("deadline-days", po::value(&deadline_days)->value_name("D"), "train within D calendar days")
      ("budget-usd", po::value(&budget_usd)->value_name("B"), "spend at most B US dollars on the run")
      ("gpus", po::value(&gpus_text)->value_name("LIST"), "GPU types to consider (default: a100-80gb,h100-sxm,h200-sxm,b200)")
      ("min-gpus", po::value(&min_gpus)->value_name("N"), "smallest cluster (default: the scenario's GPUs / 8)")
      ("max-gpus", po::value(&max_gpus)->value_name("N"), "largest cluster (default: the scenario's GPUs x 4)")
      ("topologies", po::value(&topologies_text)->value_name("LIST"),
       "network topologies (default: rail_optimized,fat_tree,dragonfly)")
      ("oversubscription", po::value(&oversubscription)->value_name("X"), "fat-tree leaf oversubscription (default 2)")
      ("pricing", po::value(&pricing)->value_name("rent|build"),
       "rent: on-demand GPU-hours; build: owned cost per GPU-hour from the cost model (cost.build), "
       "network priced from the topology's parts (default: rent)")
      ("price", po::value(&price_args)->value_name("GPU=USD")->composing(),
       "on-demand price of one GPU-hour of a GPU type (repeatable)")
      ("server-price", po::value(&server_price_args)->value_name("GPU=USD")->composing(),
       "price of one 8-GPU server of a GPU type, for --pricing build (repeatable)")
      ("report", po::value(&report_path)->value_name("FILE.html"),
       "write a self-contained HTML report: Pareto chart, timeline and breakdown of the choice")
      ("validation", po::value(&validation_path)->value_name("FILE.csv"),
       "published runs the step-time bands come from, in the columns of clustersim validate's CSV "
       "(default: the built-in validation/published_runs.csv)")
      ("jobs", po::value(&jobs)->value_name("N"), "simulate on N threads (default: all cores)")
      ("quiet", po::bool_switch(&quiet), "no progress on stderr")
      ("resume", po::value(&resume_path)->value_name("FILE"),
       "keep the progress in FILE, rewritten atomically as parts of the layout runs finish; a plan killed "
       "midway and started again with the same FILE goes on from it, with the same output as one "
       "uninterrupted run. A FILE of another plan is refused. Removed once the output is written");
  const CommandHelp help{
      .name = "plan",
      .usage = "[SCENARIO] [--deadline-days D] [--budget-usd B] [--gpus LIST] [--min-gpus N] [--max-gpus N]\n"
               "                       [--topologies LIST] [--pricing rent|build] [--price GPU=USD ...]\n"
               "                       [--validation FILE.csv] [--report FILE.html] [--jobs N] [--resume FILE] [--set path=value ...] [--json]",
      .description =
          "Size a cluster before buying or renting it. For the scenario's model, sequence length, global\n"
          "batch and token budget (training.tokens), search GPU type, GPU count (whole nodes), topology and\n"
          "layout; print the Pareto front of time-to-train against cost, the cheapest option that meets\n"
          "the deadline (with only a budget: the fastest within it), and its Megatron-LM arguments.\n"
          "Each step time carries a band from the published runs of its validation family (GPU generation,\n"
          "precision, sharding); the front and the choice take each option at the slow end of its band.\n"
          "Prices: --price, else the scenario's cost.rent.on_demand_usd_per_gpu_hour for its own GPU,\n"
          "else a built-in dated price (listed in the output).",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  if (pricing != "rent" && pricing != "build") throw CliError("plan: --pricing must be rent or build");
  if (deadline_days < 0 || budget_usd < 0) throw CliError("plan: --deadline-days and --budget-usd must be positive");
  if (!(oversubscription >= 1.0)) throw CliError("plan: --oversubscription must be at least 1");
  if (jobs == 0) throw CliError("plan: --jobs must be at least 1");
  const bool build = pricing == "build";
  const auto rent_prices = parse_prices(price_args, "--price");
  const auto server_prices = parse_prices(server_price_args, "--server-price");
  std::optional<planning::BandTable> validation;
  std::string validation_text;
  if (!validation_path.empty()) {
    planning::ValidationCsv csv = planning::load_validation_csv(validation_path);
    validation_text = csv.text;
    validation.emplace(std::move(csv), jobs);
  }
  planning::PlanRequest request{
      .scenario = scenario_args.load(),
      .gpus = split_list(gpus_text),
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
      .validation = validation ? &*validation : nullptr,
  };
  std::optional<PlanResumeStore> store;
  if (!resume_path.empty()) {
    check_resume_path(resume_path, {report_path});
    store.emplace(resume_path, plan_job(args, scenarios::to_json(request.scenario), validation_text));
    request.store = &*store;
  }
  std::optional<Progress> bar;
  const auto progress = [&](std::size_t layouts) -> planning::ProgressFn {
    if (quiet || !stderr_is_terminal()) return {};
    bar.emplace("plan", "layouts simulated", layouts, true, std::cerr);
    return [&bar](std::size_t done) { bar->advance(done); };
  };
  const planning::PlanResult result = planning::make_plan(request, progress);
  if (bar) bar->finish();

  const std::string text = plan_text(request, result);
  if (!report_path.empty()) write_file_atomically(report_path, plan_html(request, result, text));
  if (scenario_args.json) {
    out << plan_json(request, result);
  } else {
    out << text << "communication constants: " << calibration::communication_constants(request.scenario)
        << " (each candidate GPU: its own bundled profile)\n";
  }
  if (store) store->remove();  // the plan is done
  return 0;
}

}  // namespace clustersim::tools
