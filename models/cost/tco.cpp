#include "models/cost/tco.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace clustersim::models {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr std::array<RentOption, rent_option_count> all_options = {RentOption::on_demand, RentOption::reserved,
                                                                   RentOption::spot};

double interest_per_month(const BuildCosts& build, const CostSpec& cost) {
  return build.capex_usd * cost.build.financing_rate / 12.0;
}

}  // namespace

std::optional<CostProblem> find_cost_problem(const CostSpec& cost) {
  if (!(cost.build.server_usd > 0) && !(cost.build.other_capex_usd > 0)) {
    return CostProblem{"cost.build.server_usd",
                       "a price is required: give server_usd (per node) or other_capex_usd (the whole build)"};
  }
  bool any_rent = false;
  for (const RentOption option : all_options) any_rent |= rent_price_usd_per_gpu_hour(cost.rent, option) > 0;
  if (!any_rent) {
    return CostProblem{"cost.rent.on_demand_usd_per_gpu_hour",
                       "a price is required: give at least one of on_demand_usd_per_gpu_hour, "
                       "reserved_usd_per_gpu_hour, spot_usd_per_gpu_hour"};
  }
  if (!(cost.hours_per_day > 0)) return CostProblem{"cost.hours_per_day", "must be positive to compare costs"};
  return std::nullopt;
}

double break_even_months(double capex_usd, double opex_usd_per_month, double financing_rate,
                         double rent_usd_per_month) {
  const double monthly_gap = rent_usd_per_month - opex_usd_per_month - capex_usd * financing_rate / 12.0;
  return monthly_gap > 0 ? capex_usd / monthly_gap : infinity;
}

Tco compute_tco(const ClusterSpec& cluster, const CostSpec& cost, const NetworkParts& network) {
  Tco tco;
  tco.build = build_costs(cluster, cost, network);
  tco.horizon_months = static_cast<std::int64_t>(std::llround(cost.horizon_years * 12.0));
  const double build_monthly = tco.build.opex_usd_per_month + interest_per_month(tco.build, cost);
  for (std::int64_t m = 0; m <= tco.horizon_months; ++m) {
    tco.build_cumulative_usd.push_back(tco.build.capex_usd + build_monthly * static_cast<double>(m));
  }
  tco.build_horizon_usd = tco.build_cumulative_usd.back();
  for (const RentOption option : all_options) {
    const double price = rent_price_usd_per_gpu_hour(cost.rent, option);
    if (!(price > 0)) continue;
    RentSummary rent;
    rent.option = option;
    rent.usd_per_gpu_hour = price;
    rent.usd_per_month = rent_usd_per_month(cluster, cost, option);
    for (std::int64_t m = 0; m <= tco.horizon_months; ++m) {
      rent.cumulative_usd.push_back(rent.usd_per_month * static_cast<double>(m));
    }
    rent.horizon_usd = rent.cumulative_usd.back();
    rent.break_even_months = break_even_months(tco.build.capex_usd, tco.build.opex_usd_per_month,
                                               cost.build.financing_rate, rent.usd_per_month);
    tco.rents.push_back(std::move(rent));
  }
  for (std::size_t i = 1; i < tco.rents.size(); ++i) {
    if (tco.rents[i].usd_per_month < tco.rents[tco.cheapest_rent].usd_per_month) tco.cheapest_rent = i;
  }
  return tco;
}

double break_even_rent_usd_per_hour(const CostSpec& cost, const BuildCosts& build, RentOption option,
                                    double months) {
  const double monthly = build.capex_usd / months + build.opex_usd_per_month + interest_per_month(build, cost);
  const double hours_per_day = option == RentOption::reserved ? cost.rent.reserved_hours_per_day : cost.hours_per_day;
  return monthly / (hours_per_day * hours_per_month / 24.0);
}

RunCost run_cost(const ClusterSpec& cluster, const CostSpec& cost, const BuildCosts& build, double tokens,
                 double wall_s, double spot_wall_s) {
  RunCost run;
  run.wall_s = wall_s;
  run.tokens = tokens;
  const auto gpus = static_cast<double>(cluster.num_gpus);
  run.gpu_hours = gpus * wall_s / 3600.0;
  run.calendar_days = wall_s / 3600.0 / cost.hours_per_day;
  run.build_usd = build.usd_per_gpu_hour * run.gpu_hours;
  for (const RentOption option : all_options) {
    const double price = rent_price_usd_per_gpu_hour(cost.rent, option);
    if (!(price > 0)) continue;
    double usd = price * run.gpu_hours;
    if (option == RentOption::reserved) usd = price * gpus * run.calendar_days * cost.rent.reserved_hours_per_day;
    if (option == RentOption::spot) usd = price * gpus * spot_wall_s / 3600.0;
    run.rent_usd[static_cast<std::size_t>(option)] = usd;
  }
  return run;
}

