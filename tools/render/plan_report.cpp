#include "tools/render/plan_report.hpp"

#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "planning/search/sweep_rows.hpp"
#include "planning/plan/topology_names.hpp"
#include "models/spec/gpu_spec.hpp"
#include "scenarios/presets.hpp"
#include "tools/render/band_text.hpp"
#include "tools/render/html_report.hpp"
#include "handoff/export/launch_config.hpp"

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;
using planning::PlanOption;
using planning::PlanRequest;
using planning::PlanResult;

std::string money(double usd) {
  if (usd >= 1e6) return fmt::format("${:.2f}M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.1f}k", usd / 1e3);
  return fmt::format("${:.0f}", usd);
}

std::string topology_text(const PlanOption& o) {
  if (o.topology == models::TopologyKind::fat_tree) return fmt::format("fat_tree {:g}:1", o.oversubscription);
  return std::string(planning::topology_name(o.topology));
}

// The flow step against the analytic one, for an option the flow check re-simulated.
std::string flow_text(const PlanOption& o) {
  if (!o.flow) return o.flow_not_checked.empty() ? "-" : "not run";
  return flow_change(o.report.times.step_time_s, o.flow->analytic_step_s);
}

std::string option_label(const PlanResult& result, const PlanOption& o) {
  const auto& cluster = result.clusters[o.cluster];
  return fmt::format("{} x {} ({}), {}", cluster.scenario.cluster.num_gpus, cluster.gpu, topology_text(o),
                     planning::layout_label(o.layout));
}

std::string choice_rule(const PlanRequest& request) {
  if (request.deadline_days > 0) {
    return fmt::format("the cheapest option that trains within {:g} days{} at the slow end of its band",
                       request.deadline_days,
                       request.budget_usd > 0 ? fmt::format(" and {}", money(request.budget_usd)) : std::string());
  }
  if (request.budget_usd > 0) {
    return fmt::format("the fastest option within {} at the slow end of its band", money(request.budget_usd));
  }
  return "the cheapest option at the slow end of its band (no deadline or budget given)";
}

std::string days_range(const PlanOption& o) { return fmt::format("{:.1f}-{:.1f}", o.fast_days, o.slow_days); }
std::string cost_range(const PlanOption& o) { return money(o.fast_cost_usd) + "-" + money(o.slow_cost_usd); }

std::string limits_text(const PlanRequest& request) {
  if (request.deadline_days <= 0 && request.budget_usd <= 0) return "no deadline or budget";
  return fmt::format("{}{}{}", request.deadline_days > 0 ? fmt::format("deadline {:g} days", request.deadline_days) : "",
                     request.deadline_days > 0 && request.budget_usd > 0 ? ", " : "",
                     request.budget_usd > 0 ? "budget " + money(request.budget_usd) : "");
}

std::string topology_note(const PlanRequest& request, const PlanResult& result) {
  if (result.flow_runs > 0) {
    return fmt::format(
        "topology: every option on the front and the choice re-ran its {} best analytic layout{} under the flow "
        "fidelity on its own topology, where collectives share the links of real routes (contention, "
        "oversubscription, global links), and keeps the best; 'flow' is its flow step against the analytic one "
        "('-': not checked, its analytic step, which does not depend on the topology)",
        request.flow_candidates, request.flow_candidates == 1 ? "" : "s");
  }
  if (result.topology_changed_time) {
    return "topology: simulated per option (the best layouts of rail_optimized re-run on each topology)";
  }
  return "topology: with the analytic fidelity the step time depends on the NICs' count and rate, not "
         "on the topology or its oversubscription (scenarios/validation_network.hpp), so every topology "
         "gives the same step time here; " +
         std::string(request.pricing == planning::Pricing::build
                         ? "they differ in cost through the switches, optics and cables the cost model "
                           "counts on each topology's graph"
                         : "rented GPU-hours cost the same on any of them, so equal options keep the "
                           "first topology listed");
}

