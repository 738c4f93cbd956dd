#include "models/cost/cost_model.hpp"

#include <cmath>
#include <exception>

#include "models/comm/cluster_topology.hpp"
#include "topologies/network.hpp"

namespace clustersim::models {
namespace {

NetworkParts closed_form_fat_tree(const ClusterSpec& cluster) {
  constexpr std::int64_t k = 64;
  const std::int64_t n = (cluster.num_gpus / cluster.gpus_per_node) * cluster.nics_per_node;
  const bool two_tiers = n <= k * k / 2;
  return {.switches = (two_tiers ? 3 : 5) * ((n + k - 1) / k),
          .nics = n,
          .cables = (two_tiers ? 2 : 3) * n,
          .source = two_tiers ? "closed form: two-tier 64-port fat tree, 3N/k switches, 2N cables"
                              : "closed form: three-tier 64-port fat tree, 5N/k switches, 3N cables"};
}

}  // namespace

NetworkParts network_parts(const ClusterSpec& cluster) {
  if (cluster.num_gpus <= nvlink_domain(cluster)) return {.source = "one NVLink domain: no scale-out network"};
  topologies::Network network;
  try {
    network = topologies::build_network(topology_spec(cluster));
  } catch (const std::exception&) {
    return closed_form_fat_tree(cluster);
  }
  using topologies::LinkTier;
  using topologies::NodeKind;
  NetworkParts parts{.source = "topology graph"};
  parts.switches = static_cast<std::int64_t>(network.count(NodeKind::leaf) + network.count(NodeKind::spine) +
                                             network.count(NodeKind::core));
  // A torus router stands for the node's own forwarding (see topologies/torus.hpp); a dragonfly
  // router is a switch.
  if (cluster.topology == TopologyKind::dragonfly) {
    parts.switches += static_cast<std::int64_t>(network.count(NodeKind::router));
  }
  parts.nics = static_cast<std::int64_t>(network.nic_count());
  for (const LinkTier tier : {LinkTier::host, LinkTier::leaf_spine, LinkTier::spine_core, LinkTier::local,
                              LinkTier::global, LinkTier::torus}) {
    parts.cables += static_cast<std::int64_t>(network.cable_count(tier));
  }
  return parts;
}

double capital_recovery_factor(double rate, double years) {
  if (!(years > 0)) return 0.0;
  if (std::abs(rate) < 1e-12) return 1.0 / years;
  const double growth = std::pow(1.0 + rate, years);
  return rate * growth / (growth - 1.0);
}

BuildCosts build_costs(const ClusterSpec& cluster, const CostSpec& cost, const NetworkParts& network) {
  const BuildCostSpec& b = cost.build;
  BuildCosts c;
  c.nodes = cluster.num_gpus / cluster.gpus_per_node;
  c.network = network;
  const auto nodes = static_cast<double>(c.nodes);
  c.servers_usd = b.server_usd * nodes;
  c.network_usd = b.switch_usd * static_cast<double>(network.switches) + b.nic_usd * static_cast<double>(network.nics) +
                  (b.transceiver_usd * b.transceivers_per_cable + b.cable_usd) * static_cast<double>(network.cables);
  c.storage_usd = b.storage_usd;
  c.other_capex_usd = b.other_capex_usd;
  c.capex_usd = c.servers_usd + c.network_usd + c.storage_usd + c.other_capex_usd;

  const double it_kw = nodes * b.node_power_w / 1000.0;
  const double hours_used = cost.hours_per_day * hours_per_month / 24.0;
  c.energy_usd_per_month = it_kw * b.power_draw_fraction * b.pue * b.usd_per_kwh * hours_used;
  c.colocation_usd_per_month = it_kw * b.colocation_usd_per_kw_month;
  c.staff_usd_per_month = b.staff_usd_per_month;
  // Maintenance covers the hardware, not what was quoted as one sum.
  c.maintenance_usd_per_month =
      b.maintenance_fraction_per_year * (c.servers_usd + c.network_usd + c.storage_usd) / 12.0;
  c.other_opex_usd_per_month = b.other_opex_usd_per_month;
  c.opex_usd_per_month = c.energy_usd_per_month + c.colocation_usd_per_month + c.staff_usd_per_month +
                         c.maintenance_usd_per_month + c.other_opex_usd_per_month;
  c.capital_usd_per_month = c.capex_usd * capital_recovery_factor(b.financing_rate, b.depreciation_years) / 12.0;
  const double gpu_hours = static_cast<double>(cluster.num_gpus) * hours_used;
  c.usd_per_gpu_hour = gpu_hours > 0 ? (c.capital_usd_per_month + c.opex_usd_per_month) / gpu_hours : 0.0;
  return c;
}

std::string_view to_string(RentOption option) {
  switch (option) {
    case RentOption::on_demand: return "on_demand";
    case RentOption::reserved: return "reserved";
    case RentOption::spot: return "spot";
  }
  return "?";
}

double rent_price_usd_per_gpu_hour(const RentCostSpec& rent, RentOption option) {
  switch (option) {
    case RentOption::on_demand: return rent.on_demand_usd_per_gpu_hour;
    case RentOption::reserved: return rent.reserved_usd_per_gpu_hour;
    case RentOption::spot: return rent.spot_usd_per_gpu_hour;
  }
  return 0.0;
}

double rent_usd_per_month(const ClusterSpec& cluster, const CostSpec& cost, RentOption option) {
  const double hours_per_day =
      option == RentOption::reserved ? cost.rent.reserved_hours_per_day : cost.hours_per_day;
  return rent_price_usd_per_gpu_hour(cost.rent, option) * static_cast<double>(cluster.num_gpus) * hours_per_day *
         hours_per_month / 24.0;
}

}  // namespace clustersim::models
