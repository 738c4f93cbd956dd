#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "calibration/nccl_tests_log.hpp"
#include "tests/tools/cli_runner.hpp"

namespace {

using clustersim::test::run_clustersim;
using nlohmann::json;

TEST_CASE("collective: one row per size in nccl-tests' units, times by hand for a ring all-gather") {
  const auto outcome = run_clustersim("collective --op all_gather --min 1M --max 1G --factor 4 --json --set calibration.profile=built-in");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json j = json::parse(outcome.out);
  CHECK(j.at("op") == "all_gather");
  CHECK(j.at("ranks") == 8);
  const json& rows = j.at("rows");
  REQUIRE(rows.size() == 6);  // 1M, 4M, 16M, 64M, 256M, 1G
  const json& last = rows.back();
  CHECK(last.at("size_bytes") == 1073741824);
  CHECK(last.at("count") == 1073741824 / 4 / 8);  // floats per rank, as all_gather_perf prints
  // Built-in H100 constants: launch 8 us + 7 ring steps x 0.4 us, NCCL's Simple protocol 4.8 us +
  // 7 x 2.93 us more, then 7/8 of 1 GiB at 0.82 x 450 GB/s: 36.11 + 939524096 / 369e9 x 1e6 = 2582.2 us.
  CHECK(last.at("time_us").get<double>() == doctest::Approx(36.11 + 939524096.0 / 369e9 * 1e6).epsilon(1e-9));
  CHECK(last.at("algbw_gbps").get<double>() == doctest::Approx(1073741824.0 / last.at("time_us").get<double>() / 1e3));
  CHECK(last.at("busbw_gbps").get<double>() == doctest::Approx(last.at("algbw_gbps").get<double>() * 7.0 / 8.0));
}

TEST_CASE("collective: the text is an nccl-tests table that the log reader takes back") {
  const auto outcome = run_clustersim("collective --nodes 2 --op all_reduce --min 1K --max 8G");
  REQUIRE(outcome.exit_code == 0);
  const auto log = clustersim::calibration::parse_nccl_tests_log(outcome.out, "prediction", std::nullopt);
  CHECK(log.op == clustersim::models::CollectiveOp::all_reduce);
  REQUIRE(log.rows.size() == 24);  // 1 KiB .. 8 GiB by factors of 2
  CHECK(log.rows.front().size_bytes == 1024);
  CHECK(log.rows.back().size_bytes == 8589934592);
  CHECK(outcome.out.find("# Avg bus bandwidth") != std::string::npos);
}

TEST_CASE("collective: bad options name the option and exit 2") {
  for (const char* args : {"--op broadcast", "--nodes 0", "--nodes 33", "--min 8G --max 1K", "--min 1X", "--factor 1"}) {
    CAPTURE(args);
    const auto outcome = run_clustersim(std::string("collective ") + args);
    CHECK(outcome.exit_code == 2);
    CHECK(outcome.out.empty());
    CHECK(outcome.err.find("collective: --") != std::string::npos);
  }
}

}  // namespace

namespace {

TEST_CASE("run: a fitted profile brackets the step time by its intervals") {
  const auto outcome = run_clustersim(
      "run --json --set cluster.gpu=h200-sxm --set calibration.profile=calibration/profiles/h200-measured.json");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json j = json::parse(outcome.out);
  const double step = j.at("step_time_s").get<double>();
  const json& band = j.at("step_time_band_s");
  CHECK(band.at("fast").get<double>() < step);
  CHECK(band.at("slow").get<double>() > step);
  // Without a profile there is no band.
  const auto plain = run_clustersim("run --json");
  CHECK_FALSE(json::parse(plain.out).contains("step_time_band_s"));
}

}  // namespace

namespace {

TEST_CASE("collective: the flow fidelity runs the calls on the network and agrees where nothing contends") {
  // The built-in line: the flow fidelity moves bytes on links and does not follow a profile's curves.
  const auto analytic = run_clustersim("collective --nodes 2 --min 1M --max 1G --factor 8 --json --set calibration.profile=built-in");
  const auto flow = run_clustersim(
      "collective --nodes 2 --min 1M --max 1G --factor 8 --json --set calibration.profile=built-in --set simulation.fidelity=flow");
  CAPTURE(flow.err);
  REQUIRE(flow.exit_code == 0);
  const json a = json::parse(analytic.out), f = json::parse(flow.out);
  CHECK(f.at("fidelity") == "flow");
  REQUIRE(a.at("rows").size() == f.at("rows").size());
  for (std::size_t i = 0; i < a.at("rows").size(); ++i) {
    CHECK(f.at("rows")[i].at("time_us").get<double>() ==
          doctest::Approx(a.at("rows")[i].at("time_us").get<double>()).epsilon(0.03));
  }
  // 16 nodes of all-to-all through 4:1 oversubscribed leaves: the analytic line holds each GPU to
  // its NIC; the flows also meet the leaves' uplinks, a quarter of the NICs below them.
  const std::string oversubscribed =
      "collective --nodes 16 --op alltoall --min 1G --max 1G --json --set cluster.topology=fat_tree "
      "--set cluster.oversubscription=4";
  const double analytic_busbw = json::parse(run_clustersim(oversubscribed).out).at("rows")[0].at("busbw_gbps").get<double>();
  const double flow_busbw = json::parse(run_clustersim(oversubscribed + " --set simulation.fidelity=flow").out)
                                .at("rows")[0].at("busbw_gbps").get<double>();
  CHECK(flow_busbw < analytic_busbw / 2.0);
}

}  // namespace
