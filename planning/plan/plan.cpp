#include "planning/plan/plan.hpp"

#include <algorithm>

#include "planning/plan/plan_error.hpp"
#include "planning/plan/plan_evaluation.hpp"
#include "planning/plan/sizing.hpp"

namespace clustersim::planning {

PlanResult make_plan(const PlanRequest& request, const PlanProgressFn& progress) {
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

  const ProgressFn on_layout = progress ? progress(layout_count(result.clusters)) : ProgressFn{};
  const LayoutRuns runs = simulate_layouts(result.clusters, request.jobs, on_layout, request.store);
  const OptionSettings settings{.topologies = request.topologies,
                                .oversubscription = request.oversubscription,
                                .pricing = request.pricing,
                                .prices = result.prices};
  PlanOptions found = plan_options(result.clusters, runs, settings, request.scenario);
  if (found.options.empty()) {
    std::string gpus;
    for (const auto& gpu : request.gpus) gpus += (gpus.empty() ? "" : ",") + gpu;
    throw PlanError("plan: the model fits on none of the clusters searched (" + std::to_string(result.range.min_gpus) +
                    " to " + std::to_string(result.range.max_gpus) + " GPUs of " + gpus + "); " +
                    (result.range.max_gpus < max_plan_gpus
                         ? "raise --max-gpus (at most " + std::to_string(max_plan_gpus) + ")"
                         : std::to_string(max_plan_gpus) + " GPUs is the largest cluster plan searches"));
  }
  result.options = std::move(found.options);
  result.layouts_simulated = runs.runs.size() + found.reruns;
  result.topology_changed_time = found.topology_changed_time;

  std::vector<PlanPoint> points;
  for (const auto& o : result.options) points.push_back({.days = o.slow_days, .cost_usd = o.slow_cost_usd});
  result.on_front = pareto_front(points);
  result.front = front_by_days(points, result.on_front);
  result.chosen = choose_option(points, request.deadline_days, request.budget_usd);
  if (request.simulate_chosen && result.chosen) {
    result.chosen_simulation = models::simulate_step(option_inputs(result.clusters, result.options[*result.chosen]));
  }
  return result;
}

}  // namespace clustersim::planning
