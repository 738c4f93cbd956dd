#include "planning/plan/plan_options.hpp"

#include <algorithm>

namespace clustersim::planning {
namespace {

constexpr double kSecondsPerHour = 3600.0;

models::ClusterSpec on_topology(models::ClusterSpec cluster, models::TopologyKind topology, double oversubscription) {
  cluster.topology = topology;
  cluster.oversubscription = topology == models::TopologyKind::fat_tree ? oversubscription : 1.0;
  return cluster;
}

}  // namespace

PlanOptions plan_options(const std::vector<SizedCluster>& clusters, const LayoutRuns& runs,
                         const OptionSettings& settings, const scenarios::Scenario& scenario) {
  PlanOptions result;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const std::vector<std::size_t>& ranked = runs.ranked.at(c);
    if (ranked.empty()) continue;
    const SizedCluster& cluster = clusters[c];
    for (std::size_t t = 0; t < settings.topologies.size(); ++t) {
      models::StepInputs base = cluster.base;
      base.cluster = on_topology(base.cluster, settings.topologies[t], settings.oversubscription);
      PlanOption option{.cluster = c, .topology = settings.topologies[t], .oversubscription = base.cluster.oversubscription};
      const std::size_t tries = t == 0 ? 1 : std::min(kTopologyCandidates, ranked.size());
      for (std::size_t k = 0; k < tries; ++k) {
        const LayoutRun& run = runs.runs[ranked[k]];
        const Layout& layout = cluster.layouts[run.layout];
        models::StepReport report = run.report;
        if (t > 0 || base.cluster != cluster.base.cluster) {
          report = models::step_report(with_layout(base, layout));
          ++result.reruns;
          if (report.times.step_time_s != run.report.times.step_time_s) result.topology_changed_time = true;
        }
        StepBand band = cluster.bands.band(report.times.step_time_s, layout);
        if (k == 0 || band.slow_s < option.band.slow_s) {
          option.layout = layout;
          option.report = report;
          option.band = std::move(band);
        }
      }
      price_option(option, cluster, settings, scenario);
      result.options.push_back(std::move(option));
    }
  }
  return result;
}

void price_option(PlanOption& option, const SizedCluster& cluster, const OptionSettings& settings,
                  const scenarios::Scenario& scenario) {
  const auto& s = cluster.scenario;
  const models::ClusterSpec network = on_topology(cluster.base.cluster, option.topology, settings.oversubscription);
  option.usd_per_gpu_hour = gpu_hour_usd(settings.pricing, settings.prices.at(cluster.gpu), cluster.gpu, scenario, network);
  option.hours = s.training.tokens / option.report.tokens_per_s / kSecondsPerHour;
  option.days = option.hours / s.cost.hours_per_day;
  option.cost_usd = option.usd_per_gpu_hour * static_cast<double>(s.cluster.num_gpus) * option.hours;
  const double fast = option.band.fast_s / option.report.times.step_time_s;
  const double slow = option.band.slow_s / option.report.times.step_time_s;
  option.fast_days = option.days * fast;
  option.slow_days = option.days * slow;
  option.fast_cost_usd = option.cost_usd * fast;
  option.slow_cost_usd = option.cost_usd * slow;
}

models::StepInputs option_inputs(const std::vector<SizedCluster>& clusters, const PlanOption& option) {
  models::StepInputs in = with_layout(clusters.at(option.cluster).base, option.layout);
  in.cluster.topology = option.topology;
  in.cluster.oversubscription = option.oversubscription;
  if (option.flow) in.fidelity = models::CommFidelity::flow;
  return in;
}

}  // namespace clustersim::planning
