#pragma once
/// What one GPU-hour of a planned cluster costs. Renting: the on-demand price of a GPU-hour.
/// Building: the price of an 8-GPU server, turned into an owned cost per GPU-hour by the cost
/// model (models/cost/cost_model.hpp: servers, the network parts of the option's topology, power,
/// colocation, over the depreciation period).
/// Resolution order per GPU type: the price given on the command line (--price, --server-price),
/// then the scenario's own (cost.rent.on_demand_usd_per_gpu_hour or cost.build.server_usd, for the
/// scenario's own GPU type only), then the built-in dated price of planning/sizing.hpp.
/// Units: US dollars.

#include <map>
#include <string>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::planning {

enum class Pricing { rent, build };

struct GpuPrice {
  double usd = 0.0;  // rent: per GPU-hour; build: per 8-GPU server
  std::string source{};
};

/// By GPU preset name.
using PriceTable = std::map<std::string, GpuPrice>;

/// The price of every GPU type of `gpus` in the order above; `given` holds the command line's
/// (GPU preset -> USD). Throws PlanError for a GPU type with no price anywhere.
PriceTable resolve_prices(const std::vector<std::string>& gpus, const scenarios::Scenario& scenario, Pricing pricing,
                          const std::map<std::string, double>& given);

/// The cost of one GPU-hour of `cluster` (its GPU type `gpu`, priced `price`). Building uses the
/// scenario's cost spec with the server price replaced and, for another GPU type than the
/// scenario's (or a scenario without one), the built-in node power of that GPU type.
double gpu_hour_usd(Pricing pricing, const GpuPrice& price, const std::string& gpu, const scenarios::Scenario& scenario,
                    const models::ClusterSpec& cluster);

}  // namespace clustersim::planning