/// The launch configuration of the chosen option, on its own cluster (GPU type and count).
handoff::LaunchConfig chosen_export(const PlanRequest& request, const PlanResult& result, handoff::Framework framework) {
  const PlanOption& o = result.options.at(result.chosen.value());
  return handoff::export_launch(framework, request.scenario.model, result.clusters[o.cluster].scenario.cluster, o.layout);
}

ordered_json layout_json(const planning::Layout& l) {
  const auto& p = l.parallelism;
  return {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"etp", p.etp}, {"vp", p.vp}, {"sp", p.sp}, {"zero", p.zero},
          {"micro_batch", l.training.micro_batch},
          {"recompute", models::recompute_name(l.training.recompute)}};
}

// Why a GPU type has no option: tensor cores without the scenario's precision (fp8 on an A100,
// nvfp4 before Blackwell) rule out every layout before memory does.
std::string no_option_reason(const PlanRequest& request, const std::string& gpu) {
  const models::Precision precision = request.scenario.training.precision;
  if (!(models::tensor_peak_flops_per_s(scenarios::gpu_preset(gpu), precision) > 0.0))
    return fmt::format("has no {} tensor cores (training.precision)", models::precision_name(precision));
  return "fits on none of the sizes searched";
}

// The front can be a single option (a larger cluster often costs no more GPU-hours); the
// cheapest option of each GPU type shows what the others would do.
std::string cheapest_per_gpu(const PlanRequest& request, const PlanResult& result) {
  std::string text = "\nCheapest option per GPU type (at the slow end of its band):\n";
  for (const auto& gpu : request.gpus) {
    const std::optional<std::size_t> best = planning::cheapest_option(result, gpu);
    if (!best) {
      text += fmt::format("  {:<10} {}\n", gpu, no_option_reason(request, gpu));
      continue;
    }
    const PlanOption& o = result.options[*best];
    text += fmt::format("  {:<10} {:>6} GPUs  {:<15} {:<40} {:>13} days {:>17}  flow {}{}\n", gpu,
                        result.clusters[o.cluster].scenario.cluster.num_gpus, topology_text(o),
                        planning::layout_label(o.layout), days_range(o), cost_range(o), flow_text(o),
                        o.band.unvalidated.empty() ? "" : "  *");
  }
  return text;
}

}  // namespace

