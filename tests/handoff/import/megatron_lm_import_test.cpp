// Importing Megatron-LM launches: real example scripts, the printed arguments block, and the
// round trip export -> import of every seed layout.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "handoff/export/launch_config.hpp"
#include "handoff/frameworks/megatron_lm_rules.hpp"
#include "handoff/import/config_import.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_io.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::megatron_lm_import_test {
namespace {

std::string data(const std::string& name) {
  const std::string path = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/" + name;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  return text;
}

scenarios::Scenario loaded(const ImportedScenario& imported) {
  return scenarios::load_scenario_text(imported.scenario.dump(), "imported");
}

bool mentions(const std::vector<std::string>& lines, std::string_view what) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

TEST_CASE("megatron-lm import: export then import gives back each seed layout, its model and its cluster") {
  for (const auto& l : layouts_under_test::twelve_layouts()) {
    CAPTURE(l.name);
    const LaunchConfig c = export_launch(Framework::megatron_lm, l.scenario.model, l.scenario.cluster, l.layout);
    REQUIRE(c.files.size() == 1);
    const ImportedScenario imported = import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", {});
    const scenarios::Scenario s = loaded(imported);
    CHECK(s.parallelism == l.layout.parallelism);
    CHECK(s.training == l.layout.training);
    CHECK(s.model == l.scenario.model);
    CHECK(imported.scenario.at("model").at("preset") == "llama3-70b");
    CHECK(s.cluster.num_gpus == l.scenario.cluster.num_gpus);
    CHECK(s.cluster.gpus_per_node == l.scenario.cluster.gpus_per_node);
  }
}

void check_round_trip(const std::string& preset, const planning::Layout& layout) {
  CAPTURE(preset);
  const scenarios::Scenario s = scenarios::default_scenario({"model.preset=" + preset});
  const LaunchConfig c = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  REQUIRE(c.runs_as_given());
  scenarios::Scenario back = loaded(import_config(Framework::megatron_lm, c.files[0].content, "x.sh", {}));
  CHECK(back.parallelism == layout.parallelism);
  // Tokens travel as whole samples (--train-samples): within half a sequence.
  CHECK(std::abs(back.training.tokens - layout.training.tokens) <= static_cast<double>(layout.training.seq_len) / 2.0);
  back.training.tokens = layout.training.tokens;
  CHECK(back.training == layout.training);
  CHECK(back.model == s.model);
}

TEST_CASE("megatron-lm import: the round trip keeps a MoE model with an uneven interleaved split, and fp8") {
  // Mixtral 8x7B's 32 layers on 4 stages x 3 chunks (12 chunks: 8 of 3, 4 of 2), EP 4, full
  // recompute, and the gradients added into main_grad by the DDP hook
  // (--no-gradient-accumulation-fusion).
  check_round_trip("mixtral-8x7b",
                   {.parallelism = {.tp = 2, .pp = 4, .dp = 32, .vp = 3, .sp = true, .ep = 4},
                    .training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 1024,
                                 .recompute = models::Recompute::full, .schedule = models::Schedule::interleaved,
                                 .grad_accumulation = models::GradAccumulation::main_grad_add,
                                 .moe_dispatcher = models::MoeDispatcher::deepep}});
  // Llama 3 8B in fp8 with current scaling, CUDA graphs, bf16 gradient reduction, ZeRO-2 and the
  // fused cross-entropy (--cross-entropy-loss-fusion).
  check_round_trip("llama3-8b",
                   {.parallelism = {.tp = 2, .pp = 2, .dp = 64, .sp = true, .zero = 2, .tp_comm_overlap = true},
                    .training = {.seq_len = 8192, .micro_batch = 1, .global_batch = 512,
                                 .precision = models::Precision::fp8, .fp8_recipe = models::Fp8Recipe::current,
                                 .recompute = models::Recompute::none, .grad_dtype = models::GradDtype::bf16,
                                 .cross_entropy = models::CrossEntropyKernel::fused, .cuda_graphs = true}});
}

