#pragma once
/// The clusters a plan searches: every GPU type asked for, at every candidate node count
/// (planning/plan/sizing.hpp: powers of two and 1.5 x powers of two) between the smallest and the
/// largest size, in whole nodes of the scenario's GPUs per node. A GPU type other than the
/// scenario's comes in its standard node (scenarios/validation_network.hpp: DGX A100 with 200 Gb/s
/// NICs, later ones 400); the scenario's own keeps its NICs. Everything else (model, training,
/// topology, cost) is the scenario's.

#include <cstdint>
#include <string>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/search/layout_search.hpp"
#include "planning/validation/prediction_bands.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::planning {

/// The size range in GPUs, both ends inclusive.
struct GpuRange {
  std::int64_t min_gpus = 0;
  std::int64_t max_gpus = 0;
};

/// The largest cluster a plan searches (and --min-gpus / --max-gpus accept): 2^20 GPUs, eight
/// times the largest announced training cluster (xAI Colossus, 2025: about 200,000 GPUs).
inline constexpr std::int64_t max_plan_gpus = std::int64_t{1} << 20;

/// `min_gpus` <= 0: the scenario's GPUs / 8, at least one node; `max_gpus` <= 0: the scenario's
/// GPUs x 4, at most max_plan_gpus. Throws PlanError when the smallest exceeds the largest.
GpuRange resolve_gpu_range(const scenarios::Scenario& scenario, std::int64_t min_gpus, std::int64_t max_gpus);

/// One cluster size of one GPU type, with the layouts to simulate on it.
struct SizedCluster {
  std::string gpu{};
  scenarios::Scenario scenario{};  // the request's, with this GPU type and size
  models::StepInputs base{};       // its step inputs (calibration/step_inputs.hpp)
  std::vector<Layout> layouts{};   // planning/plan/plan_layouts.hpp; empty when the model fits in none
  PredictionBands bands{};         // of its step times; set by make_plan (none: every band its point)
};

/// Throws PlanError for a GPU type that is not a preset (scenarios/presets.hpp).
void check_gpu_presets(const std::vector<std::string>& gpus);

/// GPU type by GPU type (in the order given), smallest cluster first. Throws PlanError for a GPU
/// type that is not a preset.
std::vector<SizedCluster> candidate_clusters(const scenarios::Scenario& scenario, const std::vector<std::string>& gpus,
                                             const GpuRange& range);

}  // namespace clustersim::planning
