#include "planning/plan/flow_check.hpp"

#include <algorithm>

#include "models/spec/layout_rules.hpp"

namespace clustersim::planning {

std::vector<std::size_t> flow_check_layouts(PlanOption& option, const std::vector<SizedCluster>& clusters,
                                            const LayoutRuns& runs, std::size_t candidates) {
  const std::vector<std::size_t>& ranked = runs.ranked.at(option.cluster);
  std::vector<std::size_t> layouts;
  for (std::size_t k = 0; k < ranked.size() && k < candidates; ++k) {
    const Layout& layout = clusters.at(option.cluster).layouts[runs.runs[ranked[k]].layout];
    // A layout with too many chunk passes for the flow fidelity's graph is not run under it.
    if (const auto too_big = models::flow_graph_violation(layout.parallelism, layout.training)) {
      if (option.flow_not_checked.empty()) option.flow_not_checked = too_big->rule;
      continue;
    }
    layouts.push_back(ranked[k]);
  }
  return layouts;
}

PlanOption flow_trial(const PlanOption& option, const std::vector<SizedCluster>& clusters, const LayoutRuns& runs,
                      std::size_t run) {
  const LayoutRun& analytic = runs.runs.at(run);
  const SizedCluster& cluster = clusters.at(option.cluster);
  PlanOption trial = option;
  trial.layout = cluster.layouts[analytic.layout];
  trial.flow = FlowCheck{.analytic_step_s = analytic.report.times.step_time_s, .layouts = 1};
  trial.flow_not_checked.clear();
  trial.report = models::step_report(option_inputs(clusters, trial));
  trial.band = cluster.bands.band(trial.report.times.step_time_s, trial.layout);
  return trial;
}

void keep_best_trial(PlanOption& option, std::vector<PlanOption> trials, const std::vector<SizedCluster>& clusters,
                     const OptionSettings& settings, const scenarios::Scenario& scenario) {
  if (trials.empty()) return;
  std::size_t best = 0;
  for (std::size_t k = 1; k < trials.size(); ++k) {
    if (trials[k].band.slow_s < trials[best].band.slow_s) best = k;
  }
  option = std::move(trials[best]);
  option.flow->layouts = trials.size();
  price_option(option, clusters.at(option.cluster), settings, scenario);
}

}  // namespace clustersim::planning
