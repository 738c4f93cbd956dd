// The NeMo 2 / Megatron-Bridge export: overrides.yaml and run_recipe.sh, which Megatron-Bridge's
// rules accept when read back.
#include <doctest/doctest.h>

#include <map>

#include "handoff/export/launch_config.hpp"
#include "handoff/frameworks/nemo_rules.hpp"
#include "handoff/import/megatron_lm_script.hpp"
#include "handoff/import/yaml_subset.hpp"
#include "scenarios/presets.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::nemo_export_test {
namespace {

struct NemoFiles {
  std::string yaml, launch;
};

NemoFiles files_of(const LaunchConfig& c) {
  REQUIRE(c.files.size() == 2);
  REQUIRE(c.files[0].name == "overrides.yaml");
  REQUIRE(c.files[1].name == "run_recipe.sh");
  return {c.files[0].content, c.files[1].content};
}

// run_recipe.sh's KEY=VALUE words (bash quoting and Hydra's "..." removed), and its world size.
std::map<std::string, std::string> cli_overrides(const std::string& launch, std::int64_t& world_size) {
  std::map<std::string, std::string> out;
  std::size_t pos = launch.find("--dataset mock");
  REQUIRE(pos != std::string::npos);
  for (pos = launch.find('\n', pos); pos != std::string::npos && pos + 1 < launch.size();) {
    const std::size_t end = launch.find('\n', pos + 1);
    std::string word = launch.substr(pos + 1, end - pos - 1);
    pos = end;
    while (!word.empty() && (word.back() == '\\' || word.back() == ' ')) word.pop_back();
    while (!word.empty() && word.front() == ' ') word.erase(0, 1);
    if (word.size() > 1 && word.front() == '\'' && word.back() == '\'') word = word.substr(1, word.size() - 2);
    const std::size_t eq = word.find('=');
    REQUIRE(eq != std::string::npos);
    std::string value = word.substr(eq + 1);
    if (value.size() > 1 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    out[word.substr(0, eq)] = value;
  }
  // The launcher line, read as any launch script is.
  const MegatronScript read = read_megatron_script(launch);
  world_size = read.nnodes * read.nproc_per_node;
  return out;
}

void check_exports_pass(const std::vector<layouts_under_test::NamedLayout>& layouts) {
  for (const auto& l : layouts) {
    CAPTURE(l.name);
    const LaunchConfig c = export_launch(Framework::nemo, l.scenario.model, l.scenario.cluster, l.layout);
    const NemoFiles f = files_of(c);
    const NemoOverrides yaml{.values = flatten_yaml(parse_yaml(f.yaml)), .world_size = l.scenario.cluster.num_gpus};
    std::string broken;
    for (const RuleBreach& b : nemo_breaches(yaml)) broken += b.rule + " ";
    CHECK(broken == "");
    // The command line sets what the YAML sets (but comm_overlap fields the layout leaves off).
    std::int64_t world = 0;
    const auto cli = cli_overrides(f.launch, world);
    CHECK(world == l.scenario.cluster.num_gpus);
    for (const auto& setting : yaml.values) {
      const std::string& key = setting.first;  // not a structured binding: clang 14 cannot capture those
      const auto& value = setting.second;
      CAPTURE(key);
      if (key.starts_with("comm_overlap.") && value != "true") continue;
      REQUIRE(cli.contains(key));
      CHECK(cli.at(key) == value);
    }
  }
}

TEST_CASE("nemo export: every seed layout's overrides pass Megatron-Bridge's rules when read back") {
  const auto layouts = layouts_under_test::twelve_layouts();
  REQUIRE(layouts.size() == 12);
  check_exports_pass(layouts);
}

TEST_CASE("nemo export: the top 20 layouts of sweep --search pass Megatron-Bridge's rules when read back") {
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

std::map<std::string, std::string> yaml_of(const LaunchConfig& c) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : flatten_yaml(parse_yaml(files_of(c).yaml))) out[k] = v;
  return out;
}

TEST_CASE("nemo export: the recipe of the model, the interleaved schedule, Megatron-FSDP and fp8") {
  // Llama 3 70B's 80 layers in 4 x 3 chunks: the uneven split as a layout, the 6-layer chunks at the ends.
  const planning::Layout interleaved{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .vp = 3, .sp = true, .zero = 2},
                                     .training = {.global_batch = 1024, .precision = models::Precision::fp8,
                                                  .fp8_recipe = models::Fp8Recipe::current,
                                                  .recompute = models::Recompute::full,
                                                  .schedule = models::Schedule::interleaved}};
  const LaunchConfig c = export_launch(Framework::nemo, scenarios::model_preset("llama3-70b"), h100(256), interleaved);
  CHECK(c.runs_as_given());
  const auto y = yaml_of(c);
  CHECK(y.at("model.virtual_pipeline_model_parallel_size") == "3");
  CHECK(y.at("model.pipeline_model_parallel_layout") == "Et*6|t*6|t*7|t*7|t*7|t*7|t*7|t*7|t*7|t*7|t*6|t*6L");
  CHECK(y.at("ddp.use_megatron_fsdp") == "true");
  CHECK(y.at("ddp.data_parallel_sharding_strategy") == "optim_grads");
  CHECK(y.at("checkpoint.ckpt_format") == "fsdp_dtensor");
  CHECK(y.at("mixed_precision") == "bf16_with_fp8_current_scaling_mixed");
  CHECK(y.at("model.recompute_granularity") == "full");
  CHECK(y.at("model.recompute_method") == "uniform");
  CHECK(y.at("model.recompute_num_layers") == "1");
  CHECK(files_of(c).launch.find("--recipe llama3_70b_pretrain_config") != std::string::npos);
  // A model without a recipe of its own: the generic GPT recipe, with a note.
  const LaunchConfig mixtral = export_launch(Framework::nemo, scenarios::model_preset("mixtral-8x7b"), h100(256),
                                             {.parallelism = {.tp = 2, .pp = 1, .dp = 128, .sp = true, .ep = 8},
                                              .training = {.global_batch = 1024}});
  CHECK(mixtral.runs_as_given());
  CHECK(files_of(mixtral).launch.find("--recipe vanilla_gpt_pretrain_config") != std::string::npos);
  CHECK(yaml_of(mixtral).at("model.num_moe_experts") == "8");
  CHECK(yaml_of(mixtral).at("model.moe_layer_freq") == "1");
  CHECK(!yaml_of(mixtral).contains("model.moe_router_padding_for_quantization"));
  // In fp8 the experts' rows are padded in the routing map, as the model pads them.
  const LaunchConfig mixtral_fp8 =
      export_launch(Framework::nemo, scenarios::model_preset("mixtral-8x7b"), h100(256),
                    {.parallelism = {.tp = 2, .pp = 1, .dp = 128, .sp = true, .ep = 8},
                     .training = {.global_batch = 1024, .precision = models::Precision::fp8}});
  CHECK(mixtral_fp8.runs_as_given());
  CHECK(yaml_of(mixtral_fp8).at("model.moe_router_padding_for_quantization") == "true");
}

TEST_CASE("nemo export: a layout Megatron-Bridge refuses gets the breach and no files") {
  // 4098 tokens over CP 2: not a multiple of 2 x 2 (config.py).
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 1, .dp = 16, .cp = 2, .sp = true},
                                .training = {.seq_len = 4098, .global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::nemo, scenarios::model_preset("llama3-8b"), h100(256), layout);
  CHECK_FALSE(c.runs_as_given());
  REQUIRE(c.breaches.size() == 1);
  CHECK(c.breaches[0].rule == "context-parallel-sequence");
  CHECK(c.files.empty());
}

}  // namespace
}  // namespace clustersim::handoff::nemo_export_test
