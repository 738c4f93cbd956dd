// Each Megatron-LM rule fires on arguments that break it, and holds on an export that meets it.
#include "handoff/frameworks/megatron_lm_rules.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "handoff/export/launch_config.hpp"
#include "handoff/import/megatron_lm_script.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::megatron_lm_rules_test {
namespace {

// The exported script of the seed layout named, read back.
MegatronArguments exported(const std::string& name) {
  for (const auto& l : layouts_under_test::twelve_layouts()) {
    if (l.name != name) continue;
    const LaunchConfig c = export_launch(Framework::megatron_lm, l.scenario.model, l.scenario.cluster, l.layout);
    REQUIRE(c.files.size() == 1);
    return read_megatron_script(c.files[0].content).arguments;
  }
  FAIL("no seed layout " << name);
  return {};
}

void set(MegatronArguments& a, const std::string& flag, const std::string& value = "") {
  for (auto& f : a.flags)
    if (f.first == flag) {
      f.second = value;
      return;
    }
  a.flags.emplace_back(flag, value);
}
void drop(MegatronArguments& a, const std::string& flag) {
  std::erase_if(a.flags, [&](const auto& f) { return f.first == flag; });
}

std::set<std::string> broken(const MegatronArguments& a) {
  std::set<std::string> ids;
  for (const RuleBreach& b : megatron_lm_breaches(a)) ids.insert(b.rule);
  return ids;
}

struct Case {
  std::string rule;
  std::string base;  // "dense" (TP8 PP4 DP8 SP, distributed optimizer), "fsdp2" (the ZeRO-3 layout)
  std::function<void(MegatronArguments&)> breaks;
};

TEST_CASE("megatron-lm rules: every rule fires on arguments that break it, and holds on the exports it starts from") {
  const MegatronArguments dense = exported("TP8 PP4 DP8 SP");
  const MegatronArguments fsdp2 = exported("TP8 PP1 DP32 ZeRO-3");
  REQUIRE(broken(dense).empty());
  REQUIRE(broken(fsdp2).empty());
  REQUIRE(fsdp2.has("--use-torch-fsdp2"));
  MegatronArguments mfsdp = fsdp2;  // Megatron-FSDP's form of the same layout
  drop(mfsdp, "--use-torch-fsdp2");
  drop(mfsdp, "--no-gradient-accumulation-fusion");
  set(mfsdp, "--use-megatron-fsdp");
  set(mfsdp, "--data-parallel-sharding-strategy", "optim_grads_params");
  set(mfsdp, "--ckpt-format", "fsdp_dtensor");
  REQUIRE(broken(mfsdp).empty());

  const std::vector<Case> cases{
      {"required-model-arguments", "dense", [](auto& a) { drop(a, "--max-position-embeddings"); }},
      {"world-size-divisible", "dense", [](auto& a) { a.world_size = 250; }},
      {"global-batch-divisible", "dense", [](auto& a) { set(a, "--global-batch-size", "1001"); }},
      {"one-virtual-pipeline-option", "dense",
       [](auto& a) {
         set(a, "--num-layers-per-virtual-pipeline-stage", "4");
         set(a, "--num-virtual-stages-per-pipeline-rank", "5");
       }},
      {"virtual-stage-size-even-only", "dense",
       [](auto& a) {
         set(a, "--num-layers-per-virtual-pipeline-stage", "4");
         set(a, "--decoder-first-pipeline-num-layers", "20");
       }},
      {"layers-divisible-by-pipeline", "dense", [](auto& a) { set(a, "--num-layers", "81"); }},
      {"virtual-stage-divides-stage", "dense", [](auto& a) { set(a, "--num-layers-per-virtual-pipeline-stage", "3"); }},
      {"uneven-split-stages", "dense", [](auto& a) { set(a, "--decoder-first-pipeline-num-layers", "19"); }},
      {"layout-excludes-other-splits", "dense",
       [](auto& a) {
         set(a, "--pipeline-model-parallel-layout", "Et*20|t*20|t*20|t*20L");
         set(a, "--decoder-first-pipeline-num-layers", "20");
       }},
      {"layout-stages", "dense", [](auto& a) { set(a, "--pipeline-model-parallel-layout", "Et*20|t*20|t*20|t*19L"); }},
      {"hierarchical-context-parallel", "dense", [](auto& a) { set(a, "--cp-comm-type", "a2a+p2p"); }},
      {"interleaving-needs-pipeline", "dense",
       [](auto& a) {
         set(a, "--pipeline-model-parallel-size", "1");
         set(a, "--num-virtual-stages-per-pipeline-rank", "2");
       }},
      {"interleaved-microbatch-groups", "dense",
       [](auto& a) {
         set(a, "--num-layers-per-virtual-pipeline-stage", "4");
         set(a, "--global-batch-size", "48");  // 6 micro-batches of DP 8: not a multiple of PP 4
       }},
      {"heads-divisible-by-tp", "dense", [](auto& a) { set(a, "--num-attention-heads", "60"); }},
      {"query-groups-and-tp", "dense", [](auto& a) { set(a, "--num-query-groups", "12"); }},
      {"head-width-given", "dense", [](auto& a) { set(a, "--num-attention-heads", "48"); }},
      {"latent-attention-not-grouped", "dense", [](auto& a) { set(a, "--multi-latent-attention"); }},
      {"positions-cover-sequence", "dense", [](auto& a) { set(a, "--max-position-embeddings", "2048"); }},
      {"context-parallel-sequence", "dense",
       [](auto& a) {
         set(a, "--context-parallel-size", "2");
         set(a, "--seq-length", "4098");
         set(a, "--max-position-embeddings", "4098");
       }},
      {"sequence-parallel-needs-tp", "dense", [](auto& a) { set(a, "--tensor-model-parallel-size", "1"); }},
      {"tp-comm-overlap-needs-sp", "dense",
       [](auto& a) {
         drop(a, "--sequence-parallel");
         set(a, "--tp-comm-overlap");
       }},
      {"selective-recompute-has-no-method", "dense", [](auto& a) { set(a, "--recompute-method", "uniform"); }},
      {"full-recompute-settings", "dense", [](auto& a) { set(a, "--recompute-granularity", "full"); }},
      {"expert-overlap-conditions", "dense", [](auto& a) { set(a, "--overlap-moe-expert-parallel-comm"); }},
      {"overlap-param-gather-needs-sharding", "dense", [](auto& a) { drop(a, "--use-distributed-optimizer"); }},
      {"fsdp2-no-pipeline", "fsdp2", [](auto& a) { set(a, "--pipeline-model-parallel-size", "2"); }},
      {"fsdp2-no-expert-parallel", "fsdp2",
       [](auto& a) {
         set(a, "--num-experts", "8");
         set(a, "--expert-model-parallel-size", "2");
       }},
      {"fsdp2-no-distributed-optimizer", "fsdp2", [](auto& a) { set(a, "--use-distributed-optimizer"); }},
      {"fsdp2-no-gradient-accumulation-fusion", "fsdp2", [](auto& a) { drop(a, "--no-gradient-accumulation-fusion"); }},
      {"fsdp2-untied-embeddings", "fsdp2", [](auto& a) { drop(a, "--untie-embeddings-and-output-weights"); }},
      {"fsdp2-checkpoint-format", "fsdp2", [](auto& a) { set(a, "--ckpt-format", "torch"); }},
      {"fsdp-one-implementation", "fsdp2", [](auto& a) { set(a, "--use-megatron-fsdp"); }},
      {"megatron-fsdp-checkpoint-format", "mfsdp", [](auto& a) { set(a, "--ckpt-format", "torch_dist"); }},
      {"fsdp-dtensor-needs-megatron-fsdp", "dense", [](auto& a) { set(a, "--ckpt-format", "fsdp_dtensor"); }},
      {"megatron-fsdp-sharding-strategy", "mfsdp",
       [](auto& a) { set(a, "--data-parallel-sharding-strategy", "zero3"); }},
      {"fsdp-device-connections", "fsdp2", [](auto& a) { a.env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"; }},
      {"model-parallel-device-connections", "dense", [](auto& a) { a.env.clear(); }},
      {"expert-parallel-needs-experts", "dense", [](auto& a) { set(a, "--expert-model-parallel-size", "2"); }},
      {"cuda-graph-one-flag", "dense",
       [](auto& a) {
         set(a, "--enable-cuda-graph");
         set(a, "--cuda-graph-impl", "local");
       }},
      {"fp8-param-gather-needs-sharding", "dense",
       [](auto& a) {
         set(a, "--fp8-param-gather");
         drop(a, "--use-distributed-optimizer");
         drop(a, "--overlap-param-gather");
       }},
      {"defer-embedding-wgrad-needs-pipeline", "dense",
       [](auto& a) {
         set(a, "--defer-embedding-wgrad-compute");
         set(a, "--no-gradient-accumulation-fusion");
       }},
      {"defer-embedding-wgrad-needs-pipeline", "fsdp2", [](auto& a) { set(a, "--defer-embedding-wgrad-compute"); }},
      {"one-half-precision", "dense", [](auto& a) { set(a, "--fp16"); }},
      {"fp8-format-known", "dense", [](auto& a) { set(a, "--fp8-format", "e5m2"); }},
      {"router-padding-needs-low-precision", "dense",
       [](auto& a) { set(a, "--moe-router-padding-for-quantization"); }},
  };
  std::set<std::string> covered;
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    MegatronArguments a = c.base == "fsdp2" ? fsdp2 : c.base == "mfsdp" ? mfsdp : dense;
    c.breaks(a);
    CHECK(broken(a).contains(c.rule));
    covered.insert(c.rule);
  }
  for (const MegatronRule& rule : megatron_lm_rules()) {
    CAPTURE(rule.id);
    CHECK(covered.contains(std::string(rule.id)));  // every rule is shown to fire
  }
}

TEST_CASE("megatron-lm rules: a breach names its rule, the source file at the commit, and the alternative offered") {
  MegatronArguments a = exported("TP8 PP1 DP32 ZeRO-3");
  set(a, "--pipeline-model-parallel-size", "2");
  const auto breaches = megatron_lm_breaches(a);
  REQUIRE(breaches.size() == 1);
  CHECK(breaches[0].rule == "fsdp2-no-pipeline");
  CHECK(breaches[0].source == "megatron/training/arguments.py @d98e8a6");
  CHECK(breaches[0].alternative.find("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params") !=
        std::string::npos);
}

TEST_CASE("megatron-lm rules: a pipeline layout string expands as Megatron-LM's parser does") {
  // The example of megatron/core/transformer/pipeline_parallel_layer_layout.py's docstring.
  const auto stages = pipeline_layout_stages("Ettt|(tt|)*29,m|L");
  REQUIRE(stages.size() == 32);
  CHECK(stages.front() == "Ettt");
  CHECK(stages[1] == "tt");
  CHECK(stages[29] == "tt");
  CHECK(stages[30] == "m");
  CHECK(stages[31] == "L");
  CHECK(pipeline_layout_stages("Et*3|t*4L") == std::vector<std::string>{"Ettt", "ttttL"});
  CHECK_THROWS_AS(pipeline_layout_stages("Ex"), std::invalid_argument);
  // A count that would unroll past any model's layers is refused before it is unrolled (the
  // second would take 64 GiB as a string).
  CHECK_THROWS_WITH_AS(pipeline_layout_stages("Et*99999999999999999999|L"), doctest::Contains("unrolls past 100000 layers"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(pipeline_layout_stages("E|(tttttttt|)*8589934592,L"), doctest::Contains("unrolls past 100000 layers"),
                       std::invalid_argument);
}

}  // namespace
}  // namespace clustersim::handoff::megatron_lm_rules_test