std::string plan_text(const PlanRequest& request, const PlanResult& result, handoff::Framework framework) {
  const bool build = request.pricing == planning::Pricing::build;
  const auto& training = request.scenario.training;
  std::string text = fmt::format("plan: {}, {:.3g} tokens, global batch {} x {} tokens, {}\n", request.scenario.model.name,
                                 training.tokens, training.global_batch, training.seq_len, limits_text(request));
  text += fmt::format("searched: {} GPU types x {} to {} GPUs in whole nodes x {} topologies = {} options; "
                      "{} layouts fit: {} set aside by a lower bound on their step time that cannot reach an "
                      "option's best; {} simulations ({} under flow)\n",
                      request.gpus.size(), result.range.min_gpus, result.range.max_gpus, request.topologies.size(),
                      result.options.size(), result.layouts, result.layouts_set_aside, result.layouts_simulated,
                      result.flow_runs);
  text += fmt::format("pricing: {}\n", build ? "build (owned cost per GPU-hour, cost model)" : "rent on demand");
  for (const auto& [gpu, price] : result.prices) {
    text += fmt::format("  {:<10} {} {}\n", gpu,
                        build ? money(price.usd) + " per server" : fmt::format("${:.2f}/GPU-h", price.usd), price.source);
  }
  text += "note: " + topology_note(request, result) + "\n";
  text += band_rule(result.band_source, result.widening) + "\n";
  text += "Pareto front of the slow ends (no option is both faster and cheaper there):\n";
  text += fmt::format("  {:>6} {:<10} {:<15} {:<40} {:>7} {:>7} {:>13} {:>6} {:>13} {:>17} {:>8}\n", "GPUs", "GPU",
                      "topology", "layout", "step s", "flow", "band s ", "MFU", "days", "cost", "$/GPU-h");
  std::vector<const planning::StepBand*> bands;
  for (const std::size_t i : result.front) {
    const PlanOption& o = result.options[i];
    bands.push_back(&o.band);
    text += fmt::format("  {:>6} {:<10} {:<15} {:<40} {:>7.2f} {:>7} {:>13} {:>5.1f}% {:>13} {:>17} {:>8.2f}{}\n",
                        result.clusters[o.cluster].scenario.cluster.num_gpus, result.clusters[o.cluster].gpu,
                        topology_text(o), planning::layout_label(o.layout), o.report.times.step_time_s, flow_text(o),
                        band_range(o.band, 2), 100 * o.report.mfu, days_range(o), cost_range(o), o.usd_per_gpu_hour,
                        result.chosen && *result.chosen == i ? "  <- chosen" : "");
  }
  text += cheapest_per_gpu(request, result);
  for (const auto& gpu : request.gpus) {
    if (const auto best = planning::cheapest_option(result, gpu)) bands.push_back(&result.options[*best].band);
  }
  text += "\nvalidation families (measured / predicted - 1 over their runs):\n" + family_notes(bands);
  text += '\n';
  if (!result.chosen) {
    return text + fmt::format("no option meets the limits ({}); the front above shows what is possible\n",
                              choice_rule(request));
  }
  const PlanOption& o = result.options[*result.chosen];
  text += fmt::format("chosen ({}):\n  {}\n  {:.1f} days ({} at the band's ends), {} ({}), step {:.3f} s (band {:.3f}-{:.3f} s), "
                      "MFU {:.1f} %\n",
                      choice_rule(request), option_label(result, o), o.days, days_range(o), money(o.cost_usd),
                      cost_range(o), o.report.times.step_time_s, o.band.fast_s, o.band.slow_s, 100 * o.report.mfu);
  if (o.flow) {
    text += fmt::format("  flow fidelity on {}: step {:.3f} s against the analytic {:.3f} s ({}), best of {} layout{}\n",
                        topology_text(o), o.report.times.step_time_s, o.flow->analytic_step_s, flow_text(o),
                        o.flow->layouts, o.flow->layouts == 1 ? "" : "s");
  } else if (!o.flow_not_checked.empty()) {
    text += "  not run under flow: " + o.flow_not_checked + "\n";
  }
  text += o.band.unvalidated.empty()
              ? fmt::format("  validation: {}, {} published runs\n", o.band.family, o.band.runs)
              : fmt::format("  unvalidated: {}\n", o.band.unvalidated);
  text += "\nlaunch configuration of the chosen option: " + handoff::launch_config_text(chosen_export(request, result, framework));
  return text;
}

