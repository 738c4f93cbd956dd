#pragma once
/// `clustersim plan` as a library: size a cluster before buying or renting it. For the scenario's
/// model, sequence length, global batch and token budget, search GPU type, GPU count (whole
/// nodes), network topology and layout; return every option with its time to train and cost,
/// the Pareto front of the two and the option to take (planning/plan/sizing.hpp's rule), all
/// judged at the slow end of each option's band (planning/validation/prediction_bands.hpp): a plan
/// that meets the deadline only if the model is right where it has been wrong before does not.
/// The steps, one file each: prices (plan_prices), candidate clusters (plan_clusters), the
/// layouts per cluster (plan_layouts), their simulation on threads (plan_evaluation), the
/// options per topology with their reruns and cost (plan_options), the front and the choice
/// (sizing), and the flow check of the front and the choice (flow_check). Errors are PlanErrors
/// (planning/plan/plan_error.hpp).

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/plan/flow_check.hpp"
#include "planning/plan/plan_clusters.hpp"
#include "planning/plan/plan_evaluation.hpp"
#include "planning/plan/plan_options.hpp"
#include "planning/plan/plan_prices.hpp"
#include "planning/search/sweep_runner.hpp"
#include "planning/validation/band_table.hpp"
#include "planning/validation/prediction_bands.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::planning {

struct PlanRequest {
  scenarios::Scenario scenario{};                  // model, training and cost; its cluster sets the defaults
  // GPU presets to consider, in the order listed; by default every one with a bundled profile.
  std::vector<std::string> gpus{"a100-80gb", "h100-sxm", "h200-sxm", "b200"};
  std::int64_t min_gpus = 0;                       // <= 0: see resolve_gpu_range
  std::int64_t max_gpus = 0;                       // <= 0: see resolve_gpu_range
  // The first is the reference (plan_options.hpp); by default the three a sizing study compares.
  std::vector<models::TopologyKind> topologies{models::TopologyKind::rail_optimized, models::TopologyKind::fat_tree,
                                               models::TopologyKind::dragonfly};
  double oversubscription = 2.0;                   // of a fat tree's leaves
  Pricing pricing = Pricing::rent;
  std::map<std::string, double> given_prices{};    // GPU preset -> USD (GPU-hour or server, as pricing)
  double deadline_days = 0.0;                      // <= 0: none
  double budget_usd = 0.0;                         // <= 0: none
  unsigned jobs = 1;                               // simulation threads
  bool simulate_chosen = false;                    // keep the full simulation of the choice (for a report)
  // Best analytic layouts an option on the front re-runs under the flow fidelity (flow_check.hpp); 0: none.
  // Ignored when the scenario's fidelity is flow already.
  std::size_t flow_candidates = kFlowCandidates;
  // Simulate every layout instead of setting aside those the bound excludes (plan_evaluation.hpp):
  // the same options, more slowly; for tests.
  bool full_evaluation = false;
  const BandTable* validation = nullptr;           // the bands' runs; nullptr: built_in_band_table()
  LayoutRunStore* store = nullptr;                 // keeps finished layout runs (plan --resume); may be null
};

struct PlanResult {
  GpuRange range{};
  PriceTable prices{};
  std::vector<SizedCluster> clusters{};
  std::vector<PlanOption> options{};       // cluster by cluster, topologies in the order asked
  std::vector<bool> on_front{};            // per option, of the slow ends
  std::vector<std::size_t> front{};        // the front's options, fastest slow end first
  std::optional<std::size_t> chosen{};     // nullopt: no option meets the deadline and budget at its slow end
  std::size_t layouts = 0;                 // layouts of every cluster that fit in memory
  std::size_t layouts_set_aside = 0;       // of those, not simulated: the bound excludes them
  std::size_t layouts_simulated = 0;       // layout runs, topology reruns and flow runs
  std::size_t flow_runs = 0;               // of those, under the flow fidelity (flow_check.hpp)
  bool topology_changed_time = false;      // whether a topology gave another step time than the first
  std::string band_source{};               // the validation CSV of the bands
  ProfileWidening widening{};              // of the request GPU's clusters (named profile); others: none
  std::optional<models::StepSimulation> chosen_simulation{};  // when asked for and there is a choice
};

/// Called once with the number of layouts to simulate, before they run; returns the callback told
/// of each one done (may return an empty one). May be empty itself.
using PlanProgressFn = std::function<ProgressFn(std::size_t layouts)>;

/// Throws PlanError when the request cannot be planned (see plan_error.hpp). The three steps
/// below, one after the other.
PlanResult make_plan(const PlanRequest& request, const PlanProgressFn& progress = {});

/// A plan before any layout runs: its GPU range, prices and clusters with their layouts and bands.
PlanResult prepare_plan(const PlanRequest& request);
/// How many of each cluster's best layouts the plan needs exactly (simulate_layouts' `keep`).
std::size_t kept_layouts(const PlanRequest& request);
/// The layout runs of the clusters of one shard (cluster c is in shard I/N when c % N = I - 1; a
/// plan sharded by `plan --shard` is merged by tools/plan_shards.hpp), or of all of them.
LayoutRuns simulate_plan_layouts(const PlanRequest& request, const PlanResult& prepared, const Shard& shard,
                                 const PlanProgressFn& progress = {});
/// The options, their front, the choice and the flow check, from every cluster's layout runs.
void finish_plan(const PlanRequest& request, PlanResult& result, const LayoutRuns& runs);

/// The option of that GPU type that costs least at the slow end of its band; nullopt when the
/// model fits on none of its clusters.
std::optional<std::size_t> cheapest_option(const PlanResult& result, const std::string& gpu);

}  // namespace clustersim::planning