TEST_CASE("megatron-lm and nemo: RoPE op by op goes out as --no-rope-fusion and apply_rope_fusion false") {
  // Llama 3 70B, TP 8 x PP 4, with training.rope_fusion false: Megatron-LM's flag and NeMo's key
  // carry it and bring it back; fused, the default, is no flag.
  planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true},
                          .training = {.seq_len = 4096, .global_batch = 1024}};
  layout.training.rope_fusion = false;
  check_round_trip("llama3-70b", layout);
  const scenarios::Scenario s = scenarios::default_scenario();
  const LaunchConfig nemo = export_launch(Framework::nemo, s.model, s.cluster, layout);
  REQUIRE(nemo.runs_as_given());
  CHECK(nemo.files[0].content.find("apply_rope_fusion: false") != std::string::npos);
  const scenarios::Scenario back = loaded(import_config(Framework::nemo, nemo.files[0].content, "overrides.yaml",
                                                        {.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"}));
  CHECK_FALSE(back.training.rope_fusion);
  layout.training.rope_fusion = true;
  CHECK(export_launch(Framework::megatron_lm, s.model, s.cluster, layout).files[0].content.find("--no-rope-fusion") ==
        std::string::npos);
}

TEST_CASE("megatron-lm import: the deferred output-layer weight gradients and their limit come back") {
  // --defer-embedding-wgrad-compute --wgrad-deferral-limit 48 on Llama 3 70B, TP 8 x PP 4.
  check_round_trip("llama3-70b", {.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true},
                                  .training = {.seq_len = 4096, .global_batch = 1024, .defer_embedding_wgrad = true,
                                               .wgrad_deferral_limit = 48}});
  // Without a pipeline Megatron-LM refuses the flag (ModelParallelConfig): the import drops it.
  const std::string line =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 "
      "--global-batch-size 64 --vocab-size 32000 --defer-embedding-wgrad-compute";
  CHECK_FALSE(loaded(import_config(Framework::megatron_lm, line, "args.txt", {.nodes = 1})).training.defer_embedding_wgrad);
}

TEST_CASE("megatron-lm import: the job's pipeline split comes back, and Megatron-Core's embedding and loss slots") {
  // Llama 3 70B's 80 layers on 4 stages, the first holding only the embedding: exported as
  // --pipeline-model-parallel-layout "E|t*27|t*27|t*26L", imported as the same split.
  check_round_trip("llama3-70b", {.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .layers_per_chunk = {0, 27, 27, 26}},
                                  .training = {.seq_len = 4096, .global_batch = 1024}});
  const scenarios::Scenario s = scenarios::default_scenario();
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .layers_per_chunk = {0, 27, 27, 26}},
                                .training = {.seq_len = 4096, .global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  CHECK(c.files[0].content.find("--pipeline-model-parallel-layout 'E|t*27|t*27|t*26L'") != std::string::npos);

  // --account-for-embedding/loss-in-pipeline-split count the embedding and the loss as a layer each
  // of the even split and leave them out of the first and the last chunk (Megatron-Core
  // transformer_block.py): 30 layers + 2 on 4 stages x 8 chunks is a layer a chunk, the ends none.
  const std::string line =
      "--num-layers 30 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 "
      "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 --num-virtual-stages-per-pipeline-rank 8 "
      "--global-batch-size 64 --vocab-size 32000 --account-for-embedding-in-pipeline-split "
      "--account-for-loss-in-pipeline-split";
  const scenarios::Scenario slots = loaded(import_config(Framework::megatron_lm, line, "args.txt", {.nodes = 4}));
  std::vector<std::int64_t> expected(32, 1);
  expected.front() = expected.back() = 0;
  CHECK(slots.parallelism.vp == 8);
  CHECK(slots.parallelism.layers_per_chunk == expected);
  // An uneven first and last stage under interleaving: each stage's layers over its chunks, the
  // middle stages sharing the rest (4 + 10 + 10 + 6 on 4 stages of 2 chunks).
  std::string uneven = line;
  uneven.replace(uneven.find("--account-for-embedding"), std::string::npos,
                 "--decoder-first-pipeline-num-layers 4 --decoder-last-pipeline-num-layers 6");
  uneven.replace(uneven.find("--num-virtual-stages-per-pipeline-rank 8"), 40, "--num-virtual-stages-per-pipeline-rank 2");
  const scenarios::Scenario ends = loaded(import_config(Framework::megatron_lm, uneven, "args.txt", {.nodes = 4}));
  CHECK(ends.parallelism.layers_per_chunk == std::vector<std::int64_t>{2, 5, 5, 3, 2, 5, 5, 3});
  // A stage whose layers do not split over its chunks is refused, as Megatron-Core's assert does.
  std::string odd_ends = uneven;
  odd_ends.replace(odd_ends.find("--decoder-first-pipeline-num-layers 4"), 37, "--decoder-first-pipeline-num-layers 3");
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, odd_ends, "args.txt", {.nodes = 4}),
                       doctest::Contains("the pipeline split: first and last stages of 3 and 6 layers"), ImportError);
  // Megatron-Core refuses uneven stages beside the slots.
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, line + " --decoder-first-pipeline-num-layers 4", "args.txt",
                                     {.nodes = 4}),
                       doctest::Contains("cannot be set together"), ImportError);
  // 30 + 1 does not divide into 32 chunks: Megatron-Core refuses it, and so does the import.
  std::string odd = line;
  odd.erase(odd.find(" --account-for-loss-in-pipeline-split"));
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, odd, "args.txt", {.nodes = 4}),
                       doctest::Contains("do not divide into pp x vp = 32 chunks"), ImportError);
}

