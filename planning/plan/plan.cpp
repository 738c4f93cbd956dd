#include "planning/plan/plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "models/spec/gpu_spec.hpp"
#include "planning/parallel_for.hpp"
#include "planning/plan/plan_error.hpp"
#include "planning/plan/plan_evaluation.hpp"
#include "planning/plan/sizing.hpp"

namespace clustersim::planning {
namespace {

std::vector<PlanPoint> slow_ends(const std::vector<PlanOption>& options) {
  std::vector<PlanPoint> points;
  for (const auto& o : options) points.push_back({.days = o.slow_days, .cost_usd = o.slow_cost_usd});
  return points;
}

// The front and the choice, from the options as they are.
void choose(PlanResult& result, const PlanRequest& request) {
  const std::vector<PlanPoint> points = slow_ends(result.options);
  result.on_front = pareto_front(points);
  result.front = front_by_days(points, result.on_front);
  result.chosen = choose_option(points, request.deadline_days, request.budget_usd);
}

// flow_check.hpp: checks the front and the choice until every option on them is checked.
void flow_check_shown(PlanResult& result, const PlanRequest& request, const LayoutRuns& runs,
                      const OptionSettings& settings) {
  std::vector<bool> checked(result.options.size(), false);
  for (;;) {
    std::set<std::size_t> shown(result.front.begin(), result.front.end());
    if (result.chosen) shown.insert(*result.chosen);
    std::vector<std::size_t> to_check;
    for (const std::size_t i : shown) {
      if (!checked[i]) to_check.push_back(i);
    }
    if (to_check.empty()) return;
    // Every (option, layout) trial on the threads at once; then each option keeps its best.
    std::vector<std::pair<std::size_t, std::size_t>> trials;  // (index into to_check, run)
    for (std::size_t k = 0; k < to_check.size(); ++k) {
      checked[to_check[k]] = true;
      for (const std::size_t run : flow_check_layouts(result.options[to_check[k]], result.clusters, runs,
                                                      request.flow_candidates)) {
        trials.emplace_back(k, run);
      }
    }
    // Largest clusters first, as their flow runs take longest: the threads then finish together.
    std::stable_sort(trials.begin(), trials.end(), [&](const auto& a, const auto& b) {
      const auto gpus = [&](std::size_t k) {
        return result.clusters[result.options[to_check[k]].cluster].scenario.cluster.num_gpus;
      };
      return gpus(a.first) > gpus(b.first);
    });
    std::vector<PlanOption> done(trials.size());
    parallel_for(trials.size(), request.jobs, [&](std::size_t t) {
      done[t] = flow_trial(result.options[to_check[trials[t].first]], result.clusters, runs, trials[t].second);
    });
    std::vector<std::vector<PlanOption>> by_option(to_check.size());
    for (std::size_t t = 0; t < trials.size(); ++t) by_option[trials[t].first].push_back(std::move(done[t]));
    for (std::size_t k = 0; k < to_check.size(); ++k) {
      keep_best_trial(result.options[to_check[k]], std::move(by_option[k]), result.clusters, settings, request.scenario);
    }
    result.flow_runs += trials.size();
    choose(result, request);
  }
}

}  // namespace

std::optional<std::size_t> cheapest_option(const PlanResult& result, const std::string& gpu) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < result.options.size(); ++i) {
    if (result.clusters[result.options[i].cluster].gpu != gpu) continue;
    if (!best || result.options[i].slow_cost_usd < result.options[*best].slow_cost_usd) best = i;
  }
  return best;
}

