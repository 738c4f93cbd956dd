// `clustersim plan` through the built binary, checked against its own option list by rules
// computed here: Pareto optimality, the deadline and the budget.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "handoff/frameworks/megatron_lm_rules.hpp"
#include "handoff/import/megatron_lm_script.hpp"
#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

// Llama 3 8B on 16 to 64 H100 or A100: small enough to plan in a few seconds.
constexpr const char* kPlan =
    "plan --quiet --json --set model.preset=llama3-8b --set cluster.num_gpus=32 --set parallelism.tp=8 "
    "--set parallelism.pp=1 --set parallelism.dp=4 --set training.seq_len=2048 --set training.global_batch=64 "
    "--set training.tokens=2e10 --gpus a100-80gb,h100-sxm --min-gpus 16 --max-gpus 64";

nlohmann::json plan(const std::string& extra) {
  const Outcome outcome = run_clustersim(std::string(kPlan) + " " + extra);
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  return nlohmann::json::parse(outcome.out);  // exactly one object
}

// The front and the choice take each option at the slow end of its band.
double slow_days(const nlohmann::json& option) { return option.at("days_band").at(1).get<double>(); }
double slow_cost(const nlohmann::json& option) { return option.at("cost_usd_band").at(1).get<double>(); }

TEST_CASE("plan: the front is exactly the options no other beats on time and cost at their slow ends") {
  const auto j = plan("--deadline-days 10");
  const auto& options = j.at("options");
  // 2 GPU types x {16, 24, 32, 48, 64} GPUs x 3 topologies.
  CHECK(options.size() == 2 * 5 * 3);
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < options.size(); ++i) {
    bool beaten = false;
    for (std::size_t k = 0; k < options.size(); ++k) {
      const double di = slow_days(options[i]), ci = slow_cost(options[i]);
      const double dk = slow_days(options[k]), ck = slow_cost(options[k]);
      if (k != i && dk <= di && ck <= ci && (dk < di || ck < ci || k < i)) beaten = true;
    }
    CHECK(options[i].at("on_front").get<bool>() == !beaten);
    if (!beaten) front.push_back(i);
  }
  auto listed = j.at("front").get<std::vector<std::size_t>>();
  std::sort(listed.begin(), listed.end());
  CHECK(listed == front);
  // Days and cost follow from the step time, the tokens and the price.
  for (const auto& o : options) {
    const double hours = 2e10 / o.at("tokens_per_s").get<double>() / 3600.0;
    CHECK(o.at("days").get<double>() == doctest::Approx(hours / 24.0));
    CHECK(o.at("cost_usd").get<double>() ==
          doctest::Approx(hours * o.at("gpus").get<double>() * o.at("usd_per_gpu_hour").get<double>()));
    // Their bands are the step time's, scaled.
    const double slow = o.at("step_time_band_s").at(1).get<double>() / o.at("step_time_s").get<double>();
    CHECK(slow_days(o) == doctest::Approx(o.at("days").get<double>() * slow));
    CHECK(slow_cost(o) == doctest::Approx(o.at("cost_usd").get<double>() * slow));
  }
}

TEST_CASE("plan: the choice is the cheapest option within the deadline at their slow ends, with its Megatron-LM launch") {
  const auto j = plan("--deadline-days 10");
  const auto& options = j.at("options");
  std::optional<std::size_t> cheapest;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (slow_days(options[i]) > 10.0) continue;
    if (!cheapest || slow_cost(options[i]) < slow_cost(options[*cheapest])) {
      cheapest = i;
    }
  }
  REQUIRE(cheapest.has_value());
  REQUIRE(j.at("chosen").is_object());
  CHECK(j.at("chosen").at("option").get<std::size_t>() == *cheapest);
  const auto& layout = options[*cheapest].at("layout");
  const auto& launch = j.at("chosen").at("export");
  CHECK(launch.at("framework") == "megatron-lm");
  const auto script = launch.at("files").at(0).at("content").get<std::string>();
  CHECK(script.find("--tensor-model-parallel-size " + std::to_string(layout.at("tp").get<int>()) + " ") != std::string::npos);
  CHECK(script.find("--pipeline-model-parallel-size " + std::to_string(layout.at("pp").get<int>()) + " ") != std::string::npos);
  CHECK(script.find("--global-batch-size 64 ") != std::string::npos);
  // The complete launch: the model's flags (Llama 3 8B), torchrun's node count, and Megatron-LM's
  // rules met when the script is read back.
  CHECK(script.find("--num-layers 32 \\\n  --hidden-size 4096 \\") != std::string::npos);
  CHECK(script.find("torchrun --nnodes " + std::to_string(options[*cheapest].at("gpus").get<int>() / 8) +
                    " --nproc-per-node 8 ") != std::string::npos);
  CHECK(launch.at("runs_as_given") == true);
  CHECK(handoff::megatron_lm_breaches(handoff::read_megatron_script(script).arguments).empty());
}

