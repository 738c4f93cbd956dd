// `clustersim compare` end to end: a real MLLOG excerpt against the published run's scenario, an
// nccl-tests log against `clustersim collective`, and a file that is no log.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

TEST_CASE("compare cli: MLLOG step time and nccl-tests busbw, as JSON") {
  const Outcome o = run_clustersim(
      "compare tests/handoff/data/mlperf41_gpt3_eos_n32_result_0_excerpt.txt --run mlperf41-gpt3-175b-eos-256 --json");
  REQUIRE(o.exit_code == 0);
  const auto j = nlohmann::json::parse(o.out);
  REQUIRE(j["step_logs"].size() == 1);
  const auto& s = j["step_logs"][0];
  CHECK(s["format"] == "MLPerf MLLOG");
  CHECK(s["steps_used"] == 8);
  CHECK(s["measured_step_time_s"]["median"].get<double>() ==
        doctest::Approx((18.366836547851562 + 18.367719650268555) / 2).epsilon(1e-12));
  const double predicted = j["predicted"]["step_time_s"].get<double>();
  CHECK(s["relative_error"].get<double>() == doctest::Approx(predicted / s["measured_step_time_s"]["median"].get<double>() - 1));

  // The predicted busbw of each row is `clustersim collective`'s at that size.
  const Outcome n = run_clustersim(
      "compare tests/calibration/data/h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt --json");
  REQUIRE(n.exit_code == 0);
  const auto rows = nlohmann::json::parse(n.out)["nccl_tests_logs"][0]["rows"];
  REQUIRE(rows.size() == 32);
  const Outcome c = run_clustersim("collective --nodes 2 --min 1G --max 1G --json");
  REQUIRE(c.exit_code == 0);
  const auto one = nlohmann::json::parse(c.out);
  CHECK(rows[27]["size_bytes"] == 1073741824);
  CHECK(rows[27]["measured_busbw_gbps"].get<double>() == doctest::Approx(450.37));
  CHECK(rows[27]["predicted_busbw_gbps"].get<double>() == doctest::Approx(one["rows"][0]["busbw_gbps"].get<double>()));
}

TEST_CASE("compare cli: a file that is no log fails with its name and line") {
  const Outcome o = run_clustersim("compare CMakeLists.txt README.md");
  check_fails_cleanly(o, "CMakeLists.txt:1: not a log clustersim reads");
  check_fails_cleanly(run_clustersim("compare README.md"), "README.md:1: not a log clustersim reads");
  check_fails_cleanly(run_clustersim("compare"), "no LOG given");
  check_fails_cleanly(run_clustersim("compare tests/handoff/data/nemo2_bionemo_pr740_excerpt.txt "
                                     "tests/handoff/data/nemo2_bionemo_pr740_excerpt.txt"),
                      "is given twice");
  check_fails_cleanly(run_clustersim("compare tests/handoff/data/nemo2_bionemo_pr740_excerpt.txt --warmup-steps 200"),
                      "lower --warmup-steps");
}

}  // namespace
}  // namespace clustersim::test
