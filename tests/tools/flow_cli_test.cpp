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
    if (i > 0) CHECK(links[i].at("utilisation").get<double>() <= links[i - 1].at("utilisation").get<double>());
  }
  const auto text = run_clustersim("run " + small + "--set simulation.fidelity=flow --links 2");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("busiest links (2)") != std::string::npos);
  CHECK(text.out.find("communication: flow fidelity") != std::string::npos);
}

TEST_CASE("flow cli: failed spine cables are routed around, traffic that never reaches a spine is untouched") {
  // 4 nodes in one scalable unit of the rail-optimized fat tree: every flow is rail-aligned (TP in
  // the node, DP and PP between same-rail GPUs through one leaf), so failing 3 leaf-spine cables
  // changes nothing; the report names them.
  const auto intact = run_clustersim("run " + small + "--set simulation.fidelity=flow --json");
  const auto failed = run_clustersim("run " + small +
                                     "--set simulation.fidelity=flow --set cluster.failed_links=3 --json");
  REQUIRE(intact.exit_code == 0);
  REQUIRE(failed.exit_code == 0);
  const auto a = nlohmann::json::parse(intact.out), b = nlohmann::json::parse(failed.out);
  CHECK(a.at("failed_links").empty());
  REQUIRE(b.at("failed_links").size() == 3);
  CHECK(b.at("failed_links")[0].get<std::string>().find("spine") != std::string::npos);
  CHECK(b.at("step_time_s").get<double>() == a.at("step_time_s").get<double>());
}

TEST_CASE("flow cli: the seed pair runs with and without its failed cable") {
  // scenarios/seed/failed-link-{fat-tree,dragonfly}.json: 256 H100, the busiest fabric cable of
  // each failed by name. The failure must be reported and the step stay within 5 % of intact (a
  // cable among 8 leaf-spine or 4 global ones per pair carries little of a TP-heavy step).
  for (const std::string topology : {"fat-tree", "dragonfly"}) {
    CAPTURE(topology);
    const std::string file = "scenarios/seed/failed-link-" + topology + ".json";
    const auto failed = run_clustersim("run " + file + " --json");
    const auto intact = run_clustersim("run " + file + " --set cluster.failed_link_names= --json");
    REQUIRE(failed.exit_code == 0);
    REQUIRE(intact.exit_code == 0);
    const auto f = nlohmann::json::parse(failed.out), i = nlohmann::json::parse(intact.out);
    CHECK(f.at("failed_links").size() == 1);
    CHECK(i.at("failed_links").empty());
    CHECK(f.at("step_time_s").get<double>() == doctest::Approx(i.at("step_time_s").get<double>()).scale(0).epsilon(0.05));
  }
}

TEST_CASE("flow cli: topo applies the scenario's failed links unless --fail-links is given") {
  const auto named = run_clustersim("topo scenarios/seed/failed-link-dragonfly.json --json");
  REQUIRE(named.exit_code == 0);
  const auto j = nlohmann::json::parse(named.out);
  CHECK(j.at("failed_links") == 1);
  CHECK(j.at("bisection_bytes_per_s").get<double>() <= j.at("bisection_intact_bytes_per_s").get<double>());
  const auto drawn = run_clustersim("topo scenarios/seed/failed-link-dragonfly.json --fail-links 3 --json");
  REQUIRE(drawn.exit_code == 0);
  CHECK(nlohmann::json::parse(drawn.out).at("failed_links") == 3);
  check_fails_cleanly(run_clustersim("topo --set simulation.fidelity=flow --set cluster.failed_link_names=nowhere"),
                      "default-llama3-70b-256xh100: /cluster/failed_link_names: no link 'nowhere'");
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
