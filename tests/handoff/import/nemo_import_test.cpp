// Importing Megatron-Bridge override YAMLs: the round trip of every seed layout, and a real file.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "handoff/export/launch_config.hpp"
#include "handoff/import/config_import.hpp"
#include "scenarios/scenario_io.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::nemo_import_test {
namespace {

scenarios::Scenario loaded(const ImportedScenario& imported) {
  return scenarios::load_scenario_text(imported.scenario.dump(), "imported");
}

void check_round_trip(const scenarios::Scenario& s, const planning::Layout& layout) {
  const LaunchConfig c = export_launch(Framework::nemo, s.model, s.cluster, layout);
  REQUIRE(c.runs_as_given());
  const ImportOptions cluster{.nodes = s.cluster.num_gpus / s.cluster.gpus_per_node, .gpus_per_node = s.cluster.gpus_per_node,
                              .gpu = s.cluster.gpu.name};
  scenarios::Scenario back = loaded(import_config(Framework::nemo, c.files[0].content, "overrides.yaml", cluster));
  CHECK(back.parallelism == layout.parallelism);
  // Tokens travel as whole steps (train.train_iters): within one step.
  const double step = static_cast<double>(layout.training.global_batch) * static_cast<double>(layout.training.seq_len);
  CHECK(back.training.tokens >= layout.training.tokens);
  CHECK(back.training.tokens - layout.training.tokens < step);
  back.training.tokens = layout.training.tokens;
  CHECK(back.training == layout.training);
  CHECK(back.model == s.model);
  CHECK(back.cluster.num_gpus == s.cluster.num_gpus);
}

TEST_CASE("nemo import: export then import gives back each seed layout and its model") {
  for (const auto& l : layouts_under_test::twelve_layouts()) {
    CAPTURE(l.name);
    check_round_trip(l.scenario, l.layout);
  }
}

TEST_CASE("nemo import: the round trip keeps MoE, DeepEP, fp8, CUDA graphs, bf16 gradients, the overlaps and the "
          "loss's fusion") {
  check_round_trip(scenarios::default_scenario({"model.preset=mixtral-8x7b"}),
                   {.parallelism = {.tp = 2, .pp = 4, .dp = 32, .vp = 3, .sp = true, .ep = 4, .ep_comm_overlap = true},
                    .training = {.seq_len = 4096, .global_batch = 1024, .recompute = models::Recompute::selective,
                                 .schedule = models::Schedule::interleaved,
                                 .moe_dispatcher = models::MoeDispatcher::deepep}});
  check_round_trip(scenarios::default_scenario({"model.preset=llama3-8b"}),
                   {.parallelism = {.tp = 2, .pp = 1, .dp = 128, .sp = true, .zero = 3, .tp_comm_overlap = true},
                    .training = {.seq_len = 8192, .global_batch = 512, .precision = models::Precision::fp8,
                                 .fp8_recipe = models::Fp8Recipe::blockwise, .recompute = models::Recompute::none,
                                 .grad_dtype = models::GradDtype::bf16,
                                 .cross_entropy = models::CrossEntropyKernel::fused, .cuda_graphs = true}});
}

TEST_CASE("nemo import: nvfp4 goes out as Megatron-Bridge's bf16_with_nvfp4_mixed and comes back") {
  check_round_trip(scenarios::default_scenario({"model.preset=llama3-8b", "cluster.gpu.preset=gb200",
                                                "cluster.gpus_per_node=4", "cluster.nics_per_node=4",
                                                "cluster.nvlink_domain_gpus=64"}),
                   {.parallelism = {.tp = 4, .pp = 1, .dp = 64, .sp = true},
                    .training = {.seq_len = 8192, .global_batch = 512, .precision = models::Precision::nvfp4,
                                 .recompute = models::Recompute::none}});
}

TEST_CASE("nemo import: the deferred output-layer weight gradients and their limit come back") {
  // model.defer_embedding_wgrad_compute and model.wgrad_deferral_limit, Megatron-Core's config fields.
  check_round_trip(scenarios::default_scenario(),
                   {.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true},
                    .training = {.seq_len = 4096, .global_batch = 1024, .defer_embedding_wgrad = true,
                                 .wgrad_deferral_limit = 48}});
}

TEST_CASE("nemo import: the job's pipeline split comes back, an embedding-only first chunk and an uneven one") {
  // Llama 3 70B's 80 layers on 4 stages: the first holds only the embedding (a layout), then a
  // first and last stage of 14 without interleaving (num_layers_in_first/last_pipeline_stage).
  const scenarios::Scenario s = scenarios::default_scenario();
  check_round_trip(s, {.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .layers_per_chunk = {0, 27, 27, 26}},
                       .training = {.seq_len = 4096, .global_batch = 1024}});
  check_round_trip(s, {.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .layers_per_chunk = {14, 26, 26, 14}},
                       .training = {.seq_len = 4096, .global_batch = 1024}});
}

