// The reproducers of issue 22, item 10 and item 11's search trap, through the built binary: a
// --set of a preset or of the layout re-derives what followed from the value it replaced.

#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

TEST_CASE("cli: a printed scenario with another GPU preset runs with that GPU's figures") {
  const TempDir dir;
  const Outcome printed = run_clustersim("run --print-scenario");
  REQUIRE(printed.exit_code == 0);
  std::ofstream(dir / "s.json") << printed.out;
  const Outcome from_file = run_clustersim("run '" + dir / "s.json" + "' --set cluster.gpu=h200-sxm --json");
  const Outcome direct = run_clustersim("run --set cluster.gpu=h200-sxm --json");
  REQUIRE(from_file.exit_code == 0);
  REQUIRE(direct.exit_code == 0);
  CHECK(from_file.out == direct.out);
  CHECK(from_file.out != run_clustersim("run --json").out);  // the H200 changes the step
  // Printed again, the GPU section is the new preset alone, with nothing said on stderr.
  const Outcome h200 = run_clustersim("run '" + dir / "s.json" + "' --set cluster.gpu=h200-sxm --print-scenario");
  CAPTURE(h200.err);
  REQUIRE(h200.exit_code == 0);
  CHECK(h200.err.empty());
  CHECK(nlohmann::json::parse(h200.out).at("cluster").at("gpu") == nlohmann::json{{"preset", "h200-sxm"}});
}

TEST_CASE("cli: --set parallelism.tp=4 on the built-in scenario derives dp again") {
  const Outcome outcome = run_clustersim("run --set parallelism.tp=4");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out.find("TP 4 x PP 4 x DP 16") != std::string::npos);
}

TEST_CASE("cli: sweep --search does not fail on the scenario's own layout, which it replaces") {
  // 24 GPUs: the scenario's TP 8 x PP 4 cannot divide them; the search finds layouts that do.
  const Outcome outcome = run_clustersim(
      "sweep --search --top 1 --quiet --set model.preset=llama3-8b --set cluster.num_gpus=24 "
      "--set training.seq_len=2048 --set training.global_batch=48");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out.find("llama3-8b on 24 x h100-sxm") != std::string::npos);
  // run still checks the same scenario's own layout.
  check_fails_cleanly(run_clustersim("run --set model.preset=llama3-8b --set cluster.num_gpus=24"),
                      "/parallelism/dp: cannot derive dp");
  // With no valid layout at all, the scenario's own broken rule says why.
  check_fails_cleanly(run_clustersim("sweep --search --quiet --set cluster.num_gpus=12"),
                      "default scenario: /cluster/num_gpus: must be a multiple of gpus_per_node=8, got 12");
}

}  // namespace
}  // namespace clustersim::test
