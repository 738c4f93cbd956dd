// Each Megatron-Bridge rule fires on overrides that break it, and holds on an export that meets it.
#include "handoff/frameworks/nemo_rules.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <set>

#include "handoff/export/launch_config.hpp"
#include "handoff/import/yaml_subset.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::nemo_rules_test {
namespace {

// The exported overrides.yaml of the seed layout named, read back, on its cluster.
NemoOverrides exported(const std::string& name) {
  for (const auto& l : layouts_under_test::twelve_layouts()) {
    if (l.name != name) continue;
    const LaunchConfig c = export_launch(Framework::nemo, l.scenario.model, l.scenario.cluster, l.layout);
    REQUIRE(c.files.size() == 2);
    REQUIRE(c.files[0].name == "overrides.yaml");
    return {.values = flatten_yaml(parse_yaml(c.files[0].content)), .world_size = l.scenario.cluster.num_gpus};
  }
  FAIL("no seed layout " << name);
  return {};
}

std::set<std::string> broken(const NemoOverrides& o) {
  std::set<std::string> ids;
  for (const RuleBreach& b : nemo_breaches(o)) ids.insert(b.rule);
  return ids;
}

struct Case {
  std::string rule;
  std::function<void(NemoOverrides&)> breaks;
};

TEST_CASE("nemo rules: every rule fires on overrides that break it, and holds on the export it starts from") {
  const NemoOverrides base = exported("TP8 PP4 DP8 SP");
  REQUIRE(broken(base).empty());
  const std::vector<Case> cases{
      {"world-size-divisible", [](auto& o) { o.world_size = 250; }},
      {"global-batch-divisible", [](auto& o) { o.set("train.global_batch_size", "1001"); }},
      {"sequence-lengths-agree", [](auto& o) { o.set("dataset.seq_length", "8192"); }},
      {"context-parallel-sequence",
       [](auto& o) {
         o.set("model.context_parallel_size", "2");
         o.set("model.seq_length", "4098");
         o.set("dataset.seq_length", "4098");
       }},
      {"heads-divisible-by-tp", [](auto& o) { o.set("model.num_attention_heads", "60"); }},
      {"query-groups-and-tp", [](auto& o) { o.set("model.num_query_groups", "12"); }},
      {"sequence-parallel-needs-tp", [](auto& o) { o.set("model.tensor_model_parallel_size", "1"); }},
      {"layers-divisible-by-pipeline", [](auto& o) { o.set("model.num_layers", "81"); }},
      {"uneven-split-stages", [](auto& o) { o.set("model.num_layers_in_first_pipeline_stage", "19"); }},
      {"layout-excludes-other-splits",
       [](auto& o) {
         o.set("model.pipeline_model_parallel_layout", "Et*20|t*20|t*20|t*20L");
         o.set("model.num_layers_in_last_pipeline_stage", "20");
       }},
      {"layout-stages", [](auto& o) { o.set("model.pipeline_model_parallel_layout", "Et*20|t*20|t*20|t*19L"); }},
      {"interleaved-microbatch-groups",
       [](auto& o) {
         o.set("model.virtual_pipeline_model_parallel_size", "5");
         o.set("train.global_batch_size", "48");  // 6 micro-batches of DP 8: not a multiple of PP 4
       }},
      {"recompute-settings", [](auto& o) { o.set("model.recompute_granularity", "full"); }},
      {"expert-parallel-needs-experts", [](auto& o) { o.set("model.expert_model_parallel_size", "2"); }},
      {"fsdp-one-implementation",
       [](auto& o) {
         o.set("dist.use_torch_fsdp2", "true");
         o.set("dist.use_megatron_fsdp", "true");
       }},
      {"megatron-fsdp-checkpoint-format", [](auto& o) { o.set("ddp.use_megatron_fsdp", "true"); }},
      {"fsdp-dtensor-needs-megatron-fsdp", [](auto& o) { o.set("checkpoint.ckpt_format", "fsdp_dtensor"); }},
      {"megatron-fsdp-sharding-strategy", [](auto& o) { o.set("ddp.data_parallel_sharding_strategy", "zero3"); }},
      {"distributed-optimizer-agrees", [](auto& o) { o.set("optimizer.use_distributed_optimizer", "false"); }},
      {"overlap-param-gather-agrees", [](auto& o) { o.set("optimizer.overlap_param_gather", "false"); }},
      {"mixed-precision-known", [](auto& o) { o.set("mixed_precision", "bf16_fast"); }},
      {"tp-comm-overlap-needs-tp-and-sp",
       [](auto& o) {
         o.set("comm_overlap.tp_comm_overlap", "true");
         o.set("model.sequence_parallel", "false");
       }},
      {"expert-overlap-conditions", [](auto& o) { o.set("comm_overlap.overlap_moe_expert_parallel_comm", "true"); }},
  };
  std::set<std::string> covered;
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    NemoOverrides o = base;
    c.breaks(o);
    CHECK(broken(o).contains(c.rule));
    covered.insert(c.rule);
  }
  for (const NemoRule& rule : nemo_rules()) {
    CAPTURE(rule.id);
    CHECK(covered.contains(std::string(rule.id)));
  }
}

TEST_CASE("nemo rules: a breach names Megatron-Bridge's file and commit, or the pinned Megatron-Core's") {
  NemoOverrides o = exported("TP8 PP4 DP8 SP");
  o.set("dataset.seq_length", "8192");
  o.set("model.num_attention_heads", "60");
  const auto breaches = nemo_breaches(o);
  REQUIRE(breaches.size() == 2);
  CHECK(breaches[0].source == "Megatron-Bridge src/megatron/bridge/training/config.py @067f987");
  CHECK(breaches[1].source == "Megatron-Core megatron/core/transformer/transformer_config.py @2a75ac1");
}

}  // namespace
}  // namespace clustersim::handoff::nemo_rules_test
