// The Megatron-LM export: a complete launch script that Megatron-LM's rules accept when read back.
#include <doctest/doctest.h>

#include <algorithm>

#include "handoff/export/launch_config.hpp"
#include "handoff/export/megatron_args.hpp"
#include "handoff/frameworks/megatron_lm_rules.hpp"
#include "handoff/import/megatron_lm_script.hpp"
#include "scenarios/presets.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::megatron_lm_export_test {
namespace {

const std::string& script_of(const LaunchConfig& c) {
  REQUIRE(c.files.size() == 1);
  REQUIRE(c.files[0].name == "pretrain_gpt.sh");
  return c.files[0].content;
}

// The script is one command: `export` lines, then torchrun and one flag per `\`-continued line.
void check_script_shape(const std::string& script) {
  std::vector<std::string> lines;
  for (std::size_t pos = 0; pos < script.size();) {
    const std::size_t end = script.find('\n', pos);
    lines.push_back(script.substr(pos, end - pos));
    pos = end + 1;
  }
  REQUIRE(lines.size() > 3);
  CHECK(lines[0] == "#!/bin/bash");
  std::size_t i = 1;
  while (lines[i].starts_with("export ")) ++i;
  CHECK(lines[i].starts_with("torchrun --nnodes "));
  CHECK(lines[i].ends_with(" pretrain_gpt.py \\"));
  for (std::size_t k = i + 1; k < lines.size(); ++k) {
    CAPTURE(lines[k]);
    CHECK(lines[k].starts_with("  --"));
    CHECK(lines[k].find('#') == std::string::npos);  // a comment would end the command
    CHECK(lines[k].ends_with(" \\") == (k + 1 < lines.size()));
  }
}

void check_exports_pass(const std::vector<layouts_under_test::NamedLayout>& layouts) {
  for (const auto& l : layouts) {
    CAPTURE(l.name);
    const LaunchConfig c = export_launch(Framework::megatron_lm, l.scenario.model, l.scenario.cluster, l.layout);
    const std::string& script = script_of(c);
    check_script_shape(script);
    const MegatronScript read = read_megatron_script(script);
    CHECK(read.arguments.world_size == l.scenario.cluster.num_gpus);
    std::string broken;
    for (const RuleBreach& b : megatron_lm_breaches(read.arguments)) broken += b.rule + " ";
    CHECK(broken == "");
  }
}

TEST_CASE("megatron-lm export: every seed layout's script passes Megatron-LM's rules when read back") {
  const auto layouts = layouts_under_test::twelve_layouts();
  REQUIRE(layouts.size() == 12);
  check_exports_pass(layouts);
}

TEST_CASE("megatron-lm export: the top 20 layouts of sweep --search pass Megatron-LM's rules when read back") {
  const auto layouts = layouts_under_test::search_top20();
  REQUIRE(layouts.size() == 20);
  check_exports_pass(layouts);
}

models::ClusterSpec h100(std::int64_t gpus) {
  models::ClusterSpec c;
  c.gpu = scenarios::gpu_preset("h100-sxm");
  c.num_gpus = gpus;
  return c;
}

TEST_CASE("megatron-lm export: FSDP2 with pipeline parallelism breaks fsdp2-no-pipeline and is offered as Megatron-FSDP") {
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .zero = 3},
                                .training = {.global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-70b"), h100(256), layout);
  CHECK_FALSE(c.runs_as_given());
  REQUIRE(c.breaches.size() == 1);
  CHECK(c.breaches[0].rule == "fsdp2-no-pipeline");
  const std::string& script = script_of(c);
  CHECK(script.find("--use-torch-fsdp2") == std::string::npos);
  CHECK(script.find("  --use-megatron-fsdp \\\n  --data-parallel-sharding-strategy optim_grads_params \\") != std::string::npos);
  CHECK(script.find("--ckpt-format fsdp_dtensor") != std::string::npos);
  CHECK(script.find("CUDA_DEVICE_MAX_CONNECTIONS") == std::string::npos);  // FSDP wants more than one
  CHECK(megatron_lm_breaches(read_megatron_script(script).arguments).empty());
}

TEST_CASE("megatron-lm export: FSDP2 at PP 1 runs as given, with what Megatron-LM asks of it") {
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 1, .dp = 32, .sp = true, .zero = 3},
                                .training = {.global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-70b"), h100(256), layout);
  CHECK(c.runs_as_given());
  const std::string& script = script_of(c);
  for (const char* flag : {"--use-torch-fsdp2 \\", "--no-gradient-accumulation-fusion \\",
                           "--untie-embeddings-and-output-weights \\", "--ckpt-format torch_dist \\"})
    CHECK(script.find(flag) != std::string::npos);
  CHECK(script.find("--use-distributed-optimizer") == std::string::npos);
}

TEST_CASE("megatron-lm export: a model with tied embeddings cannot take FSDP2 and gets Megatron-FSDP") {
  models::TransformerSpec tied = scenarios::model_preset("llama3-8b");
  tied.tied_embeddings = true;
  const planning::Layout layout{.parallelism = {.tp = 1, .pp = 1, .dp = 8, .zero = 3}, .training = {.global_batch = 64}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, tied, h100(8), layout);
  REQUIRE(c.breaches.size() == 1);
  CHECK(c.breaches[0].rule == "fsdp2-untied-embeddings");
  CHECK(script_of(c).find("--use-megatron-fsdp") != std::string::npos);
}

TEST_CASE("megatron-lm export: ZeRO-2 is Megatron-FSDP's optim_grads, and its note stays out of the script") {
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .zero = 2},
                                .training = {.global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-70b"), h100(256), layout);
  CHECK(c.runs_as_given());
  const std::string& script = script_of(c);
  CHECK(script.find("--data-parallel-sharding-strategy optim_grads \\") != std::string::npos);
  CHECK(script.find('#', 1) == std::string::npos);
  CHECK(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("ZeRO-2") != std::string::npos; }));
}

