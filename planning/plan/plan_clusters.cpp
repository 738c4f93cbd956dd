#include "planning/plan/plan_clusters.hpp"

#include <algorithm>

#include "calibration/step_inputs.hpp"
#include "planning/plan/plan_error.hpp"
#include "planning/plan/plan_layouts.hpp"
#include "planning/plan/sizing.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/validation_network.hpp"

namespace clustersim::planning {

GpuRange resolve_gpu_range(const scenarios::Scenario& scenario, std::int64_t min_gpus, std::int64_t max_gpus) {
  GpuRange range{.min_gpus = min_gpus, .max_gpus = max_gpus};
  if (range.min_gpus <= 0) {
    range.min_gpus = std::min(std::max(scenario.cluster.gpus_per_node, scenario.cluster.num_gpus / 8), max_plan_gpus);
  }
  if (range.max_gpus <= 0) range.max_gpus = std::min(scenario.cluster.num_gpus * 4, max_plan_gpus);
  if (range.min_gpus > range.max_gpus) throw PlanError("plan: --min-gpus exceeds --max-gpus");
  return range;
}

void check_gpu_presets(const std::vector<std::string>& gpus) {
  const auto known = scenarios::gpu_preset_names();
  for (const auto& gpu : gpus) {
    if (std::find(known.begin(), known.end(), gpu) == known.end()) {
      throw PlanError("plan: unknown GPU \"" + gpu + "\" (see clustersim explain)");
    }
  }
}

std::vector<SizedCluster> candidate_clusters(const scenarios::Scenario& scenario, const std::vector<std::string>& gpus,
                                             const GpuRange& range) {
  check_gpu_presets(gpus);
  const std::int64_t per_node = scenario.cluster.gpus_per_node;
  const std::int64_t min_nodes = std::max<std::int64_t>(1, (range.min_gpus + per_node - 1) / per_node);
  std::vector<SizedCluster> clusters;
  for (const auto& gpu : gpus) {
    for (const std::int64_t nodes : candidate_node_counts(min_nodes, range.max_gpus / per_node)) {
      scenarios::Scenario s = scenario;
      s.cluster.gpu = scenarios::gpu_preset(gpu);
      s.cluster.num_gpus = nodes * per_node;
      if (gpu != scenario.cluster.gpu.name) {
        const auto network = scenarios::system_network("", gpu);
        s.cluster.nics_per_node = network.nics_per_node;
        s.cluster.nic_bytes_per_s = network.nic_gbit_per_s * 1e9 / 8.0;
      }
      SizedCluster c{.gpu = gpu, .scenario = s, .base = calibration::step_inputs(s), .layouts = {}};
      c.layouts = plan_layouts(c.base);
      clusters.push_back(std::move(c));
    }
  }
  return clusters;
}

}  // namespace clustersim::planning
