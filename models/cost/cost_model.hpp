#pragma once
/// What a cluster costs to build and run, and to rent.
/// Build: capital = servers + scale-out network (switches, NICs, transceivers and cables, counted on
/// the topology's graph) + storage + anything quoted as one sum; monthly = energy (node power x
/// average draw x PUE x price per kWh, for the hours used) + colocation (per contracted kW of node
/// power) + staff + maintenance (a fraction of hardware capital per year) + anything quoted per
/// month. Capital is recovered over the depreciation life at the financing rate (annuity factor).
/// Rent: on-demand and spot are billed for the hours used, a reservation for its committed hours.
/// Units: US dollars, watts, hours; months of 30.4375 days (365.25 / 12).
/// Limitations: switch and storage power, insurance, taxes, residual value and price changes over
/// time are left out; one price per item.
/// Source: prices and formulas in shared reference costs-topology-failures.md section 1 (dates
/// there): 64-port NDR switch $36k and $41.9M of cables and optics for a 16,384-GPU fabric (H100
/// Freakonomics, 2024-08); DGX H100 10.2 kW; Epoch AI's 0.75 average draw and 1.25 PUE; EIA
/// $0.08/kWh; CBRE $184.06/kW/month (H2 2024); annuity factor CRF(r, n) = r (1+r)^n / ((1+r)^n - 1).

#include <cstdint>
#include <string>

#include "models/spec/cluster_spec.hpp"

namespace clustersim::models {

inline constexpr double hours_per_month = 730.5;  // 365.25 x 24 / 12

struct BuildCostSpec {
  double server_usd = 0.0;           // per node as quoted (GPUs, CPUs, memory, usually the NICs)
  double switch_usd = 36000.0;       // 64-port NDR switch (FS.com, 2024-08; NVIDIA-branded ~$50k)
  double nic_usd = 0.0;              // per NIC, when the server price leaves them out
  // $41.9M / 32,768 cables of a two-tier 16,384-GPU fabric = $1,279 per cable with its optics;
  // split into two transceivers and the cable by assumption.
  double transceiver_usd = 550.0;
  double cable_usd = 179.0;
  double transceivers_per_cable = 2.0;
  double storage_usd = 0.0;
  double other_capex_usd = 0.0;      // quoted as one sum, not itemised
  double node_power_w = 10200.0;     // DGX H100 maximum input power
  double power_draw_fraction = 0.75; // average draw / maximum (Epoch AI)
  double pue = 1.25;                 // colocation (Epoch AI); hyperscalers 1.10
  double usd_per_kwh = 0.08;         // US industrial, 2023-2025 (EIA via Epoch AI)
  double colocation_usd_per_kw_month = 184.06;  // CBRE North America H2 2024
  double staff_usd_per_month = 0.0;
  double maintenance_fraction_per_year = 0.0;  // vendor support is often ~20 % of base price a year
  double other_opex_usd_per_month = 0.0;       // quoted as one sum, not itemised
  double depreciation_years = 4.0;   // Epoch AI: 4-5 years for recent servers
  double financing_rate = 0.08;      // per year

  friend bool operator==(const BuildCostSpec&, const BuildCostSpec&) = default;
};

struct RentCostSpec {
  double on_demand_usd_per_gpu_hour = 0.0;  // 0: not offered
  double reserved_usd_per_gpu_hour = 0.0;   // 0: not offered
  double spot_usd_per_gpu_hour = 0.0;       // 0: not offered
  double reserved_hours_per_day = 24.0;     // a reservation is paid whether used or not
  double spot_preemption_per_node_s = 0.0; // spot capacity reclaimed, per node per second

  friend bool operator==(const RentCostSpec&, const RentCostSpec&) = default;
};

struct CostSpec {
  BuildCostSpec build{};
  RentCostSpec rent{};
  double hours_per_day = 24.0;       // hours the cluster is used
  double horizon_years = 3.0;        // of the build-vs-rent comparison
  double claimed_break_even_months = 0.0;  // a published claim to check (0: none)

  friend bool operator==(const CostSpec&, const CostSpec&) = default;
};

/// The scale-out network's parts, for pricing.
struct NetworkParts {
  std::int64_t switches = 0;  // leaves, spines, cores, dragonfly routers (not NVSwitches)
  std::int64_t nics = 0;
  std::int64_t cables = 0;    // NIC-switch and switch-switch
  std::string source;         // "topology graph" or the closed form used
};

/// Counts the parts on the graph topologies/ builds for the cluster (models/comm/cluster_topology.hpp);
/// a torus's per-node routers count as part of the node, not as switches. When the cluster cannot
/// take its topology's shape, falls back to the closed form of a 64-port fat tree:
/// 3N/k switches and 2N cables for two tiers, 5N/k and 3N for three (N NICs, k ports).
NetworkParts network_parts(const ClusterSpec& cluster);

struct BuildCosts {
  std::int64_t nodes = 0;
  NetworkParts network{};
  double servers_usd = 0.0;
  double network_usd = 0.0;
  double storage_usd = 0.0;
  double other_capex_usd = 0.0;
  double capex_usd = 0.0;            // all of the above
  double energy_usd_per_month = 0.0;
  double colocation_usd_per_month = 0.0;
  double staff_usd_per_month = 0.0;
  double maintenance_usd_per_month = 0.0;
  double other_opex_usd_per_month = 0.0;
  double opex_usd_per_month = 0.0;   // all of the above
  double capital_usd_per_month = 0.0;  // capex x CRF(financing rate, depreciation life) / 12
  double usd_per_gpu_hour = 0.0;     // (capital + opex) per month / GPU-hours used per month
};

/// Annuity factor per year: r (1+r)^n / ((1+r)^n - 1); 1/n at r = 0.
double capital_recovery_factor(double rate, double years);

BuildCosts build_costs(const ClusterSpec& cluster, const CostSpec& cost, const NetworkParts& network);

enum class RentOption { on_demand, reserved, spot };
inline constexpr std::size_t rent_option_count = 3;
std::string_view to_string(RentOption option);

double rent_price_usd_per_gpu_hour(const RentCostSpec& rent, RentOption option);

/// What the cluster's GPUs cost to rent for a month with this option.
double rent_usd_per_month(const ClusterSpec& cluster, const CostSpec& cost, RentOption option);

}  // namespace clustersim::models