TEST_CASE("megatron-lm export: an ALiBi model is exported without its bias, and every export says so") {
  models::TransformerSpec alibi = scenarios::model_preset("gpt3-175b");
  alibi.alibi = true;
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 8, .dp = 4, .sp = true, .zero = 1},
                                .training = {.global_batch = 1024}};
  for (const Framework f : {Framework::megatron_lm, Framework::nemo, Framework::deepspeed, Framework::torchtitan}) {
    const LaunchConfig c = export_launch(f, alibi, h100(256), layout);
    CHECK(std::any_of(c.notes.begin(), c.notes.end(),
                      [](const std::string& n) { return n.starts_with("model.alibi is not exported"); }));
    const LaunchConfig plain = export_launch(f, scenarios::model_preset("gpt3-175b"), h100(256), layout);
    CHECK(std::none_of(plain.notes.begin(), plain.notes.end(),
                       [](const std::string& n) { return n.starts_with("model.alibi"); }));
  }
  CHECK(script_of(export_launch(Framework::megatron_lm, alibi, h100(256), layout)).find("alibi") == std::string::npos);
}

TEST_CASE("megatron-lm export: a CTA-limited context-parallel group comes with the NCCL file Megatron-Core reads") {
  planning::Layout layout{.parallelism = {.tp = 4, .pp = 4, .dp = 8, .cp = 2, .sp = true, .zero = 1},
                          .training = {.global_batch = 1024}};
  const LaunchConfig free_cp = export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-70b"), h100(256), layout);
  CHECK(script_of(free_cp).find("--nccl-communicator-config-path") == std::string::npos);
  layout.parallelism.cp_max_ctas = 2;
  const LaunchConfig c = export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-70b"), h100(256), layout);
  CHECK(c.runs_as_given());
  REQUIRE(c.files.size() == 2);
  CHECK(c.files[0].content.find("  --nccl-communicator-config-path nccl_communicator_config.yaml \\\n") !=
        std::string::npos);
  check_script_shape(c.files[0].content);
  // parallel_state.get_nccl_options reads max_ctas and min_ctas under the group's name, "cp".
  CHECK(c.files[1].name == "nccl_communicator_config.yaml");
  CHECK(c.files[1].content.ends_with("cp:\n  min_ctas: 1\n  max_ctas: 2\n"));
}