TEST_CASE("plan: with a deadline nothing meets there is no choice, and a budget picks the fastest") {
  CHECK(plan("--deadline-days 0.001").at("chosen").is_null());
  const auto j = plan("--budget-usd 1e9");
  const auto& options = j.at("options");
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < options.size(); ++i) {
    if (slow_days(options[i]) < slow_days(options[fastest])) fastest = i;
  }
  CHECK(j.at("chosen").at("option").get<std::size_t>() == fastest);
}

TEST_CASE("plan: a price given on the command line is used") {
  const auto j = plan("--price h100-sxm=10 --topologies rail_optimized");
  CHECK(j.at("prices").at("h100-sxm").at("usd").get<double>() == 10.0);
  for (const auto& o : j.at("options")) {
    if (o.at("gpu") == "h100-sxm") CHECK(o.at("usd_per_gpu_hour").get<double>() == 10.0);
  }
}

// FP8 on a plan that also searches the A100: its tensor cores have no fp8, so it has no option,
// and the text says why rather than that the model fits nowhere.
TEST_CASE("plan: a GPU type without the scenario's precision says so") {
  std::string command = kPlan;
  command.replace(command.find("--json "), 7, "");
  const Outcome outcome =
      run_clustersim(command + " --set training.precision=fp8 --topologies rail_optimized --deadline-days 365");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out.find("  a100-80gb  has no fp8 tensor cores (training.precision)\n") != std::string::npos);
  CHECK(outcome.out.find("  h100-sxm   ") != std::string::npos);
}

TEST_CASE("plan: bad command lines fail cleanly") {
  check_fails_cleanly(run_clustersim("plan --gpus nonexistent"), "unknown GPU");
  check_fails_cleanly(run_clustersim("plan --pricing lease"), "--pricing");
  check_fails_cleanly(run_clustersim("plan --price h100-sxm=free"), "--price: must be GPU=USD");
  check_fails_cleanly(run_clustersim("plan --topologies ring"), "unknown topology");
  // A precision no GPU type searched has: the reason, not "raise --max-gpus".
  check_fails_cleanly(run_clustersim("plan --gpus a100-80gb --min-gpus 64 --max-gpus 64 --set training.precision=fp8"),
                      "training.precision fp8: none of the GPU types searched (a100-80gb) has fp8 tensor cores");
}

// The plan replaces the scenario's cluster and layout: the default scenario's H100 need not run
// nvfp4 for a plan over Blackwell racks.
TEST_CASE("plan: the scenario's own GPU need not run the precision the GPU types searched do") {
  const Outcome outcome = run_clustersim(
      "plan --quiet --json --set model.preset=llama3-8b --set training.seq_len=2048 --set training.global_batch=64 "
      "--set training.tokens=2e10 --set training.precision=nvfp4 --gpus gb200 --min-gpus 72 --max-gpus 72 "
      "--topologies rail_optimized");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const auto j = nlohmann::json::parse(outcome.out);
  REQUIRE(!j.at("options").empty());
  for (const auto& o : j.at("options")) CHECK(o.at("gpu") == "gb200");
}

}  // namespace
}  // namespace clustersim::test
