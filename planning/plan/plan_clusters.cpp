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
  std::vector<SizedCluster> clusters;
  for (const auto& gpu : gpus) {
    // The scenario's own servers for its GPU; another GPU's standard system (an HGX node, a GB200
    // NVL72 rack of trays) for the others.
    scenarios::Scenario shape = scenario;
    shape.cluster.gpu = scenarios::gpu_preset(gpu);
    if (gpu != scenario.cluster.gpu.name) {
      const auto network = scenarios::system_network("", gpu);
      shape.cluster.gpus_per_node = network.gpus_per_node;
      shape.cluster.nvlink_domain_gpus = network.nvlink_domain_gpus;
      shape.cluster.nics_per_node = network.nics_per_node;
      shape.cluster.nic_bytes_per_s = network.nic_gbit_per_s * 1e9 / 8.0;
    }
    // Sized in whole NVLink domains where a domain spans several servers (whole racks).
    const std::int64_t unit = std::max(shape.cluster.gpus_per_node, shape.cluster.nvlink_domain_gpus);
    const std::int64_t min_units = std::max<std::int64_t>(1, (range.min_gpus + unit - 1) / unit);
    for (const std::int64_t units : candidate_node_counts(min_units, range.max_gpus / unit)) {
      scenarios::Scenario s = shape;
      s.cluster.num_gpus = units * unit;
      SizedCluster c{.gpu = gpu, .scenario = s, .base = calibration::step_inputs(s), .layouts = {}};
      c.layouts = plan_layouts(c.base);
      clusters.push_back(std::move(c));
    }
  }
  return clusters;
}

}  // namespace clustersim::planning