std::vector<SensitivityRow> sensitivity(const ClusterSpec& cluster, const CostSpec& cost, const NetworkParts& network,
                                        std::size_t rows, double fraction) {
  const Tco base = compute_tco(cluster, cost, network);
  if (base.rents.empty()) return {};
  const RentOption reference = base.rents[base.cheapest_rent].option;
  struct Input {
    const char* name;
    std::function<double&(CostSpec&)> field;
    double max = infinity;  // a day has 24 hours, a fraction stops at 1
  };
  const std::vector<Input> inputs = {
      {"build.server_usd", [](CostSpec& c) -> double& { return c.build.server_usd; }},
      {"build.switch_usd", [](CostSpec& c) -> double& { return c.build.switch_usd; }},
      {"build.nic_usd", [](CostSpec& c) -> double& { return c.build.nic_usd; }},
      {"build.transceiver_usd", [](CostSpec& c) -> double& { return c.build.transceiver_usd; }},
      {"build.cable_usd", [](CostSpec& c) -> double& { return c.build.cable_usd; }},
      {"build.storage_usd", [](CostSpec& c) -> double& { return c.build.storage_usd; }},
      {"build.other_capex_usd", [](CostSpec& c) -> double& { return c.build.other_capex_usd; }},
      {"build.node_power_w", [](CostSpec& c) -> double& { return c.build.node_power_w; }},
      {"build.power_draw_fraction", [](CostSpec& c) -> double& { return c.build.power_draw_fraction; }, 1.0},
      {"build.pue", [](CostSpec& c) -> double& { return c.build.pue; }},
      {"build.usd_per_kwh", [](CostSpec& c) -> double& { return c.build.usd_per_kwh; }},
      {"build.colocation_usd_per_kw_month", [](CostSpec& c) -> double& { return c.build.colocation_usd_per_kw_month; }},
      {"build.staff_usd_per_month", [](CostSpec& c) -> double& { return c.build.staff_usd_per_month; }},
      {"build.maintenance_fraction_per_year", [](CostSpec& c) -> double& { return c.build.maintenance_fraction_per_year; }},
      {"build.other_opex_usd_per_month", [](CostSpec& c) -> double& { return c.build.other_opex_usd_per_month; }},
      {"build.financing_rate", [](CostSpec& c) -> double& { return c.build.financing_rate; }},
      {"rent.on_demand_usd_per_gpu_hour", [](CostSpec& c) -> double& { return c.rent.on_demand_usd_per_gpu_hour; }},
      {"rent.reserved_usd_per_gpu_hour", [](CostSpec& c) -> double& { return c.rent.reserved_usd_per_gpu_hour; }},
      {"rent.spot_usd_per_gpu_hour", [](CostSpec& c) -> double& { return c.rent.spot_usd_per_gpu_hour; }},
      {"hours_per_day", [](CostSpec& c) -> double& { return c.hours_per_day; }, 24.0},
  };
  const auto outcome = [&](const CostSpec& varied) {
    const Tco tco = compute_tco(cluster, varied, network);
    for (const auto& rent : tco.rents) {
      if (rent.option == reference) return std::pair{rent.break_even_months, rent.horizon_usd - tco.build_horizon_usd};
    }
    return std::pair{infinity, 0.0};
  };
  std::vector<std::pair<double, SensitivityRow>> ranked;
  for (const auto& input : inputs) {
    CostSpec varied = cost;
    const double value = input.field(varied);
    if (value == 0) continue;
    SensitivityRow row{.input = input.name, .value = value};
    input.field(varied) = value * (1.0 - fraction);
    std::tie(row.break_even_low, row.saving_low) = outcome(varied);
    input.field(varied) = std::min(value * (1.0 + fraction), input.max);
    std::tie(row.break_even_high, row.saving_high) = outcome(varied);
    const double swing = std::abs(row.saving_high - row.saving_low);
    if (swing > 0) ranked.emplace_back(swing, std::move(row));  // inputs that change nothing here
  }
  // Largest swing first; ties keep the input order above.
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<SensitivityRow> result;
  for (std::size_t i = 0; i < ranked.size() && i < rows; ++i) result.push_back(std::move(ranked[i].second));
  return result;
}

}  // namespace clustersim::models
