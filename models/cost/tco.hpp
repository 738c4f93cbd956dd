#pragma once
/// Build versus rent over a horizon: cumulative cost month by month, the break-even month, the
/// cost of one training run and a sensitivity table.
/// Cumulative build cost (cash): the capital at month 0, then each month the operating cost plus
/// interest on the capital at the financing rate. Cumulative rent: the monthly bill. Break-even:
/// the first moment renting has cost more, capex / (rent - opex - capex x rate / 12) months.
/// A training run costs its GPU-hours (time-to-train with goodput x GPUs) at the owned cost per
/// GPU-hour (capital recovered over the depreciation life, plus operating cost) or at the rent
/// price; a reservation is paid for its committed hours over the calendar time the run takes.
/// Sensitivity: every priced input moved by -20 % and +20 % (hours a day capped at 24, fractions
/// at 1); the rows are the inputs whose move changes the horizon's saving (cheapest rent minus
/// build) the most; inputs that change nothing are left out.
/// Units: US dollars, months of 30.4375 days, seconds for run times.
/// Limitations: flat prices over the horizon; no residual value of the built cluster.
/// Source: break-even form as in costs-topology-failures.md section 1.6.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "models/cost/cost_model.hpp"

namespace clustersim::models {

/// A missing or unusable price: the field ("cost.rent") and the rule.
struct CostProblem {
  std::string field;
  std::string rule;
};

/// The first problem that keeps a build-vs-rent comparison from being made, if any.
std::optional<CostProblem> find_cost_problem(const CostSpec& cost);

struct RentSummary {
  RentOption option = RentOption::on_demand;
  double usd_per_gpu_hour = 0.0;
  double usd_per_month = 0.0;
  double horizon_usd = 0.0;
  double break_even_months = 0.0;  // infinity: building never pays off against this option
  std::vector<double> cumulative_usd;  // month 0 .. horizon
};

struct Tco {
  BuildCosts build{};
  std::int64_t horizon_months = 0;
  double build_horizon_usd = 0.0;       // cash: capital + (opex + interest) x months
  std::vector<double> build_cumulative_usd;  // month 0 .. horizon
  std::vector<RentSummary> rents;       // the options with a price, in RentOption order
  std::size_t cheapest_rent = 0;        // index into rents: lowest monthly bill
};

Tco compute_tco(const ClusterSpec& cluster, const CostSpec& cost, const NetworkParts& network);

/// capex / (rent - opex - capex x rate / 12); infinity when renting is never dearer.
double break_even_months(double capex_usd, double opex_usd_per_month, double financing_rate,
                         double rent_usd_per_month);

/// The rent that would break even after `months` with the same build costs, per hour of the
/// whole cluster (used hours for on-demand and spot, committed hours for a reservation).
double break_even_rent_usd_per_hour(const CostSpec& cost, const BuildCosts& build, RentOption option,
                                    double months);

struct RunCost {
  double wall_s = 0.0;          // time-to-train, failures included (mean of the Monte Carlo runs)
  double gpu_hours = 0.0;
  double calendar_days = 0.0;   // at cost.hours_per_day
  double tokens = 0.0;
  double build_usd = 0.0;
  std::array<std::optional<double>, rent_option_count> rent_usd{};  // for the options offered
};

/// `spot_wall_s`: time-to-train on spot capacity (preemptions as failures); 0 when not offered.
RunCost run_cost(const ClusterSpec& cluster, const CostSpec& cost, const BuildCosts& build, double tokens,
                 double wall_s, double spot_wall_s);

struct SensitivityRow {
  std::string input;           // "build.server_usd"
  double value = 0.0;
  double break_even_low = 0.0;   // months, input at -20 % (against the cheapest rent)
  double break_even_high = 0.0;  // months, input at +20 %
  double saving_low = 0.0;       // horizon saving (cheapest rent - build), input at -20 %
  double saving_high = 0.0;
};

std::vector<SensitivityRow> sensitivity(const ClusterSpec& cluster, const CostSpec& cost, const NetworkParts& network,
                                        std::size_t rows = 5, double fraction = 0.2);

}  // namespace clustersim::models