TEST_CASE("megatron-lm and nemo: the interleaved schedule's micro-batch group goes out and comes back") {
  // Llama 3 70B on 4 stages x 2 chunks, 128 micro-batches in groups of 32.
  const scenarios::Scenario s = scenarios::default_scenario();
  const planning::Layout layout{
      .parallelism = {.tp = 8, .pp = 4, .dp = 8, .vp = 2, .microbatch_group = 32, .sp = true},
      .training = {.seq_len = 4096, .global_batch = 1024, .schedule = models::Schedule::interleaved}};
  check_round_trip("llama3-70b", layout);
  const LaunchConfig megatron = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  CHECK(megatron.files[0].content.find("--microbatch-group-size-per-virtual-pipeline-stage 32") != std::string::npos);
  const LaunchConfig nemo = export_launch(Framework::nemo, s.model, s.cluster, layout);
  REQUIRE(nemo.runs_as_given());
  CHECK(nemo.files[0].content.find("microbatch_group_size_per_vp_stage: 32") != std::string::npos);
  const scenarios::Scenario back = loaded(import_config(Framework::nemo, nemo.files[0].content, "overrides.yaml",
                                                        {.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"}));
  CHECK(back.parallelism == layout.parallelism);
  // The default group (pp) is written nowhere and read as the default.
  planning::Layout by_default = layout;
  by_default.parallelism.microbatch_group = 0;
  CHECK(export_launch(Framework::megatron_lm, s.model, s.cluster, by_default).files[0].content.find("microbatch-group") ==
        std::string::npos);
  // Without interleaving Megatron-LM ignores the flag; the import says so and drops it.
  const std::string line =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 "
      "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 --global-batch-size 64 --vocab-size 32000 "
      "--microbatch-group-size-per-virtual-pipeline-stage 8";
  const ImportedScenario plain = import_config(Framework::megatron_lm, line, "args.txt", {.nodes = 4});
  CHECK(loaded(plain).parallelism.microbatch_group == 0);
  CHECK(mentions(plain.notes, "without interleaving"));
  // Megatron-Core's groups (schedules.py): in [pp, m], and no last group smaller than pp. 128
  // micro-batches in groups of 42 leave a last group of 2 on 4 stages; groups of 30 leave 8.
  CHECK(models::interleaved_groups_hold(128, 4, 0));
  CHECK(models::interleaved_groups_hold(128, 4, 30));
  CHECK_FALSE(models::interleaved_groups_hold(128, 4, 42));
  CHECK_FALSE(models::interleaved_groups_hold(128, 4, 3));
  CHECK_FALSE(models::interleaved_groups_hold(128, 4, 129));
  CHECK_FALSE(models::interleaved_groups_hold(6, 4, 0));  // the default group of pp: 6 leaves 2
}

TEST_CASE("megatron-lm and nemo: the context-parallel communication type goes out and comes back") {
  // Llama 3 70B, TP 4 x CP 2 (8 key/value heads over 8 ranks, as Ulysses needs), and TP 4 x CP 4 in
  // all-to-all groups of 2 for a2a+p2p: each type round-trips; p2p, the default, is no flag.
  const scenarios::Scenario s = scenarios::default_scenario();
  for (const models::CpComm type :
       {models::CpComm::p2p, models::CpComm::all_gather, models::CpComm::a2a, models::CpComm::a2a_p2p}) {
    CAPTURE(models::cp_comm_name(type));
    const bool hierarchical = type == models::CpComm::a2a_p2p;
    const planning::Layout layout{
        .parallelism = {.tp = 4, .pp = 4, .dp = hierarchical ? 4 : 8, .cp = hierarchical ? 4 : 2, .cp_comm = type,
                        .cp_a2a_ranks = hierarchical ? 2 : 0, .sp = true},
        .training = {.seq_len = 4096, .global_batch = 1024}};
    check_round_trip("llama3-70b", layout);
    const LaunchConfig megatron = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
    const bool flagged = megatron.files[0].content.find("--cp-comm-type") != std::string::npos;
    CHECK(flagged == (type != models::CpComm::p2p));
    const LaunchConfig nemo = export_launch(Framework::nemo, s.model, s.cluster, layout);
    REQUIRE(nemo.runs_as_given());
    const scenarios::Scenario back = loaded(import_config(Framework::nemo, nemo.files[0].content, "overrides.yaml",
                                                          {.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"}));
    CHECK(back.parallelism == layout.parallelism);
  }
  // Megatron-LM's help spells it allgather, Transformer Engine all_gather: both read the same.
  CHECK(megatron_cp_comm("allgather") == models::CpComm::all_gather);
  CHECK(megatron_cp_comm("a2a a2a a2a") == models::CpComm::a2a);
  CHECK(megatron_cp_comm("a2a+p2p") == models::CpComm::a2a_p2p);
  CHECK(megatron_cp_a2a_ranks("2 4", 8) == 2);
  CHECK(megatron_cp_a2a_ranks("[4, 2]", 8) == 4);
  CHECK_THROWS_WITH_AS(megatron_cp_a2a_ranks("2 2", 8), doctest::Contains("product is the context-parallel size 8"),
                       std::invalid_argument);
  // 2^32 x 2^32 wraps to 0 in 64 bits: an overflow, not a product that happens to match.
  CHECK_THROWS_WITH_AS(megatron_cp_a2a_ranks("4294967296 4294967296", 0), doctest::Contains("product is the context-parallel size"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(megatron_cp_a2a_ranks("99999999999999999999 1", 8), doctest::Contains("is not a list of sizes"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(megatron_cp_comm("p2p a2a"), doctest::Contains("one type for every layer"),
                       std::invalid_argument);
  const std::string line =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 8192 --max-position-embeddings 8192 "
      "--tensor-model-parallel-size 2 --context-parallel-size 2 --global-batch-size 64 --vocab-size 32000 "
      "--cp-comm-type a2a+p2p";
  // Megatron-LM asserts the hierarchical sizes with a2a+p2p; so does the import.
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, line, "args.txt", {.nodes = 4}),
                       doctest::Contains("--hierarchical-context-parallel-sizes: a2a+p2p takes two levels"),
                       ImportError);
}

TEST_CASE("megatron-lm import: the NCCL options file beside the script gives the context-parallel CTA limit") {
  // The export writes the script and the file --nccl-communicator-config-path names; the import reads
  // that file back through the caller (the CLI looks beside the script), its cp.max_ctas the key,
  // every other option listed as not modelled.
  const scenarios::Scenario s = scenarios::default_scenario();
  const planning::Layout layout{.parallelism = {.tp = 4, .pp = 4, .dp = 8, .cp = 2, .cp_max_ctas = 1, .sp = true},
                                .training = {.seq_len = 4096, .global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  REQUIRE(c.files.size() == 2);
  ImportOptions options{.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"};
  options.read_named_file = [&](const std::string& name) -> std::optional<std::string> {
    CHECK(name == c.files[1].name);
    return c.files[1].content;
  };
  const ImportedScenario imported = import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options);
  CHECK(loaded(imported).parallelism.cp_max_ctas == 1);
  CHECK(mentions(imported.unmapped, "--nccl-communicator-config-path nccl_communicator_config.yaml: cp.min_ctas 1"));
  // Without the file: no limit, and the import says the file was not read.
  options.read_named_file = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  const ImportedScenario unread = import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options);
  CHECK(loaded(unread).parallelism.cp_max_ctas == 0);
  CHECK(mentions(unread.unmapped, "(the file was not read: no CTA limits taken)"));
  // A limit NCCL cannot take is an error naming the flag, the file and the rule.
  options.read_named_file = [](const std::string&) -> std::optional<std::string> { return "cp:\n  max_ctas: 65\n"; };
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options),
                       doctest::Contains("--nccl-communicator-config-path nccl_communicator_config.yaml: cp.max_ctas "
                                         "must be an integer in 1..64 (NCCL's MAXCHANNELS), got '65'"),
                       ImportError);
}

TEST_CASE("megatron-lm import: the data-parallel groups' CTA limit goes out and comes back through the NCCL file") {
  // Megatron-Core's distributed optimizer and DDP run on the dp_cp group ("dp" without context
  // parallelism is a group of its own, the same ranks): the export writes both, the import takes
  // dp_cp's, else dp's.
  const scenarios::Scenario s = scenarios::default_scenario();
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .dp_max_ctas = 8, .sp = true},
                                .training = {.seq_len = 4096, .global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  REQUIRE(c.files.size() == 2);
  CHECK(c.files[1].content.ends_with("dp:\n  min_ctas: 1\n  max_ctas: 8\ndp_cp:\n  min_ctas: 1\n  max_ctas: 8\n"));
  ImportOptions options{.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"};
  std::string file = c.files[1].content;
  options.read_named_file = [&](const std::string&) -> std::optional<std::string> { return file; };
  const ImportedScenario both = import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options);
  CHECK(loaded(both).parallelism.dp_max_ctas == 8);
  CHECK(loaded(both).parallelism.cp_max_ctas == 0);
  CHECK(mentions(both.notes, "dp_cp.max_ctas 8 is parallelism.dp_max_ctas"));
  file = "dp:\n  max_ctas: 4\n";
  CHECK(loaded(import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options))
            .parallelism.dp_max_ctas == 4);
  file = "dp:\n  max_ctas: 4\ndp_cp:\n  max_ctas: 2\n";
  CHECK(loaded(import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options))
            .parallelism.dp_max_ctas == 2);
  file = "dp_cp:\n  max_ctas: 0\n";
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options),
                       doctest::Contains("dp_cp.max_ctas must be an integer in 1..64"), ImportError);
}

TEST_CASE("megatron-lm import: a2a+p2p's CTA limit is the hierarchical groups' (hcp), not the cp group's") {
  // parallel_state.py gives the hierarchical context-parallel groups, which a2a+p2p's all-to-alls
  // and ring run on, the "hcp" options; "cp" then holds a group the exchange does not use.
  const scenarios::Scenario s = scenarios::default_scenario();
  const planning::Layout layout{.parallelism = {.tp = 4, .pp = 4, .dp = 4, .cp = 4, .cp_comm = models::CpComm::a2a_p2p,
                                                .cp_a2a_ranks = 2, .cp_max_ctas = 2, .sp = true},
                                .training = {.seq_len = 8192, .global_batch = 1024}};
  const LaunchConfig c = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  REQUIRE(c.files.size() == 2);
  CHECK(c.files[1].content.ends_with("hcp:\n  min_ctas: 1\n  max_ctas: 2\n"));
  ImportOptions options{.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"};
  std::string file = c.files[1].content;
  options.read_named_file = [&](const std::string&) -> std::optional<std::string> { return file; };
  CHECK(loaded(import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options))
            .parallelism.cp_max_ctas == 2);
  file = "cp:\n  max_ctas: 1\n";
  const ImportedScenario cp_only = import_config(Framework::megatron_lm, c.files[0].content, "pretrain_gpt.sh", options);
  CHECK(loaded(cp_only).parallelism.cp_max_ctas == 0);
  CHECK(mentions(cp_only.unmapped, "nccl_communicator_config.yaml: cp.max_ctas 1"));
}

TEST_CASE("megatron-lm import: every model preset survives export and import, for Megatron-LM and NeMo") {
  // A plain layout per preset: TP 8 (2 for models of fewer heads), PP 2, experts over 8 ranks.
  for (const std::string& name : scenarios::model_preset_names()) {
    CAPTURE(name);
    scenarios::Scenario s = scenarios::default_scenario({"model.preset=" + name});
    const std::int64_t tp = s.model.heads % 8 == 0 ? 8 : 2;
    planning::Layout layout{.parallelism = {.tp = tp, .pp = 2, .dp = 256 / (tp * 2), .sp = true},
                            .training = s.training};
    if (s.model.experts > 0) layout.parallelism.ep = 8;
    for (const Framework f : {Framework::megatron_lm, Framework::nemo}) {
      CAPTURE(framework_name(f));
      const LaunchConfig c = export_launch(f, s.model, s.cluster, layout);
      REQUIRE(c.runs_as_given());
      const ImportedScenario imported =
          import_config(f, c.files[0].content, "x", {.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"});
      CHECK(imported.scenario.at("model").at("preset") == name);
      const scenarios::Scenario back = loaded(imported);
      CHECK(back.model == s.model);
      CHECK(back.parallelism == layout.parallelism);
    }
  }
}

TEST_CASE("megatron-lm import: a window on one layer in four comes back from its list expression") {
  models::TransformerSpec banded = scenarios::model_preset("llama3-70b");
  banded.sliding_window = 4096;
  banded.sliding_window_layers = 4;
  const planning::Layout layout{.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true}, .training = {}};
  models::ClusterSpec cluster = scenarios::default_scenario().cluster;
  for (const Framework f : {Framework::megatron_lm, Framework::nemo}) {
    const LaunchConfig c = export_launch(f, banded, cluster, layout);
    const scenarios::Scenario back =
        loaded(import_config(f, c.files[0].content, "x", {.nodes = 32, .gpus_per_node = 8, .gpu = "h100-sxm"}));
    CHECK(back.model.sliding_window == 4096);
    CHECK(back.model.sliding_window_layers == 4);
  }
}

TEST_CASE("megatron-lm import: Megatron-LM's GPT-3 175B example script") {
  // tests/handoff/data/README.md: NVIDIA/Megatron-LM @d98e8a6, examples/gpt3/train_gpt3_175b_distributed.sh.
  // It names one node of 8 GPUs for TP 8 x PP 16 ("change for multinode"): 16 nodes make its 128.
  const ImportedScenario imported = import_config(Framework::megatron_lm, data("megatron_lm_train_gpt3_175b_distributed.sh"),
                                                  "train_gpt3_175b_distributed.sh", {.nodes = 16});
  CHECK(imported.scenario.at("model").at("preset") == "gpt3-175b");  // 96 x 12288, 96 heads, GeLU 4h, tied
  const scenarios::Scenario s = loaded(imported);
  CHECK(s.cluster.num_gpus == 128);
  CHECK(s.parallelism.tp == 8);
  CHECK(s.parallelism.pp == 16);
  CHECK(s.parallelism.dp == 1);
  CHECK(s.parallelism.zero == 0);
  CHECK(s.training.seq_len == 2048);
  CHECK(s.training.micro_batch == 1);
  CHECK(s.training.global_batch == 1536);
  CHECK(s.training.recompute == models::Recompute::none);
  CHECK(s.training.tokens == doctest::Approx(500000.0 * 1536 * 2048));  // --train-iters 500000
  CHECK(mentions(imported.unmapped, "--step-batch-size-schedule"));
  CHECK(mentions(imported.notes, "--fp16"));
  // Without --nodes the script's one node cannot hold TP 8 x PP 16.
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, data("megatron_lm_train_gpt3_175b_distributed.sh"),
                                     "gpt3.sh", {}),
                       doctest::Contains("not a multiple of TP x PP x CP = 128"), ImportError);
}

TEST_CASE("megatron-lm import: Megatron-LM's Llama 3 8B fp8 example script, arrays and conditions included") {
  // tests/handoff/data/README.md: NVIDIA/Megatron-LM @d98e8a6, examples/llama/train_llama3_8b_h100_fp8.sh.
  const ImportedScenario imported = import_config(Framework::megatron_lm, data("megatron_lm_train_llama3_8b_h100_fp8.sh"),
                                                  "train_llama3_8b_h100_fp8.sh", {});
  CHECK(imported.scenario.at("model").at("preset") == "llama3-8b");
  const scenarios::Scenario s = loaded(imported);
  CHECK(s.cluster.num_gpus == 8);  // GPUS_PER_NODE=8, NUM_NODES=1
  CHECK(s.parallelism.tp == 1);
  CHECK(s.parallelism.dp == 8);
  CHECK_FALSE(s.parallelism.sp);  // --sequence-parallel at TP 1: off, as Megatron-LM does
  CHECK(s.parallelism.zero == 1);
  CHECK(s.training.seq_len == 8192);
  CHECK(s.training.global_batch == 128);
  CHECK(s.training.precision == models::Precision::fp8);  // DTYPE="fp8": the if branch adds --fp8-format hybrid
  CHECK(s.training.fp8_recipe == models::Fp8Recipe::delayed);
  CHECK(s.training.fp8_param_gather);  // --fp8-param-gather, with the distributed optimizer
  CHECK_FALSE(mentions(imported.unmapped, "--fp8-param-gather"));
  CHECK(s.training.grad_dtype == models::GradDtype::bf16);
  CHECK(s.training.overlap_param_gather);
  CHECK(s.training.tokens == doctest::Approx(1953125000.0 * 8192));
  // The mock-data branch ran (TOKENIZER_ARG defaults to MOCK), not the real-data one.
  CHECK(mentions(imported.unmapped, "--tokenizer-type NullTokenizer"));
  CHECK_FALSE(mentions(imported.unmapped, "HuggingFaceTokenizer"));
}

TEST_CASE("megatron-lm import: the arguments block Megatron-LM prints at start-up") {
  // The format of megatron/training/arguments.py _print_args: "  name ...... value", one a line.
  const std::string block =
      "------------------------ arguments ------------------------\n"
      "  bf16 ............................................ True\n"
      "  context_parallel_size ........................... 1\n"
      "  decoder_first_pipeline_num_layers ............... None\n"
      "  ffn_hidden_size ................................. 28672\n"
      "  global_batch_size ............................... 1024\n"
      "  group_query_attention ........................... True\n"
      "  hidden_size ..................................... 8192\n"
      "  max_position_embeddings ......................... 4096\n"
      "  micro_batch_size ................................ 1\n"
      "  num_attention_heads ............................. 64\n"
      "  num_layers ...................................... 80\n"
      "  num_layers_per_virtual_pipeline_stage ........... 5\n"
      "  num_query_groups ................................ 8\n"
      "  pipeline_model_parallel_size .................... 4\n"
      "  recompute_granularity ........................... selective\n"
      "  seq_length ...................................... 4096\n"
      "  sequence_parallel ............................... True\n"
      "  swiglu .......................................... True\n"
      "  tensor_model_parallel_size ...................... 8\n"
      "  untie_embeddings_and_output_weights ............. True\n"
      "  use_distributed_optimizer ....................... True\n"
      "  virtual_pipeline_model_parallel_size ............ 4\n"
      "  vocab_size ...................................... 128256\n"
      "  hidden_dropout .................................. 0.0\n"
      "  attention_dropout ............................... 0.0\n"
      "  world_size ...................................... 256\n"
      "-------------------- end of arguments ---------------------\n";
  const ImportedScenario imported = import_config(Framework::megatron_lm, block, "log.txt", {});
  CHECK(imported.scenario.at("model").at("preset") == "llama3-70b");
  const scenarios::Scenario s = loaded(imported);
  CHECK(s.cluster.num_gpus == 256);  // world_size
  CHECK(s.parallelism.tp == 8);
  CHECK(s.parallelism.pp == 4);
  CHECK(s.parallelism.dp == 8);
  CHECK(s.parallelism.vp == 4);  // the derived virtual size, not 80 / 4 / 5
  CHECK(s.training.schedule == models::Schedule::interleaved);
  CHECK(s.training.recompute == models::Recompute::selective);
}

TEST_CASE("megatron-lm import: a bare command line, and what it cannot read") {
  const std::string line =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 "
      "--tensor-model-parallel-size 2 --global-batch-size 64 --vocab-size 32000 --swiglu --ffn-hidden-size 11008 "
      "--untie-embeddings-and-output-weights --hidden-dropout 0 --attention-dropout 0 --moe-router-pre-softmax";
  const ImportedScenario imported = import_config(Framework::megatron_lm, line, "args.txt", {.nodes = 2});
  CHECK(imported.scenario.at("model").at("preset") == "llama2-7b");
  const scenarios::Scenario s = loaded(imported);
  CHECK(s.parallelism.dp == 8);
  CHECK(s.training.recompute == models::Recompute::none);  // Megatron-LM's default
  CHECK(s.parallelism.zero == 0);
  CHECK(imported.unmapped == std::vector<std::string>{"--moe-router-pre-softmax"});
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, "--hidden-size 4096 --seq-length 2048", "a.txt", {}),
                       doctest::Contains("--num-layers is missing"), ImportError);
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, "ARGS=( --num-layers 2\n", "a.sh", {}),
                       doctest::Contains("line 1: array ARGS has no closing ')'"), ImportError);
  CHECK_THROWS_WITH_AS(import_config(Framework::megatron_lm, "echo hello\n", "a.sh", {}),
                       doctest::Contains("no Megatron-LM arguments"), ImportError);
}

