#include <doctest/doctest.h>

#include <cmath>

#include "models/cost/cost_model.hpp"
#include "models/cost/tco.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

// Everything zero but what a test sets.
CostSpec bare_costs() {
  CostSpec cost{};
  cost.build = {.switch_usd = 0, .transceiver_usd = 0, .cable_usd = 0, .usd_per_kwh = 0,
                .colocation_usd_per_kw_month = 0, .financing_rate = 0};
  return cost;
}

TEST_CASE("tco: break-even of a hand-computable case") {
  // 80 GPUs rented at $2/GPU-h around the clock: 80 x 730.5 h x $2 = $116,880 a month.
  // Build: $1.5M once, $16,880 a month, no interest. Renting costs $100,000 a month more than
  // running the build, so it has cost the $1.5M after exactly 15 months.
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 80};
  CostSpec cost = bare_costs();
  cost.build.other_capex_usd = 1.5e6;
  cost.build.other_opex_usd_per_month = 16880.0;
  cost.rent.on_demand_usd_per_gpu_hour = 2.0;
  const Tco tco = compute_tco(cluster, cost, NetworkParts{});
  REQUIRE(tco.rents.size() == 1);
  CHECK(tco.rents[0].usd_per_month == doctest::Approx(116880.0));
  CHECK(tco.rents[0].break_even_months == doctest::Approx(15.0));
  CHECK(tco.rents[0].cumulative_usd[15] == doctest::Approx(tco.build_cumulative_usd[15]));
  CHECK(tco.horizon_months == 36);
  CHECK(tco.build_horizon_usd == doctest::Approx(1.5e6 + 36 * 16880.0));

  // Renting cheaper than running the build: never breaks even.
  cost.rent.on_demand_usd_per_gpu_hour = 0.1;
  CHECK(std::isinf(compute_tco(cluster, cost, NetworkParts{}).rents[0].break_even_months));
}

TEST_CASE("tco: the seed article's inputs break even in months, not roughly 18") {
  // $6.2M + $120K/month vs $8,000/h on demand or $2,400/h reserved, 20 h/day, 30.4375-day months:
  // on demand 8000 x 20 x 30.4375 = $4.87M a month -> 6.2M / 4.75M = 1.31 months;
  // reserved 2400 x 608.75 = $1.461M -> 6.2M / 1.341M = 4.62 months.
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 512};
  CostSpec cost = bare_costs();
  cost.hours_per_day = 20;
  cost.build.other_capex_usd = 6.2e6;
  cost.build.other_opex_usd_per_month = 120e3;
  cost.rent.on_demand_usd_per_gpu_hour = 8000.0 / 512;
  cost.rent.reserved_usd_per_gpu_hour = 2400.0 / 512;
  cost.rent.reserved_hours_per_day = 20;
  const Tco tco = compute_tco(cluster, cost, NetworkParts{});
  REQUIRE(tco.rents.size() == 2);
  CHECK(tco.rents[0].break_even_months == doctest::Approx(6.2e6 / (8000.0 * 608.75 - 120e3)));
  CHECK(tco.rents[1].break_even_months == doctest::Approx(6.2e6 / (2400.0 * 608.75 - 120e3)));
  CHECK(tco.rents[1].break_even_months == doctest::Approx(4.62).epsilon(0.005));
  // 18 months would need 6.2M / 18 + 120K = $464.4K a month = $763 an hour.
  CHECK(break_even_rent_usd_per_hour(cost, tco.build, RentOption::reserved, 18) ==
        doctest::Approx((6.2e6 / 18 + 120e3) / 608.75));
}

TEST_CASE("tco: owned cost per GPU-hour of $50k per GPU over 4 years at 8 % is $1.72") {
  // costs-topology-failures.md 1.6: CRF(8 %, 4) = 0.302 -> $15.1k a year -> $1.72/GPU-h at 100 %.
  CHECK(capital_recovery_factor(0.08, 4) == doctest::Approx(0.30192).epsilon(1e-4));
  CHECK(capital_recovery_factor(0.0, 4) == doctest::Approx(0.25));
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 8};
  CostSpec cost = bare_costs();
  cost.build.server_usd = 8 * 50e3;
  cost.build.financing_rate = 0.08;
  const BuildCosts b = build_costs(cluster, cost, NetworkParts{});
  CHECK(b.usd_per_gpu_hour == doctest::Approx(1.72).epsilon(0.005));
}

