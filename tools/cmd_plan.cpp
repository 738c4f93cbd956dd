// `clustersim plan`: size a cluster before buying or renting it. For a model and a token budget,
// search GPU type, GPU count (whole nodes), network topology and layout; print the Pareto front
// of time-to-train against cost, the option to take and its Megatron-LM arguments.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/compute/compute_profile.hpp"
#include "models/cost/cost_model.hpp"
#include "planning/layout_search.hpp"
#include "planning/sizing.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/validation_network.hpp"
#include "calibration/step_inputs.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"
#include "tools/render/html_report.hpp"
#include "tools/render/megatron_args.hpp"
#include "planning/parallel_for.hpp"
#include "tools/progress.hpp"
#include "planning/sweep_runner.hpp"
#include "tools/render/sweep_table.hpp"

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;

constexpr double kSecondsPerHour = 3600.0;
constexpr std::size_t kTopologyCandidates = 3;  // best rail-optimized layouts re-run per topology

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

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

std::string_view topology_name(models::TopologyKind kind) {
  switch (kind) {
    case models::TopologyKind::rail_optimized: return "rail_optimized";
    case models::TopologyKind::fat_tree: return "fat_tree";
    case models::TopologyKind::dragonfly: return "dragonfly";
    case models::TopologyKind::torus: return "torus";
  }
  return "?";
}

models::TopologyKind parse_topology(const std::string& name) {
  for (const auto kind : {models::TopologyKind::rail_optimized, models::TopologyKind::fat_tree,
                          models::TopologyKind::dragonfly, models::TopologyKind::torus}) {
    if (topology_name(kind) == name) return kind;
  }
  throw CliError("plan: unknown topology \"" + name + "\" (rail_optimized, fat_tree, dragonfly, torus)");
}

std::string topology_text(models::TopologyKind kind, double oversubscription) {
  if (kind == models::TopologyKind::fat_tree) return fmt::format("fat_tree {:g}:1", oversubscription);
  return std::string(topology_name(kind));
}

std::string money(double usd) {
  if (usd >= 1e6) return fmt::format("${:.2f}M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.1f}k", usd / 1e3);
  return fmt::format("${:.0f}", usd);
}

/// One cluster size of one GPU type, with its layouts to simulate.
struct SizedCluster {
  std::string gpu;
  scenarios::Scenario scenario;
  models::StepInputs base;
  std::vector<planning::Layout> layouts;  // fitting, one per (tp, pp, cp, vp, micro-batch)
};

/// One (cluster, topology) option with its best layout.
struct Option {
  std::size_t cluster = 0;
  models::TopologyKind topology = models::TopologyKind::rail_optimized;
  double oversubscription = 1.0;
  planning::Layout layout{};
  models::StepReport report{};
  double usd_per_gpu_hour = 0.0;
  double hours = 0.0;  // of the run, on all its GPUs at once
  double days = 0.0;   // calendar, at cost.hours_per_day
  double cost_usd = 0.0;
};

// The plan's layout space: tensor parallelism inside a node, no context parallelism, micro-batches
// of 1 and 2, SP with TP; every pipeline depth and interleaving. Of ZeRO-1 + selective recompute,
// ZeRO-1 + full, ZeRO-3 + selective and ZeRO-3 + full only the first that fits is kept: each is
// slower than the one before wherever both fit, so the rest cannot be the best layout.
std::vector<planning::Layout> plan_layouts(const models::StepInputs& base) {
  planning::SearchSpace space;
  for (std::int64_t tp = 1; tp <= base.cluster.gpus_per_node; tp *= 2) space.tp.push_back(tp);
  space.cp = {1};
  space.micro_batch = {1, 2};
  space.zero = {1, 3};
  space.recompute = {models::Recompute::selective, models::Recompute::full};
  space.sp_follows_tp = true;
  const auto candidates = planning::search_layouts(base, space);
  std::vector<planning::Layout> kept;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, int> best_rank;
  const auto key = [](const planning::Layout& l) {
    return std::tuple{l.parallelism.tp, l.parallelism.pp, l.parallelism.vp, l.training.micro_batch};
  };
  const auto rank = [](const planning::Layout& l) {
    return (l.parallelism.zero >= 3 ? 2 : 0) + (l.training.recompute == models::Recompute::full ? 1 : 0);
  };
  for (const auto& c : candidates) {
    if (!c.memory.fits) continue;
    const auto [it, inserted] = best_rank.emplace(key(c.layout), rank(c.layout));
    if (!inserted) it->second = std::min(it->second, rank(c.layout));
  }
  for (const auto& c : candidates) {
    if (c.memory.fits && best_rank.at(key(c.layout)) == rank(c.layout)) kept.push_back(c.layout);
  }
  return kept;
}