TEST_CASE("megatron-lm import: numbers are read whole, and a count or size that cannot be is an error naming it") {
  const std::string line =
      "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 "
      "--global-batch-size 64 --vocab-size 32000 --swiglu --ffn-hidden-size 11008 ";
  const auto error_of = [](const std::string& text, const std::string& source) {
    try {
      (void)import_config(Framework::megatron_lm, text, source, {.nodes = 1});
    } catch (const ImportError& e) {
      return std::string(e.what());
    }
    return std::string("(imported)");
  };
  CHECK(error_of(line + "--num-experts 8 --moe-layer-freq every", "a.txt") ==
        "a.txt: --moe-layer-freq 'every': expected an integer or a list expression like ([0]*3+[1]*58)");
  CHECK(error_of(line + "--num-experts 8 --moe-layer-freq ([1]*0)", "a.txt") ==
        "a.txt: --moe-layer-freq '([1]*0)': expected an integer or a list expression like ([0]*3+[1]*58)");
  CHECK(error_of(line + "--window-size 4095,0 --window-attn-skip-freq 0", "a.txt") ==
        "a.txt: --window-attn-skip-freq '0': expected a positive integer or a list expression");
  CHECK(error_of(line + "--num-experts 8 --moe-ffn-hidden-size 0 --moe-shared-expert-intermediate-size 0", "a.txt")
            .find("is not a whole number of experts of --moe-ffn-hidden-size 0") != std::string::npos);
  CHECK(error_of(line + "--num-layers 32abc", "a.txt") == "a.txt: --num-layers: must be an integer, got '32abc'");
  // Shell arithmetic past 64 bits, and a printed arguments block whose world size is no number.
  CHECK(error_of("L=$((4611686018427387904 * 4))\npython pretrain_gpt.py " + line + "--micro-batch-size $L\n", "a.sh")
            .find("arithmetic '4611686018427387904 * 4': past 64-bit integers") != std::string::npos);
  CHECK(error_of("  num_layers ...................... 32\n  hidden_size ..................... 4096\n"
                 "  num_attention_heads ............. 32\n  world_size ...................... many\n",
                 "log.txt")
            .find("world_size must be a positive whole number, got 'many'") != std::string::npos);
}

}  // namespace
}  // namespace clustersim::handoff::megatron_lm_import_test