TEST_CASE("tco: energy and colocation of an H100 node match the reference's per-GPU figures") {
  // 1.275 kW per GPU x 0.75 x PUE 1.25 x $0.08 = $0.0956 per GPU-hour; colocation
  // $184.06/kW/month x 1.275 kW = $0.32 per GPU-hour (costs-topology-failures.md 1.6).
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 8};
  const BuildCosts b = build_costs(cluster, CostSpec{}, NetworkParts{});
  CHECK(b.energy_usd_per_month / (8 * hours_per_month) == doctest::Approx(0.0956).epsilon(0.002));
  CHECK(b.colocation_usd_per_month / (8 * hours_per_month) == doctest::Approx(0.32).epsilon(0.005));
}

TEST_CASE("tco: the network of a 4-SU SuperPOD is priced from its counted parts") {
  // DGX SuperPOD B200 RA, 4 SUs = 128 nodes: 32 leaves, 16 spines, 1,024 node-leaf and 1,024
  // leaf-spine cables (costs-topology-failures.md 2.1).
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 1024};
  const NetworkParts parts = network_parts(cluster);
  CHECK(parts.switches == 48);
  CHECK(parts.nics == 1024);
  CHECK(parts.cables == 2048);
  CHECK(parts.source == "topology graph");
  const BuildCosts b = build_costs(cluster, CostSpec{}, parts);
  CHECK(b.network_usd == doctest::Approx(48 * 36000.0 + 2048 * (2 * 550.0 + 179.0)));
}

TEST_CASE("tco: a training run costs its GPU-hours, a reservation its calendar time") {
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 16};
  CostSpec cost = bare_costs();
  cost.hours_per_day = 12;
  cost.build.server_usd = 1e5;
  cost.rent.on_demand_usd_per_gpu_hour = 3;
  cost.rent.reserved_usd_per_gpu_hour = 2;
  const BuildCosts b = build_costs(cluster, cost, NetworkParts{});
  const RunCost run = run_cost(cluster, cost, b, 1e9, 10 * 3600.0, 0.0);
  CHECK(run.gpu_hours == doctest::Approx(160.0));
  CHECK(run.calendar_days == doctest::Approx(10.0 / 12.0));
  CHECK(*run.rent_usd[0] == doctest::Approx(480.0));
  CHECK(*run.rent_usd[1] == doctest::Approx(2.0 * 16 * 24 * 10.0 / 12.0));
  CHECK_FALSE(run.rent_usd[2]);
  CHECK(run.build_usd == doctest::Approx(b.usd_per_gpu_hour * 160.0));
}

TEST_CASE("tco: sensitivity ranks the inputs by how much +-20 % moves the saving") {
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 512};
  CostSpec cost{};
  cost.build.server_usd = 300e3;
  cost.build.staff_usd_per_month = 50e3;
  cost.rent.reserved_usd_per_gpu_hour = 3.0;
  const auto rows = sensitivity(cluster, cost, network_parts(cluster));
  REQUIRE(rows.size() == 5);
  // The rent price moves the saving most: 36 x 512 x 730.5 x 3 x 0.4.
  CHECK(rows[0].input == "rent.reserved_usd_per_gpu_hour");
  CHECK(rows[0].saving_high - rows[0].saving_low == doctest::Approx(36 * 512 * 730.5 * 3.0 * 0.4));
  CHECK(rows[1].input == "build.server_usd");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(std::abs(rows[i].saving_high - rows[i].saving_low) <= std::abs(rows[i - 1].saving_high - rows[i - 1].saving_low));
  }
}

TEST_CASE("tco: missing prices name the field") {
  CostSpec cost{};
  REQUIRE(find_cost_problem(cost));
  CHECK(find_cost_problem(cost)->field == "cost.build.server_usd");
  cost.build.server_usd = 1;
  CHECK(find_cost_problem(cost)->field == "cost.rent.on_demand_usd_per_gpu_hour");
  cost.rent.spot_usd_per_gpu_hour = 1;
  CHECK_FALSE(find_cost_problem(cost));
}

}  // namespace
}  // namespace clustersim::models
