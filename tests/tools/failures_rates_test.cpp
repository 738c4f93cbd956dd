// The failures command across failure rates, from the robustness issue's reproducer: goodput
// never rises as GPUs fail more often, a job that cannot finish says so instead of printing a
// time-to-train, and every rate runs in a moment.

#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

nlohmann::json failures_at(const std::string& mtbf_hours) {
  const Outcome o = run_clustersim("failures --runs 20 --quiet --json --set failures.gpu_mtbf_hours=" + mtbf_hours);
  REQUIRE(o.exit_code == 0);
  return nlohmann::json::parse(o.out).at("result");
}

TEST_CASE("failures rates: goodput never rises as GPUs fail more often") {
  double previous = 1.0;
  for (const char* mtbf : {"10000", "1000", "100", "24", "1"}) {
    const auto result = failures_at(mtbf);
    const double goodput = result.at("goodput").get<double>();
    CAPTURE(mtbf);
    CAPTURE(goodput);
    CHECK(goodput <= previous);
    previous = goodput;
  }
  CHECK(previous < 0.001);
}

TEST_CASE("failures rates: a job that cannot finish has no time-to-train") {
  // gpu_mtbf_hours=1 on 32 nodes: an interruption every 1.9 min against a 10 min restart.
  const auto result = failures_at("1");
  CHECK(result.at("unfinished_runs") == 20);
  CHECK(result.at("unfinished_by_reason").at("too_many_failures") == 20);
  CHECK(result.at("time_to_train_days").at("mean").is_null());
  CHECK(result.at("time_to_train_days").at("p50").is_null());
  const Outcome text = run_clustersim("failures --runs 20 --quiet --set failures.gpu_mtbf_hours=1");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("WARNING: 20 of 20 runs do not finish within the horizon of 10x the failure-free time") !=
        std::string::npos);
  CHECK(text.out.find("Time-to-train  mean > ") != std::string::npos);
  // tco has no cost for such a run.
  check_fails_cleanly(run_clustersim("tco scenarios/seed/rent-vs-build.json --runs 5 --quiet --set failures.gpu_mtbf_hours=1"),
                      "tco: 5 of 5 runs do not finish within 10x the failure-free time");
}

}  // namespace
}  // namespace clustersim::test