ordered_json layout_json(const planning::Layout& l) {
  const auto& p = l.parallelism;
  return {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"vp", p.vp}, {"sp", p.sp}, {"zero", p.zero},
          {"micro_batch", l.training.micro_batch},
          {"recompute", l.training.recompute == models::Recompute::full        ? "full"
                        : l.training.recompute == models::Recompute::selective ? "selective"
                                                                               : "none"}};
}

}  // namespace

int cmd_plan(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  double deadline_days = 0.0, budget_usd = 0.0, oversubscription = 2.0;
  std::string gpus_text = "a100-80gb,h100-sxm,h200-sxm,b200", topologies_text = "rail_optimized,fat_tree,dragonfly";
  std::string pricing = "rent", report_path;
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
      ("jobs", po::value(&jobs)->value_name("N"), "simulate on N threads (default: all cores)")
      ("quiet", po::bool_switch(&quiet), "no progress on stderr");
  const CommandHelp help{
      .name = "plan",
      .usage = "[SCENARIO] [--deadline-days D] [--budget-usd B] [--gpus LIST] [--min-gpus N] [--max-gpus N]\n"
               "                       [--topologies LIST] [--pricing rent|build] [--price GPU=USD ...]\n"
               "                       [--report FILE.html] [--jobs N] [--set path=value ...] [--json]",
      .description =
          "Size a cluster before buying or renting it. For the scenario's model, sequence length, global\n"
          "batch and token budget (training.tokens), search GPU type, GPU count (whole nodes), topology and\n"
          "layout; print the Pareto front of time-to-train against cost, the cheapest option that meets\n"
          "the deadline (with only a budget: the fastest within it), and its Megatron-LM arguments.\n"
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

  const scenarios::Scenario scenario = scenario_args.load();
  const std::int64_t per_node = scenario.cluster.gpus_per_node;
  if (min_gpus <= 0) min_gpus = std::max(per_node, scenario.cluster.num_gpus / 8);
  if (max_gpus <= 0) max_gpus = scenario.cluster.num_gpus * 4;
  if (min_gpus > max_gpus) throw CliError("plan: --min-gpus exceeds --max-gpus");
  std::vector<models::TopologyKind> topologies;
  for (const auto& name : split_list(topologies_text)) topologies.push_back(parse_topology(name));
  if (topologies.empty()) throw CliError("plan: --topologies lists none");

  // Prices and clusters, per GPU type.
  struct GpuPrice {
    double usd = 0.0;
    std::string source;
  };
  std::map<std::string, GpuPrice> prices;
  std::vector<std::string> gpus = split_list(gpus_text);
  if (gpus.empty()) throw CliError("plan: --gpus lists none");
  const auto known = scenarios::gpu_preset_names();
  for (const auto& gpu : gpus) {
    if (std::find(known.begin(), known.end(), gpu) == known.end()) {
      throw CliError("plan: unknown GPU \"" + gpu + "\" (see clustersim explain)");
    }
    GpuPrice price;
    const bool own = gpu == scenario.cluster.gpu.name;
    if (build) {
      if (const auto it = server_prices.find(gpu); it != server_prices.end()) {
        price = {it->second, "--server-price"};
      } else if (own && scenario.cost.build.server_usd > 0) {
        price = {scenario.cost.build.server_usd, "scenario cost.build.server_usd"};
      } else if (const auto d = planning::default_server_usd(gpu); d.usd > 0) {
        price = {d.usd, std::string(d.source)};
      } else {
        throw CliError("plan: no server price for " + gpu + ": pass --server-price " + gpu + "=USD");
      }
    } else {
      if (const auto it = rent_prices.find(gpu); it != rent_prices.end()) {
        price = {it->second, "--price"};
      } else if (own && scenario.cost.rent.on_demand_usd_per_gpu_hour > 0) {
        price = {scenario.cost.rent.on_demand_usd_per_gpu_hour, "scenario cost.rent.on_demand_usd_per_gpu_hour"};
      } else if (const auto d = planning::default_rent_usd_per_gpu_hour(gpu); d.usd > 0) {
        price = {d.usd, std::string(d.source)};
      } else {
        throw CliError("plan: no price for " + gpu + ": pass --price " + gpu + "=USD");
      }
    }
    prices[gpu] = price;
  }

  std::vector<SizedCluster> clusters;
  for (const auto& gpu : gpus) {
    for (const std::int64_t nodes : planning::candidate_node_counts(std::max<std::int64_t>(1, (min_gpus + per_node - 1) / per_node),
                                                                  max_gpus / per_node)) {
      scenarios::Scenario s = scenario;
      s.cluster.gpu = scenarios::gpu_preset(gpu);
      s.cluster.num_gpus = nodes * per_node;
      if (gpu != scenario.cluster.gpu.name) {
        // Another GPU type comes in its standard node: DGX A100 with 200 Gb/s NICs, later ones 400.
        const auto network = scenarios::system_network("", gpu);
        s.cluster.nics_per_node = network.nics_per_node;
        s.cluster.nic_bytes_per_s = network.nic_gbit_per_s * 1e9 / 8.0;
      }
      SizedCluster c{.gpu = gpu, .scenario = s, .base = calibration::step_inputs(s), .layouts = {}};
      c.layouts = plan_layouts(c.base);
      clusters.push_back(std::move(c));
    }
  }

  // Simulate every kept layout of every cluster, as one list so that all threads stay busy.
  std::vector<std::pair<std::size_t, std::size_t>> work;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    for (std::size_t l = 0; l < clusters[c].layouts.size(); ++l) work.emplace_back(c, l);
  }
  std::vector<models::StepReport> reports(work.size());
  {
    Progress progress("plan", "layouts simulated", work.size(), !quiet && stderr_is_terminal(), std::cerr);
    planning::parallel_for(work.size(), jobs, [&](std::size_t i) {
      const auto& [c, l] = work[i];
      reports[i] = models::simulate_step(planning::with_layout(clusters[c].base, clusters[c].layouts[l])).report;
      progress.advance();
    });
  }
  // Per cluster, its layouts fastest first.
  std::vector<std::vector<std::size_t>> ranked(clusters.size());
  for (std::size_t i = 0; i < work.size(); ++i) ranked[work[i].first].push_back(i);
  for (auto& list : ranked) {
    std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return reports[a].times.step_time_s < reports[b].times.step_time_s;
    });
  }

  // Options: the best layout per (cluster, topology). Topologies other than the first re-run the
  // first's best few layouts: a network change reorders close layouts, not distant ones.
  std::vector<Option> options_found;
  bool topology_changed_time = false;
  std::size_t extra_simulations = 0;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    if (ranked[c].empty()) continue;
    for (std::size_t t = 0; t < topologies.size(); ++t) {
      models::StepInputs base = clusters[c].base;
      base.cluster.topology = topologies[t];
      base.cluster.oversubscription = topologies[t] == models::TopologyKind::fat_tree ? oversubscription : 1.0;
      Option option{.cluster = c, .topology = topologies[t], .oversubscription = base.cluster.oversubscription};
      const std::size_t tries = t == 0 ? 1 : std::min(kTopologyCandidates, ranked[c].size());
      for (std::size_t k = 0; k < tries; ++k) {
        const std::size_t i = ranked[c][k];
        const planning::Layout& layout = clusters[c].layouts[work[i].second];
        models::StepReport report = reports[i];
        if (t > 0 || base.cluster != clusters[c].base.cluster) {
          report = models::simulate_step(planning::with_layout(base, layout)).report;
          ++extra_simulations;
          if (report.times.step_time_s != reports[i].times.step_time_s) topology_changed_time = true;
        }
        if (k == 0 || report.times.step_time_s < option.report.times.step_time_s) {
          option.layout = layout;
          option.report = report;
        }
      }
      const auto& s = clusters[c].scenario;
      option.usd_per_gpu_hour = prices.at(clusters[c].gpu).usd;
      if (build) {
        models::CostSpec cost = s.cost;
        cost.build.server_usd = prices.at(clusters[c].gpu).usd;
        if (clusters[c].gpu != scenario.cluster.gpu.name || cost.build.node_power_w <= 0) {
          cost.build.node_power_w = planning::default_node_power_w(clusters[c].gpu).usd;
        }
        option.usd_per_gpu_hour = models::build_costs(base.cluster, cost, models::network_parts(base.cluster)).usd_per_gpu_hour;
      }
      option.hours = s.training.tokens / option.report.tokens_per_s / kSecondsPerHour;
      option.days = option.hours / s.cost.hours_per_day;
      option.cost_usd = option.usd_per_gpu_hour * static_cast<double>(s.cluster.num_gpus) * option.hours;
      options_found.push_back(std::move(option));
    }
  }
  if (options_found.empty()) {
    throw CliError(fmt::format("plan: the model fits on none of the clusters searched ({} to {} GPUs of {}); "
                               "raise --max-gpus",
                               min_gpus, max_gpus, gpus_text));
  }
  std::vector<planning::PlanPoint> points;
  for (const auto& o : options_found) points.push_back({.days = o.days, .cost_usd = o.cost_usd});
  const std::vector<bool> front = planning::pareto_front(points);
  const auto chosen = planning::choose_option(points, deadline_days, budget_usd);

  std::vector<std::size_t> front_order;
  for (std::size_t i = 0; i < options_found.size(); ++i) {
    if (front[i]) front_order.push_back(i);
  }
  std::sort(front_order.begin(), front_order.end(),
            [&](std::size_t a, std::size_t b) { return options_found[a].days < options_found[b].days; });

  const std::string topology_note =
      topology_changed_time
          ? "topology: simulated per option (the best layouts of rail_optimized re-run on each topology)"
          : "topology: with the analytic fidelity the step time depends on the NICs' count and rate, not "
            "on the topology or its oversubscription (scenarios/validation_network.hpp), so every topology "
            "gives the same step time here; " +
                std::string(build ? "they differ in cost through the switches, optics and cables the cost model "
                                    "counts on each topology's graph"
                                  : "rented GPU-hours cost the same on any of them, so equal options keep the "
                                    "first topology listed");

  const auto option_label = [&](const Option& o) {
    const auto& s = clusters[o.cluster].scenario;
    return fmt::format("{} x {} ({}), {}", s.cluster.num_gpus, clusters[o.cluster].gpu,
                       topology_text(o.topology, o.oversubscription), planning::layout_label(o.layout));
  };
  const auto& training = scenario.training;
  std::string choice_rule;
  if (deadline_days > 0) {
    choice_rule = fmt::format("the cheapest option that trains within {:g} days{}", deadline_days,
                              budget_usd > 0 ? fmt::format(" and {}", money(budget_usd)) : std::string());
  } else if (budget_usd > 0) {
    choice_rule = fmt::format("the fastest option within {}", money(budget_usd));
  } else {
    choice_rule = "the cheapest option (no deadline or budget given)";
  }
  std::vector<std::string> megatron;
  if (chosen) {
    planning::Layout layout = options_found[*chosen].layout;
    megatron = megatron_args(scenario.model, layout);
  }

  // Text.
  std::string text = fmt::format("plan: {}, {:.3g} tokens, global batch {} x {} tokens, {}\n", scenario.model.name,
                                 training.tokens, training.global_batch, training.seq_len,
                                 deadline_days > 0 || budget_usd > 0
                                     ? fmt::format("{}{}{}", deadline_days > 0 ? fmt::format("deadline {:g} days", deadline_days) : "",
                                                   deadline_days > 0 && budget_usd > 0 ? ", " : "",
                                                   budget_usd > 0 ? "budget " + money(budget_usd) : "")
                                     : std::string("no deadline or budget"));
  text += fmt::format("searched: {} GPU types x {} to {} GPUs in whole nodes x {} topologies = {} options; "
                      "{} layouts simulated\n",
                      gpus.size(), min_gpus, max_gpus, topologies.size(), options_found.size(),
                      work.size() + extra_simulations);
  text += fmt::format("pricing: {}\n", build ? "build (owned cost per GPU-hour, cost model)" : "rent on demand");
  for (const auto& [gpu, price] : prices) {
    text += fmt::format("  {:<10} {} {}\n", gpu,
                        build ? money(price.usd) + " per server" : fmt::format("${:.2f}/GPU-h", price.usd), price.source);
  }
  text += "note: " + topology_note + "\n\n";
  text += "Pareto front (no option is both faster and cheaper):\n";
  text += fmt::format("  {:>6} {:<10} {:<15} {:<40} {:>7} {:>6} {:>8} {:>10} {:>8}\n", "GPUs", "GPU", "topology", "layout",
                      "step s", "MFU", "days", "cost", "$/GPU-h");
  for (const std::size_t i : front_order) {
    const Option& o = options_found[i];
    text += fmt::format("  {:>6} {:<10} {:<15} {:<40} {:>7.2f} {:>5.1f}% {:>8.1f} {:>10} {:>8.2f}{}\n",
                        clusters[o.cluster].scenario.cluster.num_gpus, clusters[o.cluster].gpu,
                        topology_text(o.topology, o.oversubscription), planning::layout_label(o.layout),
                        o.report.times.step_time_s, 100 * o.report.mfu, o.days, money(o.cost_usd), o.usd_per_gpu_hour,
                        chosen && *chosen == i ? "  <- chosen" : "");
  }
  // The front can be a single option (a larger cluster often costs no more GPU-hours); the
  // cheapest option of each GPU type shows what the others would do.
  text += "\nCheapest option per GPU type:\n";
  for (const auto& gpu : gpus) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < options_found.size(); ++i) {
      if (clusters[options_found[i].cluster].gpu != gpu) continue;
      if (!best || options_found[i].cost_usd < options_found[*best].cost_usd) best = i;
    }
    if (!best) {
      text += fmt::format("  {:<10} fits on none of the sizes searched\n", gpu);
      continue;
    }
    const Option& o = options_found[*best];
    text += fmt::format("  {:<10} {:>6} GPUs  {:<40} {:>7.1f} days {:>10}\n", gpu,
                        clusters[o.cluster].scenario.cluster.num_gpus, planning::layout_label(o.layout), o.days, money(o.cost_usd));
  }
  text += '\n';
  if (chosen) {
    const Option& o = options_found[*chosen];
    text += fmt::format("chosen ({}):\n  {}\n  {:.1f} days, {}, step {:.3f} s, MFU {:.1f} %\n", choice_rule,
                        option_label(o), o.days, money(o.cost_usd), o.report.times.step_time_s, 100 * o.report.mfu);
    text += "Megatron-LM arguments:\n";
    for (std::size_t i = 0; i < megatron.size(); ++i) {
      text += "  " + megatron[i] + (i + 1 < megatron.size() && !megatron[i + 1].starts_with('#') ? " \\\n" : "\n");
    }
  } else {
    text += fmt::format("no option meets the limits ({}); the front above shows what is possible\n", choice_rule);
  }

  // Files first, then stdout.
  if (!report_path.empty()) {
    std::vector<ParetoPoint> chart;
    for (std::size_t i = 0; i < options_found.size(); ++i) {
      const Option& o = options_found[i];
      chart.push_back({.label = option_label(o), .days = o.days, .cost_usd = o.cost_usd, .on_front = front[i],
                       .chosen = chosen && *chosen == i});
    }
    HtmlPage page(fmt::format("clustersim plan: {}", scenario.model.name));
    page.paragraph(fmt::format("{:.3g} tokens; {}", training.tokens, choice_rule));
    page.heading("Time to train against cost");
    page.raw(pareto_svg(chart, deadline_days, budget_usd));
    if (chosen) {
      const Option& o = options_found[*chosen];
      models::StepInputs in = planning::with_layout(clusters[o.cluster].base, o.layout);
      in.cluster.topology = o.topology;
      in.cluster.oversubscription = o.oversubscription;
      const models::StepSimulation sim = models::simulate_step(in);
      page.heading("Chosen: " + option_label(o));
      page.step(sim);
    }
    page.heading("Plan");
    page.preformatted(text);
    write_file_atomically(report_path, page.render());
  }
  if (!scenario_args.json) {
    out << text;
    return 0;
  }
  ordered_json j;
  j["model"] = scenario.model.name;
  j["tokens"] = training.tokens;
  j["deadline_days"] = deadline_days > 0 ? ordered_json(deadline_days) : ordered_json(nullptr);
  j["budget_usd"] = budget_usd > 0 ? ordered_json(budget_usd) : ordered_json(nullptr);
  j["pricing"] = pricing;
  for (const auto& [gpu, price] : prices) j["prices"][gpu] = {{"usd", price.usd}, {"source", price.source}};
  j["topology_note"] = topology_note;
  j["layouts_simulated"] = work.size() + extra_simulations;
  ordered_json list = ordered_json::array();
  for (std::size_t i = 0; i < options_found.size(); ++i) {
    const Option& o = options_found[i];
    list.push_back({{"gpu", clusters[o.cluster].gpu},
                    {"gpus", clusters[o.cluster].scenario.cluster.num_gpus},
                    {"topology", topology_name(o.topology)},
                    {"oversubscription", o.oversubscription},
                    {"layout", layout_json(o.layout)},
                    {"step_time_s", o.report.times.step_time_s},
                    {"mfu", o.report.mfu},
                    {"tokens_per_s", o.report.tokens_per_s},
                    {"usd_per_gpu_hour", o.usd_per_gpu_hour},
                    {"days", o.days},
                    {"cost_usd", o.cost_usd},
                    {"on_front", static_cast<bool>(front[i])}});
  }
  j["options"] = std::move(list);
  j["front"] = front_order;
  j["choice_rule"] = choice_rule;
  if (chosen) {
    j["chosen"] = {{"option", *chosen}, {"megatron_args", megatron}};
  } else {
    j["chosen"] = nullptr;
  }
  out << j.dump(2) << '\n';
  return 0;
}

}  // namespace clustersim::tools