PlanResult prepare_plan(const PlanRequest& request) {
  PlanResult result;
  result.range = resolve_gpu_range(request.scenario, request.min_gpus, request.max_gpus);
  if (request.topologies.empty()) throw PlanError("plan: --topologies lists none");
  if (request.gpus.empty()) throw PlanError("plan: --gpus lists none");
  check_gpu_presets(request.gpus);
  result.prices = resolve_prices(request.gpus, request.scenario, request.pricing, request.given_prices);
  result.clusters = candidate_clusters(request.scenario, request.gpus, result.range);
  // A named profile is the request GPU's own (another GPU's clusters take their bundled one), and
  // its widening is measured on the request's own layout.
  const BandTable& table = request.validation ? *request.validation : built_in_band_table();
  const ProfileWidening widening = profile_widening(request.scenario);
  result.band_source = table.source();
  result.widening = widening;
  for (auto& cluster : result.clusters) {
    cluster.bands = PredictionBands(table, cluster.gpu,
                                    cluster.gpu == request.scenario.cluster.gpu.name ? widening : ProfileWidening{},
                                    request.scenario.model.experts > 0);
  }
  return result;
}

std::size_t kept_layouts(const PlanRequest& request) {
  return request.full_evaluation ? 0 : std::max(kTopologyCandidates, request.flow_candidates);
}

LayoutRuns simulate_plan_layouts(const PlanRequest& request, const PlanResult& prepared, const Shard& shard,
                                 const PlanProgressFn& progress) {
  std::size_t layouts = 0;
  for (std::size_t c = 0; c < prepared.clusters.size(); ++c) {
    if (shard.contains(c)) layouts += prepared.clusters[c].layouts.size();
  }
  const ProgressFn on_layout = progress ? progress(layouts) : ProgressFn{};
  return simulate_layouts(prepared.clusters, request.jobs, on_layout, kept_layouts(request), request.store, &shard);
}

void finish_plan(const PlanRequest& request, PlanResult& result, const LayoutRuns& runs) {
  result.layouts = runs.runs.size();
  result.layouts_set_aside = runs.runs.size() - runs.simulated;
  const OptionSettings settings{.topologies = request.topologies,
                                .oversubscription = request.oversubscription,
                                .pricing = request.pricing,
                                .prices = result.prices};
  PlanOptions found = plan_options(result.clusters, runs, settings, request.scenario);
  if (found.options.empty()) {
    std::string gpus;
    for (const auto& gpu : request.gpus) gpus += (gpus.empty() ? "" : ",") + gpu;
    const models::Precision precision = request.scenario.training.precision;
    const bool none_has_precision = std::none_of(result.clusters.begin(), result.clusters.end(), [&](const SizedCluster& c) {
      return models::tensor_peak_flops_per_s(c.scenario.cluster.gpu, precision) > 0.0;
    });
    if (none_has_precision && !result.clusters.empty()) {
      throw PlanError(fmt::format("plan: training.precision {}: none of the GPU types searched ({}) has {} tensor cores",
                                  models::precision_name(precision), gpus, models::precision_name(precision)));
    }
    throw PlanError("plan: the model fits on none of the clusters searched (" + std::to_string(result.range.min_gpus) +
                    " to " + std::to_string(result.range.max_gpus) + " GPUs of " + gpus + "); " +
                    (result.range.max_gpus < max_plan_gpus
                         ? "raise --max-gpus (at most " + std::to_string(max_plan_gpus) + ")"
                         : std::to_string(max_plan_gpus) + " GPUs is the largest cluster plan searches"));
  }
  result.options = std::move(found.options);
  result.topology_changed_time = found.topology_changed_time;
  choose(result, request);
  if (request.flow_candidates > 0 && request.scenario.simulation.fidelity == scenarios::Fidelity::analytic) {
    flow_check_shown(result, request, runs, settings);
  }
  result.layouts_simulated = runs.simulated + found.reruns + result.flow_runs;
  if (request.simulate_chosen && result.chosen) {
    result.chosen_simulation = models::simulate_step(option_inputs(result.clusters, result.options[*result.chosen]));
  }
}

PlanResult make_plan(const PlanRequest& request, const PlanProgressFn& progress) {
  PlanResult result = prepare_plan(request);
  const LayoutRuns runs = simulate_plan_layouts(request, result, Shard{}, progress);
  finish_plan(request, result, runs);
  return result;
}

}  // namespace clustersim::planning