TEST_CASE("megatron-lm export: an uneven interleaved split is a pipeline layout, never with the first/last flags") {
  // 80 layers in 4 x 3 = 12 chunks: 8 of 7 and 4 of 6, the 6s at the two ends (chunks 0, 1, 10, 11).
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .vp = 3, .sp = true},
                                .training = {.global_batch = 1024, .schedule = models::Schedule::interleaved}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-70b"), h100(256), layout);
  CHECK(c.runs_as_given());
  const std::string& script = script_of(c);
  CHECK(script.find("--pipeline-model-parallel-layout 'Et*6|t*6|t*7|t*7|t*7|t*7|t*7|t*7|t*7|t*7|t*6|t*6L'") !=
        std::string::npos);
  CHECK(script.find("--num-layers-per-virtual-pipeline-stage") == std::string::npos);
  CHECK(script.find("--decoder-first-pipeline-num-layers") == std::string::npos);
}

TEST_CASE("megatron-lm export: an uneven split without interleaving takes the first and last stage flags") {
  // Llama 3 405B's 126 layers on 16 stages: 7 on the first and last, 8 on the 14 between.
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 16, .dp = 2, .sp = true}, .training = {.global_batch = 1024}};
  const std::string script =
      script_of(export_launch(Framework::megatron_lm, scenarios::model_preset("llama3-405b"), h100(256), layout));
  CHECK(script.find("--decoder-first-pipeline-num-layers 7 \\\n  --decoder-last-pipeline-num-layers 7 \\") !=
        std::string::npos);
}

TEST_CASE("megatron-lm export: a MoE model with latent attention gets its model flags") {
  // DeepSeek-V3: 61 layers, the first 3 dense; 256 experts of 2048, top 8, one shared; MLA.
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 1, .dp = 32, .sp = true, .ep = 8},
                                .training = {.global_batch = 1024, .precision = models::Precision::fp8}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, scenarios::model_preset("deepseek-v3"), h100(256), layout);
  CHECK(c.runs_as_given());
  const std::string& script = script_of(c);
  for (const char* flag :
       {"--multi-latent-attention \\", "--q-lora-rank 1536 \\", "--kv-lora-rank 512 \\", "--qk-head-dim 128 \\",
        "--qk-pos-emb-head-dim 64 \\", "--v-head-dim 128 \\", "--num-experts 256 \\", "--moe-router-topk 8 \\",
        "--moe-ffn-hidden-size 2048 \\", "--moe-shared-expert-intermediate-size 2048 \\",
        "--moe-layer-freq '([0]*3+[1]*58)' \\", "--expert-model-parallel-size 8 \\",
        "--expert-tensor-parallel-size 1 \\", "--fp8-format hybrid \\", "--fp8-recipe delayed \\",
        "--moe-router-padding-for-quantization \\"})
    CHECK(script.find(flag) != std::string::npos);
  CHECK(script.find("--group-query-attention") == std::string::npos);
  // Read back, the script passes Megatron-LM's rules, the router padding's need of fp8 among them.
  std::string broken;
  for (const RuleBreach& b : megatron_lm_breaches(read_megatron_script(script).arguments)) broken += b.rule + " ";
  CHECK(broken == "");
}

TEST_CASE("megatron-lm export: GPT-OSS's banded layers as Megatron-Core's window flags") {
  // gpt-oss-20b: a 128-token window on every other layer from the first. Megatron-Core's window is
  // (left, right) = (127, 0) (Megatron-Bridge's GPT-OSS bridge), and skip frequency 2 windows layer
  // numbers 1, 3, 5, ... (megatron/core/transformer/utils.py, is_layer_window_attention).
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 1, .dp = 32, .sp = true, .ep = 8},
                                .training = {.global_batch = 1024}};
  const std::string script =
      script_of(export_launch(Framework::megatron_lm, scenarios::model_preset("gpt-oss-20b"), h100(256), layout));
  CHECK(script.find("--window-size 127,0 \\\n  --window-attn-skip-freq 2 \\") != std::string::npos);
  // One windowed layer in four, over 80 layers: a list expression.
  models::TransformerSpec banded = scenarios::model_preset("llama3-70b");
  banded.sliding_window = 4096;
  banded.sliding_window_layers = 4;
  CHECK(window_layer_pattern(banded) == "([1]+[0]*3)*20");
  banded.layers = 82;
  CHECK(window_layer_pattern(banded) == "([1]+[0]*3)*20+[1]+[0]*1");
}

}  // namespace
}  // namespace clustersim::handoff::megatron_lm_export_test
