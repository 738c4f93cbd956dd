// `sweep --search --flow-check N` (planning/search/flow_rerank.hpp): the first N rows of the
// analytic ranking re-simulated under the flow fidelity and ranked among themselves; the rows
// below as the analytic search ranks them.

#include <doctest/doctest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

// Llama 3 8B on 32 H100 behind 4:1 leaves: contention the analytic fidelity does not see.
constexpr const char* kFlowCheckSearch =
    "sweep --search --top 8 --set model.preset=llama3-8b --set cluster.num_gpus=32 --set training.global_batch=64 "
    "--set cluster.topology=fat_tree --set cluster.oversubscription=4 --json --quiet";

std::string layout_key(const nlohmann::json& row) { return row.at("name").get<std::string>(); }

TEST_CASE("sweep --flow-check: the first rows re-simulated under flow and ranked among themselves") {
  const Outcome analytic = run_clustersim(kFlowCheckSearch);
  const Outcome checked = run_clustersim(std::string(kFlowCheckSearch) + " --flow-check 4");
  CAPTURE(checked.err);
  REQUIRE(analytic.exit_code == 0);
  REQUIRE(checked.exit_code == 0);
  const auto a = nlohmann::json::parse(analytic.out).at("rows");
  const auto f = nlohmann::json::parse(checked.out);
  const auto& rows = f.at("rows");
  REQUIRE(a.size() == 8);
  REQUIRE(rows.size() == 8);
  CHECK(f.at("flow_check").at("rows") == 4);
  CHECK(f.at("flow_check").at("flow_runs") == 4);
  // The same four layouts first, each with its analytic step kept beside its flow step.
  std::map<std::string, double> analytic_step;
  for (std::size_t i = 0; i < 4; ++i) analytic_step[layout_key(a[i])] = a[i].at("step_time_s").get<double>();
  double last_slow_end = 0.0;
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    const auto& row = rows[i];
    REQUIRE(analytic_step.contains(layout_key(row)));
    CHECK(row.at("fidelity") == "flow");
    CHECK(row.at("analytic_step_time_s").get<double>() == analytic_step.at(layout_key(row)));
    const double slow_end = row.at("step_time_band_s")[1].get<double>();
    CHECK(slow_end >= last_slow_end);
    last_slow_end = slow_end;
  }
  // Below them, the analytic ranking as it was.
  for (std::size_t i = 4; i < 8; ++i) {
    CAPTURE(i);
    CHECK(rows[i].at("fidelity") == "analytic");
    CHECK(layout_key(rows[i]) == layout_key(a[i]));
    CHECK(rows[i].at("step_time_s") == a[i].at("step_time_s"));
  }
  check_fails_cleanly(run_clustersim("sweep --flow-check 3 --quiet"), "--flow-check needs --search");
  check_fails_cleanly(run_clustersim("sweep --search --flow-check 3 --shard 1/2 --quiet"), "not with --shard");
}

}  // namespace
}  // namespace clustersim::test
