// `clustersim run` with the flow fidelity: the busiest-links report, failed links, and the errors
// that name the rule when the analytic fidelity is asked for what only flows can show.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace {

using clustersim::test::check_fails_cleanly;
using clustersim::test::run_clustersim;

// The default scenario cut to 4 nodes (Llama 3 8B, TP 8 x PP 2 x DP 2) so that each run is quick.
const std::string small = "--set model.preset=llama3-8b --set cluster.num_gpus=32 --set parallelism.pp=2 --set parallelism.dp=2 "
                          "--set training.global_batch=64 ";

TEST_CASE("flow cli: run --links lists the busiest links with what crossed them") {
  const auto outcome = run_clustersim("run " + small + "--set simulation.fidelity=flow --links 4 --json");
  REQUIRE(outcome.exit_code == 0);
  const auto j = nlohmann::json::parse(outcome.out);
  CHECK(j.at("fidelity") == "flow");
  const auto& links = j.at("links");
  REQUIRE(links.size() == 4);
  for (std::size_t i = 0; i < links.size(); ++i) {
    CAPTURE(links[i].dump());
    CHECK(links[i].at("bytes").get<double>() > 0.0);
    CHECK(links[i].at("utilisation").get<double>() > 0.0);
    CHECK(links[i].at("utilisation").get<double>() <= 1.0);
    CHECK(!links[i].at("kinds").empty());
    if (i > 0) CHECK(links[i].at("bytes").get<double>() <= links[i - 1].at("bytes").get<double>());
  }
  const auto text = run_clustersim("run " + small + "--set simulation.fidelity=flow --links 2");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("busiest links (2)") != std::string::npos);
  CHECK(text.out.find("communication: flow fidelity") != std::string::npos);
}

TEST_CASE("flow cli: a failed link is reported and never makes the step faster") {
  const auto intact = run_clustersim("run " + small + "--set simulation.fidelity=flow --json");
  const auto failed = run_clustersim("run " + small +
                                     "--set simulation.fidelity=flow --set cluster.failed_links=3 --json");
  REQUIRE(intact.exit_code == 0);
  REQUIRE(failed.exit_code == 0);
  const auto a = nlohmann::json::parse(intact.out), b = nlohmann::json::parse(failed.out);
  CHECK(a.at("failed_links").empty());
  CHECK(b.at("failed_links").size() == 3);
  CHECK(b.at("step_time_s").get<double>() >= a.at("step_time_s").get<double>());
}

TEST_CASE("flow cli: what only flows can show is an error with the analytic fidelity") {
  check_fails_cleanly(run_clustersim("run --links 3"),
                      "--links: needs simulation.fidelity \"flow\" (the analytic fidelity puts no traffic on links)");
  check_fails_cleanly(run_clustersim("run --set cluster.failed_links=1"),
                      "default scenario: /cluster/failed_links: failed links need simulation.fidelity \"flow\"");
  check_fails_cleanly(run_clustersim("run " + small + "--set simulation.fidelity=flow --set cluster.failed_link_names=x"),
                      "default scenario: /cluster/failed_link_names: no link 'x' in the rail_optimized network");
  check_fails_cleanly(run_clustersim("run " + small + "--set simulation.fidelity=flow --set cluster.failed_links=999"),
                      "/cluster/failed_links: fail_random_links: 999 requested but tier leaf_spine has");
}

}  // namespace
