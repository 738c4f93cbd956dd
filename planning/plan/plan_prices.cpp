#include "planning/plan/plan_prices.hpp"

#include "models/cost/cost_model.hpp"
#include "planning/plan/plan_error.hpp"
#include "planning/plan/sizing.hpp"

namespace clustersim::planning {
namespace {

GpuPrice build_price(const std::string& gpu, const scenarios::Scenario& scenario,
                     const std::map<std::string, double>& given) {
  if (const auto it = given.find(gpu); it != given.end()) return {it->second, "--server-price"};
  if (gpu == scenario.cluster.gpu.name && scenario.cost.build.server_usd > 0) {
    return {scenario.cost.build.server_usd, "scenario cost.build.server_usd"};
  }
  if (const auto d = default_server_usd(gpu); d.usd > 0) return {d.usd, std::string(d.source)};
  throw PlanError("plan: no server price for " + gpu + ": pass --server-price " + gpu + "=USD");
}

GpuPrice rent_price(const std::string& gpu, const scenarios::Scenario& scenario,
                    const std::map<std::string, double>& given) {
  if (const auto it = given.find(gpu); it != given.end()) return {it->second, "--price"};
  if (gpu == scenario.cluster.gpu.name && scenario.cost.rent.on_demand_usd_per_gpu_hour > 0) {
    return {scenario.cost.rent.on_demand_usd_per_gpu_hour, "scenario cost.rent.on_demand_usd_per_gpu_hour"};
  }
  if (const auto d = default_rent_usd_per_gpu_hour(gpu); d.usd > 0) return {d.usd, std::string(d.source)};
  throw PlanError("plan: no price for " + gpu + ": pass --price " + gpu + "=USD");
}

}  // namespace

PriceTable resolve_prices(const std::vector<std::string>& gpus, const scenarios::Scenario& scenario, Pricing pricing,
                          const std::map<std::string, double>& given) {
  PriceTable prices;
  for (const auto& gpu : gpus) {
    prices[gpu] = pricing == Pricing::build ? build_price(gpu, scenario, given) : rent_price(gpu, scenario, given);
  }
  return prices;
}

double gpu_hour_usd(Pricing pricing, const GpuPrice& price, const std::string& gpu, const scenarios::Scenario& scenario,
                    const models::ClusterSpec& cluster) {
  if (pricing == Pricing::rent) return price.usd;
  models::CostSpec cost = scenario.cost;
  cost.build.server_usd = price.usd;
  if (gpu != scenario.cluster.gpu.name || cost.build.node_power_w <= 0) {
    cost.build.node_power_w = default_node_power_w(gpu).usd;
  }
  return models::build_costs(cluster, cost, models::network_parts(cluster)).usd_per_gpu_hour;
}

}  // namespace clustersim::planning
