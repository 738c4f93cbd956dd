#include "scenarios/sweep_configs.hpp"

#include <doctest/doctest.h>

#include <string>

#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"

namespace clustersim::scenarios {
namespace {

std::string error_of(const std::string& sets_value) {
  try {
    default_scenario({"sweep.configs=" + sets_value});
  } catch (const ScenarioError& e) {
    return std::string(e.pointer()) + ": " + e.rule();
  }
  return "";
}

TEST_CASE("sweep configs: a scenario's sweep.configs is read, checked key by key, and written back") {
  const Scenario s = default_scenario(
      {R"(sweep.configs=[{"name": "a", "parallelism": {"tp": 4}}, {"name": "b", "training": {"recompute": "full"}}])"});
  REQUIRE(s.sweep.configs.size() == 2);
  CHECK(s.sweep.configs[0].name == "a");
  CHECK(s.sweep.configs[1].name == "b");
  // The normalised scenario carries the configs and reloads to the same scenario.
  CHECK(load_scenario_text(to_json(s), "normalised") == s);
  CHECK(default_scenario().sweep.configs.empty());
}

TEST_CASE("sweep configs: mistakes name the JSON pointer inside the array") {
  CHECK(error_of(R"([{"name": "a", "parallelism": {"tpp": 4}}])").starts_with("/sweep/configs/0/parallelism/tpp: unknown key"));
  CHECK(error_of(R"([{"name": "a"}, {"parallelism": {"tp": 4}}])") == "/sweep/configs/1/name: required");
  CHECK(error_of(R"([{"name": "a", "parallelism": {"tp": "8"}}])") ==
        "/sweep/configs/0/parallelism/tp: must be an integer in 1..1048576, got \"8\"");
  CHECK(error_of(R"([{"name": "a", "training": {"recompute": "some"}}])") ==
        "/sweep/configs/0/training/recompute: must be one of none|selective|full|op, got \"some\"");
  CHECK(error_of(R"([{"name": "a"}, {"name": "a"}])") == "/sweep/configs/1/name: \"a\" names an earlier config too");
  CHECK(error_of(R"([{"name": "a", "cluster": {}}])").starts_with("/sweep/configs/0/cluster: unknown key"));
  CHECK(error_of(R"({"name": "a"})") == "/sweep/configs: must be an array, got {\"name\":\"a\"}");
}

TEST_CASE("sweep configs: a config changes only its keys and dp follows the GPU count") {
  // The default scenario is TP8 PP4 DP8 on 256 GPUs with SP. "tp": 4 alone keeps pp = 4 and
  // derives dp = 256 / (4 x 4) = 16; SP stays on.
  const Scenario base = default_scenario();
  const Scenario s = apply_sweep_config(base, {.name = "tp4", .overrides_json = R"({"parallelism":{"tp":4}})"});
  CHECK(s.parallelism.tp == 4);
  CHECK(s.parallelism.pp == 4);
  CHECK(s.parallelism.dp == 16);
  CHECK(s.parallelism.sp);
  CHECK(s.model == base.model);
  CHECK(s.cluster == base.cluster);
  // An explicit dp is kept, and then must add up.
  CHECK_THROWS_WITH_AS(
      apply_sweep_config(base, {.name = "bad", .overrides_json = R"({"parallelism":{"tp":4,"dp":8}})"}),
      "sweep config \"bad\": /parallelism: tp*pp*dp*cp = 4*4*8*1 = 128 must equal cluster.num_gpus=256",
      ScenarioError);
}

TEST_CASE("sweep configs: a config that turns torch.compile on or off derives the loss's kernel again") {
  // torchtitan's loss is eager unless torch.compile (elementwise fused) compiles it with the model.
  const Scenario eager = default_scenario({"training.framework=torchtitan"});
  REQUIRE(eager.training.elementwise == models::ElementwiseKernels::eager);
  REQUIRE(eager.training.cross_entropy == models::CrossEntropyKernel::eager);
  const Scenario compiled =
      apply_sweep_config(eager, {.name = "compile", .overrides_json = R"({"training":{"elementwise":"fused"}})"});
  CHECK(compiled.training.cross_entropy == models::CrossEntropyKernel::fused);
  // A config that names the kernel keeps it.
  const Scenario named = apply_sweep_config(
      eager, {.name = "named", .overrides_json = R"({"training":{"elementwise":"fused","cross_entropy":"eager"}})"});
  CHECK(named.training.cross_entropy == models::CrossEntropyKernel::eager);
  // A config that changes neither keeps the base's.
  const Scenario other = apply_sweep_config(eager, {.name = "mb2", .overrides_json = R"({"training":{"micro_batch":2}})"});
  CHECK(other.training.cross_entropy == models::CrossEntropyKernel::eager);
}

TEST_CASE("sweep configs: the seed file's twelve layouts load and all are valid") {
  const Scenario s = load_scenario_file(std::string(CLUSTERSIM_SOURCE_DIR) + "/scenarios/seed/twelve-layouts.json");
  REQUIRE(s.sweep.configs.size() == 12);
  for (const auto& config : s.sweep.configs) {
    CAPTURE(config.name);
    const Scenario applied = apply_sweep_config(s, config);
    CHECK(applied.parallelism.tp * applied.parallelism.pp * applied.parallelism.dp == 256);
  }
  // The interleaved one: 80 layers in 4 stages x 5 chunks of 4 layers.
  const Scenario vp5 = apply_sweep_config(s, s.sweep.configs[5]);
  CHECK(vp5.parallelism.vp == 5);
  CHECK(vp5.training.schedule == models::Schedule::interleaved);
}

}  // namespace
}  // namespace clustersim::scenarios
