// Megatron-DeepSpeed export and import: every export of the twelve seed layouts and of the top 20
// of a sweep --search passes DeepSpeed's and Megatron-DeepSpeed's rules (checked on the launch
// script parsed back), each rule fires on a launch that breaks it, export then import gives back
// the layout exported, and Megatron-DeepSpeed's own example script and ds_config import.

#include <algorithm>

#include <doctest/doctest.h>

#include "handoff/export/launch_config.hpp"
#include "handoff/frameworks/deepspeed_rules.hpp"
#include "handoff/import/config_import.hpp"
#include "scenarios/bounded_input.hpp"
#include "scenarios/presets.hpp"
#include "tests/handoff/torchtitan_deepspeed_layouts.hpp"

namespace clustersim::handoff::deepspeed_test {
namespace {

using Json = nlohmann::ordered_json;
using testing::NamedLayout;

std::vector<std::string> rule_ids(const std::vector<RuleBreach>& breaches) {
  std::vector<std::string> ids;
  for (const RuleBreach& b : breaches) ids.push_back(b.rule);
  return ids;
}

bool breaks_rule(const std::vector<RuleBreach>& breaches, std::string_view rule) {
  return std::any_of(breaches.begin(), breaches.end(), [&](const RuleBreach& b) { return b.rule == rule; });
}

LaunchConfig ds_export(const planning::Layout& layout) {
  const auto& s = testing::twelve_layouts_scenario();
  return export_launch(Framework::deepspeed, s.model, s.cluster, layout);
}

const std::string& script_of(const LaunchConfig& config) {
  REQUIRE(config.files.size() == 2);
  CHECK(config.files[0].name == "ds_config.json");
  CHECK(config.files[1].name == "pretrain_gpt.sh");
  return config.files[1].content;
}

deepspeed::Launch launch_of(const LaunchConfig& config) {
  return deepspeed::parse_launch_script(script_of(config), "pretrain_gpt.sh");
}

void check_exported(const NamedLayout& named) {
  CAPTURE(named.name);
  const LaunchConfig config = ds_export(named.layout);
  const deepspeed::Launch launch = launch_of(config);
  CHECK(deepspeed::check_launch(launch).empty());
  // The here-document in the script is the ds_config.json file.
  CHECK(launch.ds_config == Json::parse(config.files[0].content));
  CHECK(launch.num_nodes * launch.num_gpus == 256);
}

void check_round_trip(const planning::Layout& layout) {
  const auto& s = testing::twelve_layouts_scenario();
  const LaunchConfig config = ds_export(layout);
  const deepspeed::Mapping mapping = deepspeed::map_layout(s.model, s.cluster, layout);
  CHECK(rule_ids(config.breaches) == rule_ids(mapping.breaches));
  const ImportedScenario imported = import_config(Framework::deepspeed, script_of(config), "pretrain_gpt.sh", {});
  const scenarios::Scenario back = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(back.model == s.model);  // matched to the llama3-70b preset by its flags
  CHECK(back.cluster.num_gpus == 256);
  CHECK(back.cluster.gpus_per_node == 8);
  testing::check_same_layout(mapping.layout, back);
  CHECK(back.training.framework == models::Framework::megatron_deepspeed);
  // The seed layouts' cuDNN attention is Megatron-DeepSpeed's flash-attn 2.
  CHECK(back.training.attention == models::AttentionKernel::flash2);
}

TEST_CASE("deepspeed export: the twelve seed layouts, what each breaks and the launch it writes") {
  const auto& layouts = testing::twelve_layouts();
  REQUIRE(layouts.size() == 12);
  for (const NamedLayout& named : layouts) {
    check_exported(named);
    CAPTURE(named.name);
    const std::vector<std::string> got = rule_ids(ds_export(named.layout).breaches);
    // ZeRO-1 with DeepSpeed's pipeline is allowed; only the two interleaved layouts are refused.
    if (named.name.find("interleaved") != std::string::npos)
      CHECK(got == std::vector<std::string>{"interleaved-deepspeed-pipeline"});
    else
      CHECK(got.empty());
  }
  // TP8 PP4 DP8: 1024 sequences = 1 per GPU x 128 accumulation steps x 8 data-parallel ranks.
  const LaunchConfig first = ds_export(layouts[0].layout);
  const Json config = Json::parse(first.files[0].content);
  CHECK(config["train_batch_size"] == 1024);
  CHECK(config["train_micro_batch_size_per_gpu"] == 1);
  CHECK(config["gradient_accumulation_steps"] == 128);
  CHECK(config["zero_optimization"]["stage"] == 1);
  CHECK(config["bf16"]["enabled"] == true);
  const deepspeed::Launch launch = launch_of(first);
  CHECK(launch.num_nodes == 32);
  CHECK(launch.num_gpus == 8);
  CHECK(*launch.flag("--tensor-model-parallel-size") == "8");
  CHECK(*launch.flag("--pipeline-model-parallel-size") == "4");
  CHECK(launch.has("--sequence-parallel"));
  CHECK(*launch.flag("--zero-stage") == "1");
  CHECK(*launch.flag("--recompute-granularity") == "selective");
  CHECK(launch.env == std::vector<std::pair<std::string, std::string>>{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}});
  // ZeRO-3 without a pipeline: GPTModel outside DeepSpeed's pipeline engine, stage 3 in both places.
  const deepspeed::Launch zero3 = launch_of(ds_export(layouts[9].layout));
  CHECK(zero3.has("--no-pipeline-parallel"));
  CHECK_FALSE(zero3.has("--pipeline-model-parallel-size"));
  CHECK(zero3.ds_config["zero_optimization"]["stage"] == 3);
  CHECK(*zero3.flag("--zero-stage") == "3");
  // Full recompute: Megatron's flags and DeepSpeed's activation checkpointing.
  const deepspeed::Launch full = launch_of(ds_export(layouts[10].layout));
  CHECK(*full.flag("--recompute-granularity") == "full");
  CHECK(full.has("--deepspeed-activation-checkpointing"));
  CHECK(full.ds_config.contains("activation_checkpointing"));
  // The interleaved layout is offered as 1F1B on the same stages.
  const LaunchConfig vp5 = ds_export(layouts[5].layout);
  CHECK_FALSE(vp5.breaches.at(0).alternative.empty());
  CHECK_FALSE(launch_of(vp5).has("--num-layers-per-virtual-pipeline-stage"));
}

TEST_CASE("deepspeed export: the top 20 of a sweep --search pass the rules, offering what runs") {
  const auto& rows = testing::search_top_20();
  REQUIRE(rows.size() == 20);
  for (const NamedLayout& named : rows) {
    check_exported(named);
    CAPTURE(named.name);
    check_round_trip(named.layout);
    // The search's best rows run a pipeline (mostly interleaved) under ZeRO-1 or 2: ZeRO-2 is
    // refused with ZeRO-1 offered, and 1F1B in place of interleaving.
    const LaunchConfig config = ds_export(named.layout);
    REQUIRE(named.layout.parallelism.pp > 1);
    CHECK(breaks_rule(config.breaches, "zero-pipeline") == (named.layout.parallelism.zero >= 2));
    CHECK(Json::parse(config.files[0].content)["zero_optimization"]["stage"] == 1);
    if (named.layout.parallelism.vp > 1) CHECK(breaks_rule(config.breaches, "interleaved-deepspeed-pipeline"));
    if (named.layout.parallelism.cp > 1) CHECK(breaks_rule(config.breaches, "no-context-parallel"));
  }
}

TEST_CASE("deepspeed round trip: each of the twelve seed layouts, as Megatron-DeepSpeed runs it") {
  for (const NamedLayout& named : testing::twelve_layouts()) {
    CAPTURE(named.name);
    check_round_trip(named.layout);
  }
  planning::Layout fp8 = testing::twelve_layouts()[0].layout;
  fp8.training.precision = models::Precision::fp8;  // delayed scaling: --fp8-hybrid
  const deepspeed::Launch launch = launch_of(ds_export(fp8));
  CHECK(launch.has("--fp8-hybrid"));
  CHECK(*launch.flag("--transformer-impl") == "transformer_engine");
  check_round_trip(fp8);
  planning::Layout no_recompute = testing::twelve_layouts()[1].layout;
  no_recompute.training.recompute = models::Recompute::none;
  check_round_trip(no_recompute);
}

TEST_CASE("deepspeed launch rules: each fires on a launch that breaks it") {
  const deepspeed::Launch valid = launch_of(ds_export(testing::twelve_layouts()[0].layout));  // TP8 PP4 DP8
  REQUIRE(deepspeed::check_launch(valid).empty());
  const auto set_flag = [](deepspeed::Launch& l, const std::string& name, const std::string& value) {
    for (auto& [k, v] : l.flags)
      if (k == name) {
        v = value;
        return;
      }
    l.flags.emplace_back(name, value);
  };
  const auto drop_flag = [](deepspeed::Launch& l, const std::string& name) {
    std::erase_if(l.flags, [&](const auto& f) { return f.first == name; });
  };
  const auto breaks = [&](const char* rule, auto&& edit) {
    CAPTURE(rule);
    deepspeed::Launch l = valid;
    edit(l);
    CHECK(breaks_rule(deepspeed::check_launch(l), rule));
  };
  breaks("launcher-counts", [](deepspeed::Launch& l) { l.num_nodes = 0; });
  breaks("deepspeed-flags", [&](deepspeed::Launch& l) { drop_flag(l, "--deepspeed"); });
  breaks("flag-value", [&](deepspeed::Launch& l) { set_flag(l, "--tensor-model-parallel-size", "eight"); });
  breaks("world-divisible", [&](deepspeed::Launch& l) { set_flag(l, "--tensor-model-parallel-size", "3"); });
  breaks("no-pipeline-pp-one", [&](deepspeed::Launch& l) { set_flag(l, "--no-pipeline-parallel", ""); });
  breaks("batch-given", [](deepspeed::Launch& l) {
    l.ds_config.erase("train_batch_size");
    l.ds_config.erase("train_micro_batch_size_per_gpu");
  });
  breaks("batch-product", [](deepspeed::Launch& l) { l.ds_config["train_batch_size"] = 1000; });
  breaks("config-type", [](deepspeed::Launch& l) { l.ds_config["train_batch_size"] = "1024"; });
  breaks("micro-batch-required", [&](deepspeed::Launch& l) { drop_flag(l, "--micro-batch-size"); });
  breaks("batch-agrees", [&](deepspeed::Launch& l) { set_flag(l, "--global-batch-size", "2048"); });
  breaks("zero-stage-max", [](deepspeed::Launch& l) { l.ds_config["zero_optimization"]["stage"] = 4; });
  breaks("zero-pipeline", [](deepspeed::Launch& l) { l.ds_config["zero_optimization"]["stage"] = 2; });
  breaks("zero-stage-agrees", [&](deepspeed::Launch& l) { set_flag(l, "--zero-stage", "3"); });
  breaks("bf16-fp16", [](deepspeed::Launch& l) { l.ds_config["fp16"] = {{"enabled", true}}; });
  breaks("bf16-fp16", [&](deepspeed::Launch& l) { set_flag(l, "--fp16", ""); });
  breaks("interleaved-checks", [&](deepspeed::Launch& l) { set_flag(l, "--num-layers-per-virtual-pipeline-stage", "3"); });
  breaks("interleaved-deepspeed-pipeline",
         [&](deepspeed::Launch& l) { set_flag(l, "--num-layers-per-virtual-pipeline-stage", "4"); });
  breaks("sequence-parallel-env", [](deepspeed::Launch& l) { l.env.clear(); });
  breaks("selective-no-method", [&](deepspeed::Launch& l) { set_flag(l, "--recompute-method", "uniform"); });
  breaks("fp8-transformer-engine", [&](deepspeed::Launch& l) { set_flag(l, "--fp8-hybrid", ""); });
  breaks("tp-divides-heads", [&](deepspeed::Launch& l) { set_flag(l, "--tensor-model-parallel-size", "16"); });
  breaks("gqa-heads", [&](deepspeed::Launch& l) { set_flag(l, "--num-key-value-heads", "7"); });
}

TEST_CASE("deepspeed layout rules: each fires on a layout Megatron-DeepSpeed cannot run, with what it offers") {
  const auto& s = testing::twelve_layouts_scenario();
  const planning::Layout base = testing::twelve_layouts()[0].layout;
  const auto mapped = [&](const planning::Layout& layout) { return deepspeed::map_layout(s.model, s.cluster, layout); };
  planning::Layout cp = base;
  cp.parallelism = {.tp = 8, .pp = 4, .dp = 4, .cp = 2, .sp = true, .zero = 1};
  const deepspeed::Mapping c = mapped(cp);
  CHECK(rule_ids(c.breaches) == std::vector<std::string>{"no-context-parallel"});
  CHECK(c.layout.parallelism.dp == 8);
  CHECK(c.layout.parallelism.cp == 1);
  planning::Layout gpipe = base;
  gpipe.training.schedule = models::Schedule::gpipe;
  CHECK(rule_ids(mapped(gpipe).breaches) == std::vector<std::string>{"pipeline-schedule"});
  planning::Layout zero2 = base;
  zero2.parallelism.zero = 2;
  CHECK(rule_ids(mapped(zero2).breaches) == std::vector<std::string>{"zero-pipeline"});
  CHECK(mapped(zero2).layout.parallelism.zero == 1);
  planning::Layout hsdp = base;
  hsdp.parallelism = {.tp = 8, .pp = 1, .dp = 32, .sp = true, .zero = 3, .shard_group = 8};
  CHECK(rule_ids(mapped(hsdp).breaches) == std::vector<std::string>{"no-hybrid-sharding"});
  planning::Layout overlap = base;
  overlap.parallelism.tp_comm_overlap = true;
  CHECK(rule_ids(mapped(overlap).breaches) == std::vector<std::string>{"no-tp-comm-overlap"});
  planning::Layout op = base;
  op.training.recompute = models::Recompute::op;
  CHECK(rule_ids(mapped(op).breaches) == std::vector<std::string>{"no-op-recompute"});
  planning::Layout fp8 = base;
  fp8.training.precision = models::Precision::fp8;
  fp8.training.fp8_recipe = models::Fp8Recipe::mxfp8;
  CHECK(rule_ids(mapped(fp8).breaches) == std::vector<std::string>{"fp8-recipe"});
  CHECK(rule_ids(deepspeed::map_layout(scenarios::model_preset("mixtral-8x7b"), s.cluster, base).breaches) ==
        std::vector<std::string>{"moe-not-exported"});
  for (const planning::Layout& l : {cp, gpipe, zero2, hsdp, overlap, op, fp8})
    for (const RuleBreach& b : mapped(l).breaches) CHECK_FALSE(b.alternative.empty());
}

std::string ds_data(const std::string& name) {
  return scenarios::read_input_file_bounded(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/" + name);
}

TEST_CASE("deepspeed import: Megatron-DeepSpeed's own Llama 2 example script") {
  const std::string text = ds_data("deepspeed_pretrain_llama2_distributed_excerpt.sh");
  CHECK(detect_framework(text, "pretrain_llama2_distributed.sh") == Framework::deepspeed);
  // The example passes the rules as written: TP 2 x PP 2 on one node of 8, so DP 2; 32 sequences
  // = 4 per GPU x 4 accumulation steps x 2 ranks (DeepSpeed derives the 4).
  const deepspeed::Launch launch = deepspeed::parse_launch_script(text, "example.sh");
  CHECK(deepspeed::check_launch(launch).empty());
  CHECK(launch.num_nodes == 1);
  CHECK(launch.num_gpus == 8);
  CHECK(launch.ds_config["train_batch_size"] == 32);
  CHECK(*launch.flag("--zero-stage") == "0");
  const ImportedScenario imported = import_config(Framework::deepspeed, text, "example.sh", {});
  const scenarios::Scenario s = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(s.cluster.num_gpus == 8);
  CHECK(s.parallelism.tp == 2);
  CHECK(s.parallelism.pp == 2);
  CHECK(s.parallelism.dp == 2);
  CHECK_FALSE(s.parallelism.sp);
  CHECK(s.parallelism.zero == 0);
  CHECK(s.training.micro_batch == 4);
  CHECK(s.training.global_batch == 32);
  CHECK(s.training.seq_len == 2048);
  CHECK(s.training.recompute == models::Recompute::none);
  CHECK(s.training.attention == models::AttentionKernel::unfused);  // no --use-flash-attn flag
  CHECK(s.training.tokens == doctest::Approx(250000.0 * 32 * 2048));
  CHECK(s.model.layers == 24);
  CHECK(s.model.hidden == 2048);
  CHECK(s.model.ffn_hidden == 5504);
  CHECK(s.model.heads == 16);
  CHECK(s.model.kv_heads == 4);
  CHECK(s.model.vocab == 32000);
  CHECK(s.model.mlp == models::MlpKind::swiglu);
  CHECK_FALSE(s.model.tied_embeddings);
  const auto& unmapped = imported.unmapped;
  const auto listed = [&](std::string_view entry) { return std::find(unmapped.begin(), unmapped.end(), entry) != unmapped.end(); };
  CHECK(listed("--lr 3e-4"));
  CHECK(listed("--optimizer adam"));
  CHECK(listed("ds_config steps_per_print = 1"));
  CHECK_FALSE(listed("--tensor-model-parallel-size 2"));
}

TEST_CASE("deepspeed import: a size flag that is no whole positive number is an error naming it") {
  const std::string text = ds_data("deepspeed_pretrain_llama2_distributed_excerpt.sh");
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string edited = text;
    const std::size_t at = edited.find(from);
    REQUIRE(at != std::string::npos);
    return edited.replace(at, from.size(), to);
  };
  CHECK_THROWS_WITH_AS(import_config(Framework::deepspeed, with("--seq-length $SEQ_LENGTH", "--seq-length 2k"), "a.sh", {}),
                       "a.sh: --seq-length must be a positive integer, got '2k'", ImportError);
  CHECK_THROWS_WITH_AS(import_config(Framework::deepspeed, with("--seq-length $SEQ_LENGTH", "--seq-length 0"), "a.sh", {}),
                       "a.sh: --seq-length must be a positive integer, got '0'", ImportError);
  CHECK_THROWS_WITH_AS(import_config(Framework::deepspeed, with("--num-layers $NUM_LAYERS", "--num-layers 32abc"), "a.sh", {}),
                       "a.sh: --num-layers must be an integer, got '32abc'", ImportError);
}

TEST_CASE("deepspeed import: a ds_config.json alone, with the launcher's node and GPU counts") {
  // examples_deepspeed/finetune_hf_llama/ds_config.json on one node of 8: no accumulation steps
  // given, so DeepSpeed's rule fills them in (256 = 16 x 2 x 8) and all 8 ranks are data-parallel.
  const std::string text = ds_data("deepspeed_finetune_hf_llama_ds_config.json");
  CHECK(detect_framework(text, "ds_config.json") == Framework::deepspeed);
  const ImportedScenario imported = import_config(Framework::deepspeed, text, "ds_config.json", {.nodes = 1, .gpus_per_node = 8});
  const scenarios::Scenario s = scenarios::load_scenario_text(imported.scenario.dump(), "imported");
  CHECK(s.parallelism.dp == 8);
  CHECK(s.parallelism.tp == 1);
  CHECK(s.parallelism.zero == 0);
  CHECK(s.training.micro_batch == 16);
  CHECK(s.training.global_batch == 256);
  CHECK(imported.unmapped == std::vector<std::string>{"ds_config steps_per_print = 100"});
  // With accumulation given, the batch sizes say the data-parallel size: 1024 = 1 x 32 x 32 on 256
  // GPUs leaves 8 model-parallel ranks (TP 8 within a node assumed, noted).
  const ImportedScenario mp = import_config(
      Framework::deepspeed,
      R"({"train_batch_size": 1024, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 32,
          "zero_optimization": {"stage": 1}, "bf16": {"enabled": true}})",
      "ds.json", {.nodes = 32, .gpus_per_node = 8});
  const scenarios::Scenario m = scenarios::load_scenario_text(mp.scenario.dump(), "imported");
  CHECK(m.parallelism.dp == 32);
  CHECK(m.parallelism.tp == 8);
  CHECK(m.parallelism.pp == 1);
  CHECK(m.parallelism.zero == 1);
}