std::string plan_json(const PlanRequest& request, const PlanResult& result, handoff::Framework framework) {
  ordered_json j;
  j["model"] = request.scenario.model.name;
  j["tokens"] = request.scenario.training.tokens;
  j["deadline_days"] = request.deadline_days > 0 ? ordered_json(request.deadline_days) : ordered_json(nullptr);
  j["budget_usd"] = request.budget_usd > 0 ? ordered_json(request.budget_usd) : ordered_json(nullptr);
  j["pricing"] = request.pricing == planning::Pricing::build ? "build" : "rent";
  for (const auto& [gpu, price] : result.prices) j["prices"][gpu] = {{"usd", price.usd}, {"source", price.source}};
  j["topology_note"] = topology_note(request, result);
  j["layouts"] = result.layouts;
  j["layouts_set_aside"] = result.layouts_set_aside;
  j["layouts_simulated"] = result.layouts_simulated;
  j["flow_runs"] = result.flow_runs;
  j["bands"] = bands_header_json(result.band_source, result.widening);
  ordered_json list = ordered_json::array();
  for (std::size_t i = 0; i < result.options.size(); ++i) {
    const PlanOption& o = result.options[i];
    list.push_back({{"gpu", result.clusters[o.cluster].gpu},
                    {"gpus", result.clusters[o.cluster].scenario.cluster.num_gpus},
                    {"topology", planning::topology_name(o.topology)},
                    {"oversubscription", o.oversubscription},
                    {"layout", layout_json(o.layout)},
                    {"step_time_s", o.report.times.step_time_s},
                    {"fidelity", o.flow ? "flow" : "analytic"},
                    {"analytic_step_time_s", o.flow ? o.flow->analytic_step_s : o.report.times.step_time_s},
                    {"step_time_band_s", {o.band.fast_s, o.band.slow_s}},
                    {"validation", validation_json(o.band)},
                    {"mfu", o.report.mfu},
                    {"tokens_per_s", o.report.tokens_per_s},
                    {"usd_per_gpu_hour", o.usd_per_gpu_hour},
                    {"days", o.days},
                    {"days_band", {o.fast_days, o.slow_days}},
                    {"cost_usd", o.cost_usd},
                    {"cost_usd_band", {o.fast_cost_usd, o.slow_cost_usd}},
                    {"on_front", static_cast<bool>(result.on_front[i])}});
  }
  j["options"] = std::move(list);
  j["front"] = result.front;
  j["choice_rule"] = choice_rule(request);
  if (result.chosen) {
    j["chosen"] = {{"option", *result.chosen}, {"export", handoff::launch_config_json(chosen_export(request, result, framework))}};
  } else {
    j["chosen"] = nullptr;
  }
  return j.dump(2) + "\n";
}

std::string plan_html(const PlanRequest& request, const PlanResult& result, const std::string& text) {
  std::vector<ParetoPoint> chart;
  HtmlTable options{.name = "options",
                    .headers = {"option", "GPU", "topology", "layout", "flow vs analytic step", "days (slow end)",
                                "cost (slow end)", "days (band)", "on the front", "chosen"},
                    .numeric = {false, false, false, false, true, true, true, false, false, false}};
  for (std::size_t i = 0; i < result.options.size(); ++i) {
    const PlanOption& o = result.options[i];
    const bool chosen = result.chosen && *result.chosen == i;
    chart.push_back({.label = option_label(result, o), .days = o.slow_days, .cost_usd = o.slow_cost_usd,
                     .on_front = result.on_front[i], .chosen = chosen,
                     .gpu = result.clusters[o.cluster].gpu, .topology = topology_text(o)});
    options.rows.push_back({option_label(result, o), result.clusters[o.cluster].gpu, topology_text(o),
                            planning::layout_label(o.layout), flow_text(o), fmt::format("{:.1f}", o.slow_days),
                            money(o.slow_cost_usd),
                            days_range(o), result.on_front[i] ? "yes" : "", chosen ? "yes" : ""});
  }
  HtmlPage page(fmt::format("clustersim plan: {}", request.scenario.model.name));
  page.paragraph(fmt::format("{:.3g} tokens; {}", request.scenario.training.tokens, choice_rule(request)));
  page.heading("Time to train against cost, at the slow end of each option's band");
  page.raw(charts::pareto_figure(chart, request.deadline_days, request.budget_usd));
  if (result.chosen && result.chosen_simulation) {
    const PlanOption& o = result.options[*result.chosen];
    page.heading("Chosen: " + option_label(result, o));
    page.step(*result.chosen_simulation, result.clusters[o.cluster].scenario.cluster.gpu.hbm_bytes);
  }
  page.heading("Options");
  page.table(options);
  page.heading("Plan");
  page.preformatted(text);
  return page.render();
}

}  // namespace clustersim::tools
