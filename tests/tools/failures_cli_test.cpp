#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace {

using clustersim::test::check_fails_cleanly;
using clustersim::test::Outcome;

// From the source tree, so that seed scenario paths resolve.
Outcome clustersim(const std::string& arguments) { return clustersim::test::run_clustersim(arguments); }

TEST_CASE("failures cli: --json prints one object, the same for the same seed") {
  const Outcome a = clustersim("failures --runs 20 --seed 5 --json");
  REQUIRE(a.exit_code == 0);
  const auto report = nlohmann::json::parse(a.out);  // throws unless exactly one JSON value
  CHECK(report.at("runs") == 20);
  CHECK(report.at("seed") == 5);
  const auto& result = report.at("result");
  CHECK(result.at("goodput").get<double>() > 0.9);
  CHECK(result.at("goodput").get<double>() < 1.0);
  CHECK(result.at("time_to_train_days").at("p90") >= result.at("time_to_train_days").at("p50"));
  CHECK(result.at("lost_gpu_hours_per_run").contains("checkpoint"));
  CHECK(report.at("interval").at("daly_minutes").get<double>() > 0);
  CHECK(report.at("storage").size() == 6);  // nfs, lustre, local_nvme x 30, 60 min
  CHECK(clustersim("failures --runs 20 --seed 5 --json").out == a.out);
  CHECK(clustersim("failures --runs 20 --seed 6 --json").out != a.out);
}

TEST_CASE("failures cli: the checkpoints-70b seed compares NFS, Lustre and local NVMe every 30 and 60 min") {
  const Outcome o = clustersim("failures scenarios/seed/checkpoints-70b.json --runs 50");
  REQUIRE(o.exit_code == 0);
  CAPTURE(o.out);
  for (const char* row : {"nfs", "lustre", "local_nvme+nfs", "30 min", "60 min", "Young", "Daly", "best simulated"}) {
    CHECK(o.out.find(row) != std::string::npos);
  }
  const auto report = nlohmann::json::parse(clustersim("failures scenarios/seed/checkpoints-70b.json --runs 50 --json").out);
  // NFS stalls for minutes (0.99 TB at 2.5 GB/s), Lustre for seconds; NFS loses goodput for it.
  const auto& storage = report.at("storage");
  CHECK(storage[0].at("target") == "nfs");
  CHECK(storage[0].at("stall_s").get<double>() > 300.0);
  CHECK(storage[2].at("target") == "lustre");
  CHECK(storage[2].at("stall_s").get<double>() < 10.0);
  CHECK(storage[0].at("goodput").get<double>() < storage[2].at("goodput").get<double>());
  CHECK(storage[1].at("goodput").get<double>() > storage[0].at("goodput").get<double>());  // NFS: 60 beats 30 min
}

TEST_CASE("failures cli: bad input exits 2 naming the field") {
  check_fails_cleanly(clustersim("failures --set failures.gpu_per_1000_node_days=-1"),
                      "/failures/gpu_per_1000_node_days: must be a number in [0, 10000] 1/(1000 node-days), got -1");
  check_fails_cleanly(clustersim("failures --set checkpoint.interval_minutes=500000"),
                      "default scenario: /checkpoint/interval_minutes: 500000 min is longer than the failure-free run");
  check_fails_cleanly(clustersim("failures --set checkpoint.interval_minutes=1e9"),
                      "default scenario: /checkpoint/interval_minutes: must be a number in [0, 525600] min, got");
  check_fails_cleanly(clustersim("failures --set checkpoint.interval_steps=100"),
                      "/checkpoint/interval_minutes: give exactly one of interval_minutes and interval_steps");
  check_fails_cleanly(clustersim("failures --set checkpoint.target=local_nvme"),
                      "/checkpoint/second_target: a checkpoint only on local_nvme is lost with its node");
  check_fails_cleanly(clustersim("failures --runs 0"), "--runs: must be an integer in 1..100000");
  check_fails_cleanly(clustersim("failures --compare-intervals 30,x"), "--compare-intervals");
}

TEST_CASE("tco cli: the rent-vs-build seed prints the implied break-even and checks the 18-month claim") {
  const Outcome o = clustersim("tco scenarios/seed/rent-vs-build.json --runs 20");
  REQUIRE(o.exit_code == 0);
  CAPTURE(o.out);
  CHECK(o.out.find("it does not follow") != std::string::npos);
  const Outcome j = clustersim("tco scenarios/seed/rent-vs-build.json --runs 20 --json");
  REQUIRE(j.exit_code == 0);
  const auto report = nlohmann::json::parse(j.out);
  // Hand result: 6.2M / (rent per month - 120K), months of 608.75 used hours.
  const auto& rent = report.at("rent");
  CHECK(rent[0].at("option") == "on_demand");
  CHECK(rent[0].at("break_even_months").get<double>() == doctest::Approx(6.2e6 / (8000.0 * 608.75 - 120e3)));
  CHECK(rent[1].at("break_even_months").get<double>() == doctest::Approx(6.2e6 / (2400.0 * 608.75 - 120e3)));
  CHECK(report.at("claim").at("options")[1].at("follows") == false);
  CHECK(report.at("build").at("cumulative_usd").size() == 37);
  CHECK(report.at("sensitivity").size() <= 5);
  CHECK(report.at("training_run").at("build_usd_per_million_tokens").get<double>() > 0);
}

TEST_CASE("tco cli: missing prices exit 2 naming the field") {
  check_fails_cleanly(clustersim("tco"), "default scenario: /cost/build/server_usd: a price is required");
  check_fails_cleanly(clustersim("tco --set cost.build.server_usd=300000"),
                      "/cost/rent/on_demand_usd_per_gpu_hour: a price is required");
  check_fails_cleanly(clustersim("tco --set cost.rent.spot_usd_per_gpu_hour=-2"),
                      "/cost/rent/spot_usd_per_gpu_hour: must be a number in [0, 10000] USD/(GPU h)");
}

}  // namespace