namespace clustersim::handoff::megatron_lm_import_test {
namespace {

TEST_CASE("megatron-lm import: nvfp4 goes out as --fp4-format e2m1 --fp4-recipe nvfp4 and comes back") {
  const scenarios::Scenario s = scenarios::default_scenario(
      {"model.preset=llama3-8b", "cluster.gpu.preset=gb200", "cluster.gpus_per_node=4", "cluster.nics_per_node=4",
       "cluster.nvlink_domain_gpus=64", "parallelism.tp=4", "parallelism.pp=1", "parallelism.dp=64",
       "training.precision=nvfp4"});
  const planning::Layout layout{.parallelism = s.parallelism, .training = s.training};
  const LaunchConfig c = export_launch(Framework::megatron_lm, s.model, s.cluster, layout);
  REQUIRE(c.runs_as_given());
  const std::string& script = c.files[0].content;
  CHECK(script.find("--fp4-format e2m1 \\\n  --fp4-recipe nvfp4 \\") != std::string::npos);
  CHECK(script.find("--fp8-format") == std::string::npos);
  const ImportedScenario imported = import_config(Framework::megatron_lm, script, "x.sh", {});
  CHECK(imported.scenario.at("training").at("precision") == "nvfp4");
}

}  // namespace
}  // namespace clustersim::handoff::megatron_lm_import_test
