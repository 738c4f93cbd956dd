#pragma once
/// The options of a plan: one per (cluster, topology), with its best layout, its time to train
/// and its cost, each with its band (the cluster's PredictionBands). "Best" is the least slow end
/// of the step time's band. The first topology takes the best simulated layout of the cluster
/// (simulated on the scenario's own network). Every other topology re-runs that cluster's best few
/// layouts (kTopologyCandidates) on its network and keeps the best: a network change reorders
/// close layouts, not distant ones. A fat tree gets the requested leaf oversubscription, the others 1.
/// Time: hours = tokens / (tokens/s), on all the cluster's GPUs at once; days = hours / the
/// scenario's cost.hours_per_day. Cost = GPU-hour price (planning/plan/plan_prices.hpp) x GPUs x hours.
/// Their bands scale with the step time's: days x band / step time.
/// Units: hours, calendar days, US dollars.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "models/step/step_model.hpp"
#include "planning/search/layout_search.hpp"
#include "planning/plan/plan_clusters.hpp"
#include "planning/plan/plan_evaluation.hpp"
#include "planning/plan/plan_prices.hpp"

namespace clustersim::planning {

inline constexpr std::size_t kTopologyCandidates = 3;

/// An option re-simulated under the flow fidelity on its own topology (planning/plan/flow_check.hpp):
/// its report is then the flow step's.
struct FlowCheck {
  double analytic_step_s = 0.0;  // the kept layout's step under the analytic fidelity
  std::size_t layouts = 0;       // how many of its cluster's best layouts ran under flow
};

/// One (cluster, topology) option with its best layout.
struct PlanOption {
  std::size_t cluster = 0;  // index into the plan's clusters
  models::TopologyKind topology = models::TopologyKind::rail_optimized;
  double oversubscription = 1.0;
  Layout layout{};
  models::StepReport report{};
  StepBand band{};     // of report.times.step_time_s
  double usd_per_gpu_hour = 0.0;
  double hours = 0.0;  // of the run, on all its GPUs at once
  double days = 0.0;   // calendar, at cost.hours_per_day
  double cost_usd = 0.0;
  double fast_days = 0.0, slow_days = 0.0;          // the band's ends
  double fast_cost_usd = 0.0, slow_cost_usd = 0.0;
  std::optional<FlowCheck> flow{};  // set when the option was re-simulated under flow
  std::string flow_not_checked{};   // why it could not be, when none of its layouts runs under flow
};

/// How a plan prices and networks its clusters.
struct OptionSettings {
  std::vector<models::TopologyKind> topologies{};  // the first is the reference
  double oversubscription = 1.0;                   // of a fat tree's leaves
  Pricing pricing = Pricing::rent;
  PriceTable prices{};
};

struct PlanOptions {
  std::vector<PlanOption> options;      // cluster by cluster, topologies in the order given
  std::size_t reruns = 0;               // simulations beyond the clusters' layout runs
  bool topology_changed_time = false;   // whether any rerun gave another step time
};

/// Clusters whose model fits in no layout give no option. `scenario` is the request's (its GPU
/// type decides which prices and node power are the scenario's own).
PlanOptions plan_options(const std::vector<SizedCluster>& clusters, const LayoutRuns& runs,
                         const OptionSettings& settings, const scenarios::Scenario& scenario);

/// Sets the option's price, time and cost (with their bands) from its report and band.
void price_option(PlanOption& option, const SizedCluster& cluster, const OptionSettings& settings,
                  const scenarios::Scenario& scenario);

/// The step inputs of an option: its cluster's, with its layout and its network (and the flow
/// fidelity, if the option was checked under it).
models::StepInputs option_inputs(const std::vector<SizedCluster>& clusters, const PlanOption& option);

}  // namespace clustersim::planning
