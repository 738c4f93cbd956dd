// torchtitan export and import: every export of the twelve seed layouts and of the top 20 of a
// sweep --search passes torchtitan's job rules (checked on the TOML parsed back), each rule fires
// on a job that breaks it, export then import gives back the layout exported, and torchtitan's
// real llama3_70b.toml imports with the values it writes.

#include <algorithm>

#include <doctest/doctest.h>

#include "handoff/export/launch_config.hpp"
#include "handoff/frameworks/torchtitan_rules.hpp"
#include "handoff/import/config_import.hpp"
#include "handoff/toml/toml_subset.hpp"
#include "models/step/pipeline_schedule.hpp"
#include "scenarios/bounded_input.hpp"
#include "scenarios/presets.hpp"
#include "tests/handoff/torchtitan_deepspeed_layouts.hpp"

namespace clustersim::handoff {
namespace {

using Json = nlohmann::ordered_json;
using testing::NamedLayout;

constexpr std::int64_t kWorld = 256;  // twelve-layouts.json: 256 H100 in nodes of 8

std::vector<std::string> rules(const std::vector<RuleBreach>& breaches) {
  std::vector<std::string> ids;
  for (const RuleBreach& b : breaches) ids.push_back(b.rule);
  return ids;
}

bool has_rule(const std::vector<RuleBreach>& breaches, std::string_view rule) {
  return std::any_of(breaches.begin(), breaches.end(), [&](const RuleBreach& b) { return b.rule == rule; });
}

Json exported_job(const LaunchConfig& config) {
  REQUIRE(config.files.size() == 1);
  CHECK(config.files[0].name == "job.toml");
  return parse_toml_subset(config.files[0].content, "job.toml");
}

LaunchConfig export_of(const planning::Layout& layout) {
  const auto& s = testing::twelve_layouts_scenario();
  return export_launch(Framework::torchtitan, s.model, s.cluster, layout);
}

/// Export, import the TOML on the same cluster, load the scenario: the layout torchtitan runs.
void check_round_trip(const planning::Layout& layout) {
  const auto& s = testing::twelve_layouts_scenario();
  const LaunchConfig config = export_of(layout);
  const torchtitan::Mapping mapping = torchtitan::map_layout(s.model, s.cluster, layout);
  CHECK(rules(config.breaches) == rules(mapping.breaches));
  const ImportedScenario imported =
      import_config(Framework::torchtitan, config.files[0].content, "job.toml", {.nodes = 32, .gpus_per_node = 8});
  const scenarios::Scenario back = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(back.model == s.model);
  CHECK(back.cluster.num_gpus == kWorld);
  testing::check_same_layout(mapping.layout, back);
}

/// The layers of each model part torchtitan builds from the job's parallelism table (its module
/// lists, else its weighted split of the twelve layouts' 80 layers over `stages`).
std::vector<std::int64_t> torchtitan_split(const Json& job, std::int64_t stages) {
  const Json& par = job["parallelism"];
  if (!par.contains("module_fqns_per_model_part"))
    return torchtitan::stage_layers(stages, 80, par["pipeline_parallel_first_stage_less_layers"],
                                    par["pipeline_parallel_last_stage_less_layers"]);
  std::vector<std::int64_t> split;
  for (const Json& part : par["module_fqns_per_model_part"]) {
    std::int64_t layers = 0;
    for (const Json& name : part) layers += name.get<std::string>().starts_with("layers.") ? 1 : 0;
    split.push_back(layers);
  }
  return split;
}

void check_passes_job_rules(const NamedLayout& named) {
  CAPTURE(named.name);
  const LaunchConfig config = export_of(named.layout);
  const Json job = exported_job(config);
  CHECK(torchtitan::check_job(job, kWorld).empty());
  // Where pipelined, torchtitan's own split of the layers (its algorithm, restated) is clustersim's.
  const auto& p = torchtitan::map_layout(testing::twelve_layouts_scenario().model, testing::twelve_layouts_scenario().cluster,
                                         named.layout)
                      .layout.parallelism;
  if (p.pp > 1) {
    const Json& par = job["parallelism"];
    const std::int64_t in = par["pipeline_parallel_first_stage_less_layers"], out = par["pipeline_parallel_last_stage_less_layers"];
    std::int64_t stages = p.pp;
    if (par.contains("pipeline_parallel_layers_per_stage")) {
      const std::int64_t per = par["pipeline_parallel_layers_per_stage"];
      stages = (80 + in + out + per - 1) / per;
    }
    CHECK(torchtitan::stage_layers(stages, 80, in, out) == models::split_layers(80, p.pp, p.vp));
  }
}

TEST_CASE("torchtitan export: the twelve seed layouts, the breaches each gives and the job it writes") {
  const auto& layouts = testing::twelve_layouts();
  REQUIRE(layouts.size() == 12);
  for (const NamedLayout& named : layouts) check_passes_job_rules(named);
  // Every seed layout is ZeRO-1 (the scenario's) with Megatron's selective recompute: torchtitan
  // has neither (offered: ZeRO-2 as FSDP2 without resharding, op-level checkpointing); one turns
  // SP off, which torchtitan's TP cannot; one is ZeRO-3 and one recomputes fully.
  const std::vector<std::string> usual{"no-zero-1", "no-attention-core-recompute"};
  for (const NamedLayout& named : layouts) {
    CAPTURE(named.name);
    const std::vector<std::string> got = rules(export_of(named.layout).breaches);
    if (named.name == "TP8 PP1 DP32 ZeRO-3") CHECK(got == std::vector<std::string>{"no-attention-core-recompute"});
    else if (named.name == "TP4 PP4 DP16 full recompute") CHECK(got == std::vector<std::string>{"no-zero-1"});
    else if (named.name == "TP8 PP4 DP8 no SP")
      CHECK(got == std::vector<std::string>{"tp-sequence-parallel", "no-zero-1", "no-attention-core-recompute"});
    else CHECK(got == usual);
  }
  // The interleaved layouts: 80 layers on 4 x 5 and 8 x 2 chunks, 4 and 5 layers each; the
  // pipeline runs the global batch over DP ranks as one flush of micro-batches of 1.
  const Json vp5 = exported_job(export_of(layouts[5].layout));
  CHECK(vp5["parallelism"]["pipeline_parallel_schedule"] == "Interleaved1F1B");
  CHECK(vp5["parallelism"]["pipeline_parallel_layers_per_stage"] == 4);
  CHECK(vp5["parallelism"]["pipeline_parallel_first_stage_less_layers"] == 0);
  CHECK(vp5["training"]["local_batch_size"] == 1024 / 8);
  CHECK(vp5["parallelism"]["pipeline_parallel_microbatch_size"] == 1);
  CHECK(vp5["parallelism"]["fsdp_reshard_after_forward"] == "never");
  CHECK(vp5["model"]["flavor"] == "70B");
  const Json vp2 = exported_job(export_of(layouts[6].layout));
  CHECK(vp2["parallelism"]["pipeline_parallel_layers_per_stage"] == 5);
  CHECK(vp2["training"]["local_batch_size"] == 1024 / 4);
  // ZeRO-3 without a pipeline: FSDP2 resharding after the forward, gradient accumulation of 32
  // (1024 sequences over 32 ranks of micro-batch 1).
  const Json zero3 = exported_job(export_of(layouts[9].layout));
  CHECK(zero3["parallelism"]["fsdp_reshard_after_forward"] == "always");
  CHECK(zero3["parallelism"]["data_parallel_shard_degree"] == 32);
  CHECK(zero3["training"]["local_batch_size"] == 1);
  CHECK(zero3["training"]["global_batch_size"] == 1024);
  CHECK_FALSE(zero3["parallelism"].contains("pipeline_parallel_schedule"));
  CHECK(exported_job(export_of(layouts[10].layout))["activation_checkpoint"]["mode"] == "full");
}

TEST_CASE("torchtitan export: the top 20 of a sweep --search pass the job rules and round-trip") {
  const auto& rows = testing::search_top_20();
  REQUIRE(rows.size() == 20);
  int as_given = 0;
  for (const NamedLayout& named : rows) {
    check_passes_job_rules(named);
    CAPTURE(named.name);
    check_round_trip(named.layout);
    as_given += export_of(named.layout).runs_as_given() ? 1 : 0;
  }
  // The search's best rows are ZeRO-2 without recomputation: torchtitan runs those as given.
  CHECK(as_given > 0);
}

TEST_CASE("torchtitan round trip: each of the twelve seed layouts, as torchtitan runs it") {
  for (const NamedLayout& named : testing::twelve_layouts()) {
    CAPTURE(named.name);
    check_round_trip(named.layout);
  }
}

TEST_CASE("torchtitan round trip: fp8, async TP, hybrid sharding, plain DDP, GPipe and an uneven pipeline") {
  const planning::Layout base = testing::twelve_layouts()[0].layout;
  planning::Layout fp8 = base;
  fp8.training.precision = models::Precision::fp8;
  fp8.training.fp8_recipe = models::Fp8Recipe::current;
  fp8.parallelism.tp_comm_overlap = true;
  const Json job = exported_job(export_of(fp8));
  CHECK(job["model"]["converters"] == Json::array({"quantize.linear.float8"}));
  CHECK(job["quantize"]["linear"]["float8"]["recipe_name"] == "tensorwise");
  CHECK(job["parallelism"]["enable_async_tensor_parallel"] == true);
  CHECK(job["compile"]["enable"] == true);
  CHECK_FALSE(job["quantize"]["linear"]["float8"].contains("enable_fsdp_float8_all_gather"));
  check_round_trip(fp8);
  // FSDP's float8 all-gather, as torchtitan's H200 benchmark runs it.
  planning::Layout fp8_gather = fp8;
  fp8_gather.training.fp8_param_gather = true;
  const Json gather_job = exported_job(export_of(fp8_gather));
  CHECK(gather_job["quantize"]["linear"]["float8"]["enable_fsdp_float8_all_gather"] == true);
  CHECK(gather_job["quantize"]["linear"]["float8"]["precompute_float8_dynamic_scale_for_fsdp"] == true);
  check_round_trip(fp8_gather);

  planning::Layout mx = base;
  mx.training.precision = models::Precision::fp8;
  mx.training.fp8_recipe = models::Fp8Recipe::mxfp8;
  models::ClusterSpec blackwell = testing::twelve_layouts_scenario().cluster;  // MX scales need Blackwell
  blackwell.gpu = scenarios::gpu_preset("b200");
  const LaunchConfig mconfig = export_launch(Framework::torchtitan, testing::twelve_layouts_scenario().model, blackwell, mx);
  const Json mjob = exported_job(mconfig);
  CHECK(mjob["model"]["converters"] == Json::array({"quantize.linear.mx"}));
  CHECK(mjob["quantize"]["linear"]["mx"]["recipe_name"] == "mxfp8_cublas");
  const ImportedScenario mback = import_config(Framework::torchtitan, mconfig.files[0].content, "job.toml",
                                               {.nodes = 32, .gpus_per_node = 8, .gpu = "b200"});
  testing::check_same_layout(torchtitan::map_layout(testing::twelve_layouts_scenario().model, blackwell, mx).layout,
                             scenarios::load_scenario_text(mback.scenario.dump(), "imported"));

  planning::Layout hsdp = base;
  hsdp.parallelism = {.tp = 8, .pp = 1, .dp = 32, .sp = true, .zero = 3, .shard_group = 8};
  const Json hjob = exported_job(export_of(hsdp));
  CHECK(hjob["parallelism"]["data_parallel_replicate_degree"] == 4);
  CHECK(hjob["parallelism"]["data_parallel_shard_degree"] == 8);
  check_round_trip(hsdp);

  planning::Layout ddp = base;
  ddp.parallelism = {.tp = 1, .pp = 1, .dp = 256, .zero = 0};
  ddp.training.recompute = models::Recompute::full;
  ddp.training.global_batch = 512;
  const LaunchConfig ddp_config = export_of(ddp);
  CHECK(ddp_config.runs_as_given());
  CHECK(exported_job(ddp_config)["parallelism"]["data_parallel_replicate_degree"] == 256);
  check_round_trip(ddp);

  planning::Layout gpipe = base;
  gpipe.training.schedule = models::Schedule::gpipe;
  CHECK(exported_job(export_of(gpipe))["parallelism"]["pipeline_parallel_schedule"] == "GPipe");
  check_round_trip(gpipe);

  const auto& s = testing::twelve_layouts_scenario();
  // Llama 3 405B on 16 stages: 7 layers on the first and last, 8 elsewhere; torchtitan's
  // default weights (1 and 1) give just that.
  const models::TransformerSpec llama405 = scenarios::model_preset("llama3-405b");
  planning::Layout big = base;
  big.parallelism = {.tp = 8, .pp = 16, .dp = 2, .sp = true, .zero = 2};
  big.training.recompute = models::Recompute::full;
  const LaunchConfig big_config = export_launch(Framework::torchtitan, llama405, s.cluster, big);
  CHECK(big_config.runs_as_given());
  const Json big_job = exported_job(big_config);
  CHECK(big_job["model"]["flavor"] == "405B");
  CHECK(big_job["parallelism"]["pipeline_parallel_first_stage_less_layers"] == 1);
  CHECK(big_job["parallelism"]["pipeline_parallel_last_stage_less_layers"] == 1);
  CHECK(torchtitan::stage_layers(16, 126, 1, 1) ==
        std::vector<std::int64_t>{7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7});
  CHECK(torchtitan::check_job(big_job, kWorld).empty());
}

TEST_CASE("torchtitan round trip: a pipeline of 32 stages over 80 layers, one data-parallel rank") {
  planning::Layout deep = testing::twelve_layouts()[0].layout;
  deep.parallelism = {.tp = 8, .pp = 32, .dp = 1, .sp = true, .zero = 1};
  deep.training.recompute = models::Recompute::full;
  const LaunchConfig config = export_of(deep);
  CHECK(config.runs_as_given());
  const Json job = exported_job(config);
  CHECK(job["parallelism"]["data_parallel_shard_degree"] == 1);
  CHECK(job["training"]["local_batch_size"] == 1024);
  // clustersim's uneven split, as the job config makes torchtitan split the 80 layers.
  const std::vector<std::int64_t> split = models::split_layers(80, 32, 1);
  CHECK(torchtitan_split(job, 32) == split);
  CHECK(torchtitan::check_job(job, kWorld).empty());
  check_round_trip(deep);  // as ZeRO-0: one rank shards nothing
  CHECK(torchtitan::map_layout(testing::twelve_layouts_scenario().model, testing::twelve_layouts_scenario().cluster, deep)
            .layout.parallelism.zero == 0);
}

TEST_CASE("torchtitan round trip: the job's pipeline split, the first stage holding only the embedding") {
  // ZeRO-2 and op-level recompute: what torchtitan runs (FSDP2 never resharding, selective_ac_option "op").
  planning::Layout split = testing::twelve_layouts()[0].layout;
  split.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .zero = 2, .layers_per_chunk = {0, 27, 27, 26}};
  split.training.recompute = models::Recompute::op;
  const LaunchConfig config = export_of(split);
  CHECK(config.runs_as_given());
  const Json job = exported_job(config);
  CHECK(torchtitan::check_job(job, kWorld).empty());
  // The first model part is the embedding alone, whichever way the job config says it.
  CHECK(torchtitan_split(job, 4) == std::vector<std::int64_t>{0, 27, 27, 26});
  check_round_trip(split);
}

TEST_CASE("torchtitan round trip: PyTorch's interleaved rounds are the micro-batch group") {
  // ScheduleInterleaved1F1B runs m micro-batches in max(1, m / pp) rounds of m / rounds each:
  // 24 on 4 stages are 6 rounds of 4 (the default group), 6 are one round of 6.
  CHECK(torchtitan::interleaved_round(24, 4) == 4);
  CHECK(torchtitan::interleaved_round(6, 4) == 6);
  CHECK(torchtitan::interleaved_round(10, 4) == 5);
  CHECK(torchtitan::interleaved_round(9, 4) == 0);  // 2 rounds do not divide 9: PyTorch refuses
  // 80 layers on 4 stages x 2 chunks, ZeRO-2: 384 sequences over DP 8 in 8 runs are 6 micro-batches
  // a run, one round of 6: the scenario's group of 6, which comes back from the job config.
  planning::Layout rounds = testing::twelve_layouts()[0].layout;
  rounds.parallelism = {.tp = 8, .pp = 4, .dp = 8, .vp = 2, .microbatch_group = 6, .sp = true, .zero = 2};
  rounds.training.schedule = models::Schedule::interleaved;
  rounds.training.recompute = models::Recompute::op;
  rounds.training.global_batch = 384;
  rounds.training.pipeline_runs = 8;
  CHECK(rules(export_of(rounds).breaches).empty());
  check_round_trip(rounds);
  // Groups of 8 on runs of 8 micro-batches are not PyTorch's two rounds of 4: the export offers those.
  planning::Layout groups = rounds;
  groups.training.global_batch = 1024;
  groups.training.pipeline_runs = 16;
  groups.parallelism.microbatch_group = 8;
  const LaunchConfig config = export_of(groups);
  CHECK(rules(config.breaches) == std::vector<std::string>{"interleaved-rounds"});
  check_round_trip(groups);
}

TEST_CASE("torchtitan round trip: the context-parallel rotate method is the communication type") {
  // PyTorch's rotaters: allgather (torchtitan's default) is all_gather, alltoall passes the ring
  // (p2p); Ulysses is not among them, and the export offers the default instead.
  planning::Layout cp = testing::twelve_layouts()[0].layout;
  cp.parallelism = {.tp = 4, .pp = 4, .dp = 8, .cp = 2, .cp_comm = models::CpComm::all_gather, .sp = true, .zero = 2};
  cp.training.recompute = models::Recompute::op;
  for (const models::CpComm type : {models::CpComm::all_gather, models::CpComm::p2p}) {
    cp.parallelism.cp_comm = type;
    const LaunchConfig config = export_of(cp);
    CHECK(config.runs_as_given());
    CHECK(exported_job(config)["parallelism"]["context_parallel_rotate_method"] ==
          (type == models::CpComm::p2p ? "alltoall" : "allgather"));
    check_round_trip(cp);
  }
  cp.parallelism.cp_comm = models::CpComm::a2a;
  const LaunchConfig ulysses = export_of(cp);
  CHECK(rules(ulysses.breaches) == std::vector<std::string>{"cp-rotate-method"});
  check_round_trip(cp);
  // A CTA limit on the context-parallel communicator has no torchtitan form: a note, not a setting.
  cp.parallelism.cp_comm = models::CpComm::all_gather;
  cp.parallelism.cp_max_ctas = 1;
  const LaunchConfig held = export_of(cp);
  CHECK(held.runs_as_given());
  CHECK(std::any_of(held.notes.begin(), held.notes.end(), [](const std::string& n) {
    return n.starts_with("parallelism.cp_max_ctas 1 has no torchtitan setting");
  }));
  // A job config's own rotate method must be one torchtitan knows.
  Json job = exported_job(export_of(testing::twelve_layouts()[0].layout));
  job["parallelism"]["context_parallel_rotate_method"] = "ring";
  const std::vector<std::string> broken = rules(torchtitan::check_job(job, kWorld));
  CHECK(std::find(broken.begin(), broken.end(), "cp-rotate-method") != broken.end());
}

TEST_CASE("torchtitan round trip: gradient accumulation over pipeline runs is the local batch") {
  // Each gradient-accumulation step runs torchtitan's pipeline schedule once: 4 runs of the 1,024
  // sequences over 8 data-parallel ranks are local batches of 1024 / (8 x 4) = 32.
  planning::Layout runs = testing::twelve_layouts()[0].layout;
  REQUIRE(runs.parallelism.pp > 1);
  REQUIRE(runs.parallelism.dp == 8);
  runs.training.pipeline_runs = 4;
  const LaunchConfig config = export_of(runs);
  const Json job = exported_job(config);
  CHECK(job["training"]["local_batch_size"] == 32);
  CHECK(job["training"]["global_batch_size"] == 1024);
  const ImportedScenario imported =
      import_config(Framework::torchtitan, config.files[0].content, "job.toml", {.nodes = 32, .gpus_per_node = 8});
  const scenarios::Scenario back = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(back.training.pipeline_runs == 4);
}

TEST_CASE("torchtitan export: the FSDP2 sync keys it has no setting for are notes") {
  // torchtitan wraps each pipeline stage's module with FSDP2, so neither NeMo Automodel's deferred
  // sync nor the plain backward of an unwrapped stage has a form in its job config.
  planning::Layout sharded = testing::twelve_layouts()[0].layout;
  REQUIRE(sharded.parallelism.pp > 1);
  sharded.parallelism.zero = 3;
  sharded.parallelism.sharding = models::ShardingFramework::fsdp2;
  const auto noted = [](const LaunchConfig& config, std::string_view key) {
    return std::any_of(config.notes.begin(), config.notes.end(), [&](const std::string& n) {
      return n.starts_with("training." + std::string(key) + " is not exported");
    });
  };
  CHECK_FALSE(noted(export_of(sharded), "fsdp_sync_every_micro_batch"));
  sharded.training.fsdp_sync_every_micro_batch = true;
  const LaunchConfig every = export_of(sharded);
  CHECK(noted(every, "fsdp_sync_every_micro_batch"));
  CHECK_FALSE(noted(every, "fsdp_sync_once"));
  sharded.training.fsdp_sync_every_micro_batch = false;
  sharded.training.fsdp_sync_once = true;
  CHECK(noted(export_of(sharded), "fsdp_sync_once"));
  // Nor has the key-value copy of its Llama before 2026: SDPA takes the groups today.
  CHECK_FALSE(noted(export_of(sharded), "repeat_kv"));
  sharded.training.repeat_kv = true;
  CHECK(noted(export_of(sharded), "repeat_kv"));
}

TEST_CASE("torchtitan: Qwen3 30B-A3B with expert parallelism exports as qwen3's flavor and round-trips") {
  const models::TransformerSpec qwen = scenarios::model_preset("qwen3-30b-a3b");
  const models::ClusterSpec& cluster = testing::twelve_layouts_scenario().cluster;
  planning::Layout moe = testing::twelve_layouts()[0].layout;
  moe.parallelism = {.tp = 2, .pp = 1, .dp = 128, .sp = true, .zero = 3, .ep = 8, .etp = 1};
  moe.training.recompute = models::Recompute::full;
  const LaunchConfig config = export_launch(Framework::torchtitan, qwen, cluster, moe);
  CHECK(config.runs_as_given());
  const Json job = exported_job(config);
  CHECK(job["model"]["name"] == "qwen3");
  CHECK(job["model"]["flavor"] == "30B-A3B");
  CHECK(job["parallelism"]["expert_parallel_degree"] == 8);
  CHECK(job["parallelism"]["expert_tensor_parallel_degree"] == 1);
  CHECK(torchtitan::check_job(job, kWorld).empty());
  const ImportedScenario imported =
      import_config(Framework::torchtitan, config.files[0].content, "job.toml", {.nodes = 32, .gpus_per_node = 8});
  const scenarios::Scenario back = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(back.model == qwen);
  CHECK(back.parallelism.ep == 8);
  CHECK(back.parallelism.etp == 1);
  testing::check_same_layout(moe, back);
  // 128 experts do not split over 48 ranks; expert TP 2 with TP 4 is neither 1 nor TP.
  Json bad = job;
  bad["parallelism"]["expert_parallel_degree"] = 48;
  CHECK(has_rule(torchtitan::check_job(bad, kWorld), "ep-divides-experts"));
  planning::Layout etp = moe;
  etp.parallelism.tp = 4;
  etp.parallelism.dp = 64;
  etp.parallelism.etp = 2;
  const torchtitan::Mapping m = torchtitan::map_layout(qwen, cluster, etp);
  CHECK(rules(m.breaches) == std::vector<std::string>{"etp-tp-or-one"});
  CHECK(m.layout.parallelism.etp == 1);
  // In fp8 its linear converters leave the experts bf16: the offer is bf16 throughout.
  planning::Layout fp8 = moe;
  fp8.training.precision = models::Precision::fp8;
  fp8.training.fp8_recipe = models::Fp8Recipe::current;
  const torchtitan::Mapping f = torchtitan::map_layout(qwen, cluster, fp8);
  CHECK(rules(f.breaches) == std::vector<std::string>{"fp8-routed-experts"});
  CHECK(f.layout.training.precision == models::Precision::bf16);
}

TEST_CASE("torchtitan flavors: the llama3 shapes are the clustersim presets of the same name") {
  for (const torchtitan::Flavor& f : torchtitan::flavors()) {
    CAPTURE(f.flavor);
    const models::TransformerSpec preset = scenarios::model_preset(f.preset);
    CHECK(torchtitan::flavor_of(preset) == &f);
  }
  // 8B's SwiGLU width by hand: 2/3 of 4 x 4096 = 10922, x 1.3 = 14198, up to a multiple of 1024.
  CHECK(torchtitan::ffn_hidden(torchtitan::flavors()[0]) == 14336);
  CHECK(torchtitan::flavor_of(scenarios::model_preset("gpt3-175b")) == nullptr);
}

TEST_CASE("torchtitan job rules: each fires on a job config that breaks it") {
  const Json valid = exported_job(export_of(testing::twelve_layouts()[5].layout));  // TP8 PP4 DP8 vp5
  REQUIRE(torchtitan::check_job(valid, kWorld).empty());
  const auto breaks = [&](const char* rule, auto&& edit) {
    CAPTURE(rule);
    Json job = valid;
    edit(job);
    // Written and read back as TOML, as an export is checked.
    const Json parsed = parse_toml_subset(write_toml(job), "broken.toml");
    CHECK(has_rule(torchtitan::check_job(parsed, kWorld), rule));
  };
  breaks("degrees-positive", [](Json& j) { j["parallelism"]["tensor_parallel_degree"] = 0; });
  breaks("degrees-product", [](Json& j) { j["parallelism"]["tensor_parallel_degree"] = 3; });
  breaks("etp-tp-or-one", [](Json& j) {
    j["parallelism"]["expert_parallel_degree"] = 2;
    j["parallelism"]["expert_tensor_parallel_degree"] = 4;
  });
  breaks("ep-divides-dense-mesh", [](Json& j) { j["parallelism"]["expert_parallel_degree"] = 128; });
  breaks("ddp-one-dimension", [](Json& j) {
    j["parallelism"]["data_parallel_replicate_degree"] = 8;
    j["parallelism"]["data_parallel_shard_degree"] = 1;
  });
  breaks("seq-len-divisor", [](Json& j) { j["training"]["seq_len"] = 4100; });
  breaks("global-batch-multiple", [](Json& j) { j["training"]["global_batch_size"] = 1000; });
  breaks("reshard-policy", [](Json& j) { j["parallelism"]["fsdp_reshard_after_forward"] = "sometimes"; });
  breaks("ac-mode", [](Json& j) { j["activation_checkpoint"]["mode"] = "partial"; });
  breaks("ac-mode", [](Json& j) { j["activation_checkpoint"]["selective_ac_option"] = "every"; });
  breaks("async-tp-compile", [](Json& j) {
    j["parallelism"]["enable_async_tensor_parallel"] = true;
    j["compile"]["enable"] = false;
  });
  breaks("converter-known", [](Json& j) { j["model"]["converters"] = Json::array({"float8"}); });
  breaks("model-flavor", [](Json& j) { j["model"]["flavor"] = "13B"; });
  breaks("pp-schedule-known", [](Json& j) { j["parallelism"]["pipeline_parallel_schedule"] = "ZeroBubbleV2"; });
  breaks("pp-microbatch-divides", [](Json& j) { j["parallelism"]["pipeline_parallel_microbatch_size"] = 3; });
  breaks("pp-stages-per-rank", [](Json& j) { j["parallelism"]["pipeline_parallel_schedule"] = "1F1B"; });
  breaks("pp-stages-per-rank", [](Json& j) { j["parallelism"]["pipeline_parallel_schedule"] = "DualPipeV"; });
  breaks("pp-stage-split", [](Json& j) {
    j["parallelism"]["pipeline_parallel_layers_per_stage"] = 1;
    j["parallelism"]["pipeline_parallel_first_stage_less_layers"] = 2;
    j["parallelism"]["pipeline_parallel_last_stage_less_layers"] = 2;
  });
  breaks("tp-divides-kv-heads", [](Json& j) {
    j["parallelism"]["tensor_parallel_degree"] = 16;  // 70B has 8 key/value heads
    j["parallelism"]["data_parallel_shard_degree"] = 4;
  });
  breaks("key-type", [](Json& j) { j["parallelism"]["tensor_parallel_degree"] = "8"; });
}

TEST_CASE("torchtitan layout rules: each fires on a layout torchtitan cannot run, with what it offers") {
  const auto& s = testing::twelve_layouts_scenario();
  const planning::Layout base = testing::twelve_layouts()[0].layout;
  const auto mapped = [&](const models::TransformerSpec& model, const planning::Layout& layout) {
    return torchtitan::map_layout(model, s.cluster, layout);
  };
  planning::Layout ddp = base;
  ddp.parallelism.zero = 0;
  const torchtitan::Mapping m = mapped(s.model, ddp);
  CHECK(has_rule(m.breaches, "ddp-one-dimension"));
  CHECK(m.layout.parallelism.zero == 2);
  planning::Layout fp8 = base;
  fp8.training.precision = models::Precision::fp8;  // the scenario's recipe: delayed
  const torchtitan::Mapping f = mapped(s.model, fp8);
  CHECK(has_rule(f.breaches, "fp8-recipe"));
  CHECK(f.layout.training.fp8_recipe == models::Fp8Recipe::current);
  CHECK(has_rule(mapped(scenarios::model_preset("gpt3-175b"), base).breaches, "model-flavor"));
  CHECK(has_rule(mapped(scenarios::model_preset("mixtral-8x7b"), base).breaches, "moe-not-exported"));
  planning::Layout hsdp = base;
  hsdp.parallelism = {.tp = 8, .pp = 1, .dp = 16, .cp = 2, .sp = true, .zero = 3, .shard_group = 3};
  CHECK(has_rule(mapped(s.model, hsdp).breaches, "hsdp-shard-group"));
  planning::Layout overlap = base;
  overlap.parallelism.ep_comm_overlap = true;
  CHECK(has_rule(mapped(s.model, overlap).breaches, "ep-overlap"));
  // Each breach offers what torchtitan runs instead.
  for (const RuleBreach& b : mapped(s.model, ddp).breaches) CHECK_FALSE(b.alternative.empty());
}

std::string data(const std::string& name) {
  return scenarios::read_input_file_bounded(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/" + name);
}

TEST_CASE("torchtitan import: the real llama3_70b.toml on the 64 GPUs it is written for") {
  // "this toml config is a preset for 64 A100 GPUs": 8 nodes of 8. TP 8, the shard degree -1
  // takes the 8 ranks left; local batch 8 on 8 ranks, no global batch: 64 sequences of 8192.
  const std::string text = data("torchtitan_llama3_70b.toml");
  CHECK(detect_framework(text, "llama3_70b.toml") == Framework::torchtitan);
  const ImportedScenario imported =
      import_config(Framework::torchtitan, text, "llama3_70b.toml", {.nodes = 8, .gpus_per_node = 8, .gpu = "a100-80gb"});
  const scenarios::Scenario s = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(s.model == scenarios::model_preset("llama3-70b"));
  CHECK(s.cluster.num_gpus == 64);
  CHECK(s.cluster.gpu.name == "a100-80gb");
  CHECK(s.parallelism.tp == 8);
  CHECK(s.parallelism.pp == 1);
  CHECK(s.parallelism.dp == 8);
  CHECK(s.parallelism.sp);
  CHECK(s.parallelism.zero == 3);  // FSDP2, "default" resharding without a pipeline
  CHECK(s.training.micro_batch == 8);
  CHECK(s.training.global_batch == 64);
  CHECK(s.training.seq_len == 8192);
  CHECK(s.training.recompute == models::Recompute::full);
  CHECK(s.training.precision == models::Precision::bf16);
  CHECK(s.training.framework == models::Framework::torchtitan);
  CHECK(s.training.elementwise == models::ElementwiseKernels::eager);  // compile.enable = false
  CHECK(s.training.tokens == doctest::Approx(1000.0 * 64 * 8192));
  const auto& unmapped = imported.unmapped;
  const auto listed = [&](std::string_view entry) { return std::find(unmapped.begin(), unmapped.end(), entry) != unmapped.end(); };
  CHECK(listed("optimizer.lr = 0.00015"));
  CHECK(listed("training.dataset = \"c4\""));
  CHECK(listed("checkpoint.interval = 500"));
  CHECK(listed("quantize.linear.float8.filter_fqns = [\"output\"]"));
  CHECK_FALSE(listed("parallelism.tensor_parallel_degree = 8"));
}

TEST_CASE("torchtitan import: what it cannot read is an error naming the setting") {
  const auto error = [](std::string_view text, ImportOptions options) {
    try {
      import_config(Framework::torchtitan, text, "job.toml", options);
    } catch (const ImportError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("[model]\nname = \"llama3\"\nflavor = \"70B\"\n", {}) ==
        "job.toml: [parallelism] data_parallel_shard_degree = -1 takes the ranks left over, so the world size must be "
        "given: --nodes (and --gpus-per-node)");
  CHECK(error("[model]\nname = \"llama3\"\nflavor = \"13B\"\n", {.nodes = 1}).starts_with(
      "job.toml: [model] name = \"llama3\", flavor = \"13B\": not a model clustersim knows"));
  CHECK(error("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ntensor_parallel_degree = 3\n", {.nodes = 1})
            .starts_with("job.toml: torchtitan would refuse this job config on 8 ranks"));
  CHECK(error("[model\n", {.nodes = 1}) == "job.toml:1: expected ']' closing the table header ([name] or [dotted.name])");
  // A string that is not UTF-8 would reach the scenario's JSON, which holds UTF-8 only: the file is
  // refused at the byte (0xF9 starts no UTF-8 sequence).
  CHECK(error("[job]\ndump_folder = \"./out\xF9\"\n", {.nodes = 1}) == "job.toml: not UTF-8 text (byte 27)");
}

}  // namespace
}  // namespace clustersim::handoff