TEST_CASE("nemo import: Megatron-Core's embedding and loss slots give the first and the last chunk a layer less") {
  // Llama 3 70B on 2 stages of 41 chunks: 80 layers + the embedding + the loss are a layer a
  // chunk, the first holding only the embedding and the last only the loss.
  const scenarios::Scenario s = scenarios::default_scenario();
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 2, .dp = 16, .sp = true},
                                .training = {.seq_len = 4096, .global_batch = 1024}};
  std::string yaml = export_launch(Framework::nemo, s.model, s.cluster, layout).files[0].content;
  const std::string vp = "  virtual_pipeline_model_parallel_size: null\n";
  REQUIRE(yaml.find(vp) != std::string::npos);
  yaml.replace(yaml.find(vp), vp.size(),
               "  virtual_pipeline_model_parallel_size: 41\n  account_for_embedding_in_pipeline_split: true\n"
               "  account_for_loss_in_pipeline_split: true\n");
  const ImportOptions cluster{.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"};
  const scenarios::Scenario back = loaded(import_config(Framework::nemo, yaml, "overrides.yaml", cluster));
  std::vector<std::int64_t> expected(82, 1);
  expected.front() = expected.back() = 0;
  CHECK(back.parallelism.vp == 41);
  CHECK(back.parallelism.layers_per_chunk == expected);
}

TEST_CASE("nemo import: Megatron-Bridge's tutorial overrides name no model shape, and the import says so") {
  // tests/handoff/data/README.md: tutorials/recipes/llama/conf/llama32_1b_pretrain.yaml @067f987, which overrides
  // llama32_1b_pretrain_config's batch, sequence and parallel sizes but not its model.
  const std::string path = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/megatron_bridge_llama32_1b_pretrain.yaml";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  CHECK_THROWS_WITH_AS(import_config(Framework::nemo, text, "llama32_1b_pretrain.yaml", {}),
                       doctest::Contains("llama32_1b_pretrain.yaml: model.num_layers is missing"), ImportError);
  // With the Llama 3.2 1B shape added (Hugging Face meta-llama/Llama-3.2-1B config.json: 16 layers of 2048,
  // FFN 8192, 32 heads over 8 key/value heads, 128256 tokens, tied embeddings), the file's own settings come through.
  const std::string with_shape =
      "model:\n  num_layers: 16\n  hidden_size: 2048\n  ffn_hidden_size: 8192\n  num_attention_heads: 32\n"
      "  num_query_groups: 8\n  vocab_size: 128256\n  gated_linear_unit: true\n" +
      text.substr(0, text.find("\nmodel:")) + text.substr(text.find("\nmodel:") + 7);
  const ImportedScenario imported = import_config(Framework::nemo, with_shape, "llama32_1b.yaml", {});
  const scenarios::Scenario s = loaded(imported);
  CHECK(s.training.seq_len == 4096);
  CHECK(s.training.global_batch == 8);
  CHECK(s.training.micro_batch == 1);
  CHECK(s.training.tokens == doctest::Approx(100.0 * 8 * 4096));  // train_iters 100
  CHECK(s.parallelism.tp == 1);
  CHECK(s.parallelism.dp == 8);  // one node of 8 (the YAML names no cluster)
  CHECK(s.model.layers == 16);
  CHECK(s.model.tied_embeddings);  // Megatron-Core's default share_embeddings_and_output_weights
  bool lr_unmapped = false;
  for (const std::string& u : imported.unmapped) lr_unmapped = lr_unmapped || u == "optimizer.lr: 0.0003";
  CHECK(lr_unmapped);
  CHECK_THROWS_WITH_AS(import_config(Framework::nemo, "model:\n\tnum_layers: 2\n", "bad.yaml", {}),
                       "bad.yaml: line 2: a tab in the indentation (YAML indents with spaces)", ImportError);
}

TEST_CASE("nemo import: a layer frequency that is no list and no positive integer is an error naming it") {
  const std::string shape =
      "model:\n  num_layers: 16\n  hidden_size: 2048\n  ffn_hidden_size: 8192\n  num_attention_heads: 32\n"
      "  vocab_size: 128256\n";
  CHECK_THROWS_WITH_AS(import_config(Framework::nemo, shape + "  num_moe_experts: 8\n  moe_layer_freq: every\n", "m.yaml", {}),
                       "m.yaml: model.moe_layer_freq must be a list or an integer of at least 1, got 'every'", ImportError);
  CHECK_THROWS_WITH_AS(import_config(Framework::nemo, shape + "  window_size: [4095, 0]\n  window_attn_skip_freq: 0\n",
                                     "w.yaml", {}),
                       "w.yaml: model.window_attn_skip_freq '0': expected a list or a positive integer", ImportError);
}

}  // namespace
}  // namespace clustersim::handoff::nemo_import_test