TEST_CASE("deepspeed import: what it cannot read is an error naming the setting") {
  const auto error = [](std::string_view text, ImportOptions options) {
    try {
      import_config(Framework::deepspeed, text, "in", options);
    } catch (const ImportError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error(R"({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 3})", {.nodes = 1}) ==
        "in: train_batch_size 100 is not a multiple of micro 3 x 8 GPUs, and no gradient_accumulation_steps says the "
        "data-parallel size");
  CHECK(error("{\"train_batch_size\": ", {}).starts_with("in: not JSON"));
  CHECK(error("echo nothing\n", {}) == "in: no `deepspeed` or `torchrun` launcher command");
  const std::string refused =
      "cat <<EOT > ds.json\n{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 1, "
      "\"zero_optimization\": {\"stage\": 2}, \"bf16\": {\"enabled\": true}}\nEOT\n"
      "deepspeed --num_nodes 1 --num_gpus 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
      "--pipeline-model-parallel-size 2 --micro-batch-size 1 --global-batch-size 64 --bf16 --deepspeed "
      "--deepspeed_config ds.json --zero-stage 2 --num-layers 32 --hidden-size 4096 --num-attention-heads 32\n";
  CHECK(error(refused, {}).find("(zero-pipeline: DeepSpeed deepspeed/runtime/pipe/engine.py") != std::string::npos);
}

}  // namespace
}  // namespace clustersim::handoff::deepspeed_test
