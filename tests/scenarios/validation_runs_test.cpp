#include "scenarios/validation_runs.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <variant>

#include "scenarios/csv_reader.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/validation_sources.hpp"

namespace clustersim::scenarios {
namespace {

constexpr std::string_view kNarayanan = "Narayanan et al. 2021 (SC21, arXiv:2104.04473) Table 1";
constexpr std::string_view kMegatronCore =
    "NVIDIA/Megatron-LM README.md 'Training Speed and Scalability' (Megatron-Core r0.8.0)";

// Narayanan et al. 2021 Table 1, first row: GPT 1.7B on 32 A100, TP1 PP1 DP32, 137 TFLOP/s.
ValidationRow gpt_1_7b() {
  ValidationRow r;
  r.line = 2;
  r.id = "gpt-1.7b";
  r.source = kNarayanan;
  r.model = "GPT 1.7B";
  r.layers = "24";
  r.hidden = "2304";
  r.ffn_hidden = "9216";
  r.heads = "24";
  r.kv_heads = "24";
  r.seq_len = "2048";
  r.vocab = "51200";
  r.gpu = "A100-SXM4-80GB";
  r.num_gpus = "32";
  r.precision = "fp16/bf16 mixed";
  r.tp = "1";
  r.pp = "1";
  r.dp = "32";
  r.cp = "1";
  r.recompute = "full";
  r.global_batch = "512";
  r.measured_tflops_per_gpu = "137";
  r.notes = "Selene DGX A100 (8x200Gb/s HDR IB per node).";
  return r;
}

// The GPT row as Megatron-Core's 2024 table on H100 would give it.
ValidationRow megatron_core_h100_row() {
  ValidationRow r = gpt_1_7b();
  r.source = kMegatronCore;
  r.gpu = "H100-SXM5-80GB";
  return r;
}

ValidationCase mapped(const ValidationRow& row) {
  MappedRow result = map_validation_row(row, "runs.csv");
  if (const auto* skipped = std::get_if<SkippedRow>(&result)) FAIL("skipped: " << skipped->reason);
  return std::get<ValidationCase>(std::move(result));
}

std::string skip_reason(const ValidationRow& row) {
  MappedRow result = map_validation_row(row, "runs.csv");
  const auto* skipped = std::get_if<SkippedRow>(&result);
  return skipped == nullptr ? std::string("(not skipped)") : skipped->reason;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

// --- CSV ------------------------------------------------------------------------------------

TEST_CASE("csv: quoted fields keep commas, doubled quotes and line breaks, records remember their line") {
  // RFC 4180: "a,b" is one field, "" inside quotes is one quote, and a quoted field may span
  // lines, so the third record starts on line 4. CRLF and LF both end records.
  const std::string text = "id,note,n\r\n"
                           "x,\"one, two\",1\r\n"
                           "y,\"say \"\"hi\"\"\nsecond line\",2\n"
                           "z,,\n";
  const auto records = read_csv(text, "f.csv");
  REQUIRE(records.size() == 4);
  CHECK(records[1].fields == std::vector<std::string>{"x", "one, two", "1"});
  CHECK(records[2].fields == std::vector<std::string>{"y", "say \"hi\"\nsecond line", "2"});
  CHECK(records[2].line == 3);
  CHECK(records[3].line == 5);
  CHECK(records[3].fields == std::vector<std::string>{"z", "", ""});  // empty fields stay
}

TEST_CASE("csv: a quote left open or a stray quote is an error naming file and line") {
  // The open quote starts on line 2; the stray quote sits in an unquoted field on line 3.
  CHECK(error_of([] { read_csv("a,b\nx,\"never closed\n", "f.csv"); }) ==
        "f.csv:2: quoted field is not closed before the end of the file");
  CHECK(error_of([] { read_csv("a,b\nx,y\nx,5\"\n", "f.csv"); }).starts_with("f.csv:3: quote inside"));
  CHECK(error_of([] { read_csv("a,b\n\"x\"y,1\n", "f.csv"); }).starts_with("f.csv:2: unexpected character"));
}

TEST_CASE("validation csv: the header must have every column and every row as many fields") {
  CHECK(error_of([] { read_validation_rows("id,source\nx,y\n", "r.csv"); }) ==
        "r.csv:1: header has no column \"model\"");
  const std::string embedded(embedded_validation_csv());
  const std::string header = embedded.substr(0, embedded.find('\n') + 1);
  CHECK(error_of([&] { read_validation_rows(header + "only,three,fields\n", "r.csv"); })
            .starts_with("r.csv:2: 3 fields, the header has 30"));
}

TEST_CASE("validation csv: a column twice, an empty or repeated id, an MFU over 1 are errors naming file and line") {
  const std::string embedded(embedded_validation_csv());
  const std::string header = embedded.substr(0, embedded.find('\n'));
  const std::string first_row = embedded.substr(header.size() + 1, embedded.find("\nmeg21-t1-3.6b") - header.size());
  REQUIRE(first_row.starts_with("meg21-t1-1.7b,"));
  CHECK(error_of([&] { read_validation_rows(header + ",tp\n", "r.csv"); }) ==
        "r.csv:1: column \"tp\" appears twice (fields 15 and 31): which one holds the value?");
  CHECK(error_of([&] { read_validation_rows(header + "\n" + first_row.substr(first_row.find(',')), "r.csv"); }) ==
        "r.csv:2: column id must not be empty");
  CHECK(error_of([&] { read_validation_rows(header + "\n" + first_row + first_row, "r.csv"); }) ==
        "r.csv:3: column id \"meg21-t1-1.7b\" is also the id of line 2: ids must be unique");
  ValidationRow row = gpt_1_7b();
  row.measured_mfu = "1.5";
  CHECK(error_of([&] { map_validation_row(row, "runs.csv"); }) ==
        "runs.csv:2: column measured_mfu must be a fraction of the peak in (0, 1], got \"1.5\"");
  row.measured_mfu = "1";
  CHECK(error_of([&] { map_validation_row(row, "runs.csv"); }).empty());
}

TEST_CASE("validation csv: the embedded copy is scenarios/validation/published_runs.csv") {
  std::ifstream file(CLUSTERSIM_SOURCE_DIR "/scenarios/validation/published_runs.csv", std::ios::binary);
  REQUIRE(file);
  std::ostringstream text;
  text << file.rdbuf();
  std::string on_disk = text.str();
  std::string embedded(embedded_validation_csv());
  // The compiler may normalise CRLF inside the raw string literal; compare the records.
  CHECK(read_csv(embedded, "e").size() == read_csv(on_disk, "d").size());
  CHECK(read_validation_rows(embedded, "e").back().id == read_validation_rows(on_disk, "d").back().id);
}

TEST_CASE("validation csv: a numeric column that holds words is an error naming file and line") {
  ValidationRow row = gpt_1_7b();
  row.line = 7;
  row.tp = "eight";
  CHECK(error_of([&] { map_validation_row(row, "runs.csv"); }) ==
        "runs.csv:7: column tp must be a positive integer, got \"eight\"");
}

// --- mapping --------------------------------------------------------------------------------

TEST_CASE("validation: a GPT row maps to a gelu model on the named system with the family's defaults") {
  const ValidationCase c = mapped(gpt_1_7b());
  CHECK(c.family->name == "Narayanan 2021");
  CHECK(c.scenario.model.mlp == models::MlpKind::gelu);  // ffn = 4h
  CHECK(c.scenario.model.tied_embeddings);
  CHECK(c.scenario.cluster.gpu.name == "a100-80gb");
  CHECK(c.scenario.cluster.nic_bytes_per_s == doctest::Approx(200e9 / 8));  // Selene HDR
  CHECK(c.scenario.parallelism.zero == 0);  // Megatron-LM 2021: no distributed optimizer
  CHECK(c.scenario.training.recompute == models::Recompute::full);
  CHECK(c.scenario.training.micro_batch == 1);
  CHECK(c.scenario.training.schedule == models::Schedule::one_f_one_b);
  CHECK(c.scenario.training.precision == models::Precision::bf16);  // fp16 runs at the bf16 peak
  CHECK_FALSE(c.scenario.training.overlap_grad_reduce);
}

TEST_CASE("validation: dropout follows the family and the model, gradient dtype the family") {
  // Narayanan 2021 GPT: Megatron-LM's default dropout 0.1, 16-bit gradients (16-bit training,
  // no --accumulate-allreduce-grads-in-fp32).
  const ValidationCase gpt = mapped(gpt_1_7b());
  CHECK(gpt.scenario.model.dropout == 0.1);
  CHECK(gpt.scenario.training.grad_dtype == models::GradDtype::bf16);
  // A Llama model trains without dropout whatever the family.
  ValidationRow llama = gpt_1_7b();
  llama.model = "Llama 2 7B";
  const ValidationCase l = mapped(llama);
  CHECK(l.scenario.model.dropout == 0.0);
  CHECK(std::any_of(l.assumptions.begin(), l.assumptions.end(),
                    [](const std::string& a) { return a.starts_with("dropout=0: Llama"); }));
  // NeMo 24.07: GPT-3 keeps 0.1, a row naming the MLPerf configuration takes its 0, and the
  // family's performance configurations reduce gradients in bf16.
  ValidationRow nemo = gpt_1_7b();
  nemo.source = "NVIDIA/NeMo docs/source/performance/performance_summary.md @ 8e3d65dcfe";
  nemo.gpu = "H100-SXM5-80GB";
  const ValidationCase n = mapped(nemo);
  CHECK(n.scenario.model.dropout == 0.1);
  CHECK(n.scenario.training.grad_dtype == models::GradDtype::bf16);
  nemo.notes = "links to MLCommons (MLPerf-like config)";
  CHECK(mapped(nemo).scenario.model.dropout == 0.0);
}

TEST_CASE("validation: gated MLPs, interleaving, ZeRO spellings and named networks are read from the row") {
  ValidationRow row = gpt_1_7b();
  row.source = kMegatronCore;
  row.model = "Llama-like";
  row.ffn_hidden = "6144";  // not 4h: a gated MLP
  row.tp = "1";
  row.pp = "2";
  row.dp = "";  // derived: 32 / (1 x 2 x 1) = 16
  row.vp = "3";
  row.global_batch = "64";
  row.zero_stage = "3 (FSDP2)";
  row.notes = "Jean Zay (4x Omni-Path 100Gb/s per node)";
  ValidationCase c = mapped(row);
  CHECK(c.scenario.model.mlp == models::MlpKind::swiglu);
  CHECK_FALSE(c.scenario.model.tied_embeddings);
  CHECK(c.scenario.parallelism.dp == 16);
  CHECK(c.scenario.training.schedule == models::Schedule::interleaved);
  CHECK(c.scenario.parallelism.zero == 3);
  CHECK(c.scenario.cluster.nics_per_node == 4);
  CHECK(c.scenario.cluster.nic_bytes_per_s == doctest::Approx(100e9 / 8));
  CHECK(c.scenario.cluster.fabric == models::Fabric::omnipath);

  // Llama 3's FSDP shards the gradients and keeps the parameters whole: ZeRO-2, each micro-batch's
  // gradients reduce-scattered into the fp32 shard, as the mapping says.
  row.zero_stage = "FSDP (opt state+grads sharded; params not resharded after fwd)";
  CHECK(mapped(row).scenario.parallelism.zero == 2);
  row.zero_stage = "1 (BF16Optimizer, ZeRO-1 equivalent)";
  CHECK(mapped(row).scenario.parallelism.zero == 1);
  row.precision = "float8 linears + bf16";
  row.gpu = "H100-SXM5-80GB";
  CHECK(mapped(row).scenario.training.precision == models::Precision::fp8);
}

TEST_CASE("validation: NeMo and MLPerf fp8 rows run Transformer Engine's delayed scaling") {
  for (const char* source : {"NVIDIA/NeMo docs/source/performance/performance_summary.md",
                             "mlcommons/training_results_v3.1 NVIDIA/results"}) {
    CAPTURE(source);
    REQUIRE(source_family(source).fp8_recipe);
    CHECK(source_family(source).fp8_recipe->value == models::Fp8Recipe::delayed);
    CHECK(source_family(source).fp8_recipe->reason.starts_with("fp8_recipe=delayed"));
  }
  REQUIRE(source_family("pytorch/torchtitan benchmarks").fp8_recipe);
  CHECK(source_family("pytorch/torchtitan benchmarks").fp8_recipe->value == models::Fp8Recipe::current);
  // The frameworks' own sets agree: Transformer Engine's default, torchao's tensorwise scaling.
  CHECK(models::framework_parameters(models::Framework::megatron_core).fp8_recipe.value == models::Fp8Recipe::delayed);
  CHECK(models::framework_parameters(models::Framework::torchtitan).fp8_recipe.value == models::Fp8Recipe::current);
}

TEST_CASE("validation: pre-2023 Megatron families run unfused attention, their ZeRO-3 rows do not overlap") {
  // Narayanan 2021 (and Korthikanti 2022, BLOOM) predate FlashAttention in Megatron-LM; the reason
  // is among the row's assumptions. Their DeepSpeed ZeRO-3 rows block on gathers and reduce-scatters.
  const ValidationCase c = mapped(gpt_1_7b());
  CHECK(c.scenario.training.attention == models::AttentionKernel::unfused);
  const auto mentions = [](const ValidationCase& v, std::string_view text) {
    return std::any_of(v.assumptions.begin(), v.assumptions.end(),
                       [&](const std::string& a) { return a.find(text) != std::string::npos; });
  };
  CHECK(mentions(c, "Dao et al., NeurIPS 2022"));
  CHECK(c.scenario.training.overlap_param_gather);  // no ZeRO-3: nothing to gather per pass

  ValidationRow row = gpt_1_7b();
  row.zero_stage = "3";
  const ValidationCase zero3 = mapped(row);
  CHECK_FALSE(zero3.scenario.training.overlap_param_gather);
  CHECK_FALSE(zero3.scenario.training.overlap_grad_reduce);
  CHECK(mentions(zero3, "section 5.2"));
  CHECK_FALSE(mentions(zero3, "local DDP"));  // the Megatron DDP reason is not this row's

  row.source = "Korthikanti et al. 2022 'Reducing Activation Recomputation'";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::unfused);
  row.source = "bigscience-workshop/bigscience train/tr11-176B-ml README";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::unfused);
  row.source = kMegatronCore;
  const ValidationCase modern = mapped(row);
  CHECK(modern.scenario.training.attention == models::AttentionKernel::cudnn);
  CHECK(modern.scenario.training.overlap_param_gather);  // FSDP-style prefetch
  CHECK(mentions(modern, "attention=cudnn"));  // Transformer Engine's choice on Hopper
  CHECK(mentions(modern, "framework=megatron-core"));
}

TEST_CASE("validation: Megatron-LM 2021 reduces after the backward, but with --DDP-impl torch during it") {
  // The local DDP of Narayanan's runs all-reduced after the last backward; the SC21 scripts ran the
  // models up to 18B with PyTorch's DistributedDataParallel, whose buckets reduce during it.
  ValidationRow row = gpt_1_7b();
  CHECK_FALSE(mapped(row).scenario.training.overlap_grad_reduce);
  row.notes = "micro-batch 16, --DDP-impl torch: the authors' launch script";
  const ValidationCase torch_ddp = mapped(row);
  CHECK(torch_ddp.scenario.training.overlap_grad_reduce);
  CHECK(std::any_of(torch_ddp.assumptions.begin(), torch_ddp.assumptions.end(),
                    [](const std::string& a) { return a.find("--DDP-impl torch") != std::string::npos; }));
  row.notes = "--DDP-impl local";
  CHECK_FALSE(mapped(row).scenario.training.overlap_grad_reduce);
}

TEST_CASE("validation: the attention kernel the run's software ran, by family and by the row's NVTE_FUSED_ATTN") {
  // NeMo's launcher turned cuDNN's attention off from 2024-02-13 to 2024-08-29 (NeMo 24.07's table
  // ran FlashAttention-2), but for the GPT-3 175B job, whose rows say NVTE_FUSED_ATTN=1; MLPerf v3.1
  // ran flash-attn first, v4.1 Transformer Engine's default, cuDNN.
  ValidationRow row = gpt_1_7b();
  row.source = "NVIDIA/NeMo docs/source/performance/performance_summary.md, container NeMo 24.07";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::flash2);
  row.notes = "NVTE_FUSED_ATTN=1: the launcher's GPT-3 175B job";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::cudnn);
  row.notes = "NVTE_FUSED_ATTN=0";
  row.source = "mlcommons/training_results_v4.1 NVIDIA/results";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::flash2);  // the row over its family
  row.notes = "";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::cudnn);
  row.source = "mlcommons/training_results_v3.1 NVIDIA/results";
  CHECK(mapped(row).scenario.training.attention == models::AttentionKernel::flash2);
}

TEST_CASE("validation: a NeMo optimizer at the model's bf16 keeps no master, as a bf16 model trains") {
  // NeMo 1.x's distributed_fused_adam with optim.dtype bf16 on a bf16 model: Apex steps the bf16
  // weights with bf16 moments (store_params False), 4 B of optimizer state a parameter, not 12.
  ValidationRow row = gpt_1_7b();
  row.source = "NVIDIA/NeMo docs/source/performance/performance_summary.md, container NeMo 24.07";
  CHECK_FALSE(mapped(row).scenario.training.bf16_params);
  row.notes = "optim.dtype=bf16: the launcher's configuration";
  CHECK(mapped(row).scenario.training.bf16_params);
}

TEST_CASE("validation: each era's gradient accumulation: autograd in 2021, fused from 2022, DeepSpeed's cast-add") {
  const auto mentions = [](const ValidationCase& v, std::string_view text) {
    return std::any_of(v.assumptions.begin(), v.assumptions.end(),
                       [&](const std::string& a) { return a.find(text) != std::string::npos; });
  };
  // Narayanan 2021 ran before gradient accumulation fusion (Megatron-LM 83b1e42, 2022-02-13).
  const ValidationCase narayanan = mapped(gpt_1_7b());
  CHECK(narayanan.scenario.training.grad_accumulation == models::GradAccumulation::autograd);
  CHECK(mentions(narayanan, "83b1e42"));

  ValidationRow row = gpt_1_7b();
  row.source = "Korthikanti et al. 2022 'Reducing Activation Recomputation'";
  CHECK(mapped(row).scenario.training.grad_accumulation == models::GradAccumulation::fused);
  row.source = "bigscience-workshop/bigscience train/tr11-176B-ml README";
  const ValidationCase bloom = mapped(row);
  CHECK(bloom.scenario.training.grad_accumulation == models::GradAccumulation::fp32_cast_add);
  CHECK(mentions(bloom, "update_hp_grads"));
  row.source = kMegatronCore;
  CHECK(mapped(row).scenario.training.grad_accumulation == models::GradAccumulation::fused);
}

// torchtitan's Dec 2024 benchmarks on Grand Teton (benchmarks/llama3_h100_202412_torchtitan.md),
// Table 5: Llama 3.1 405B on 512 H100 96GB at 500 W, FSDP8 x TP8 x PP8, Interleaved 1F1B, compile,
// Float8 and AsyncTP, global batch 256; micro-batch count and V not stated.
ValidationRow torchtitan_405b() {
  ValidationRow r;
  r.line = 82;
  r.id = "torchtitan-405b";
  r.source = "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md";
  r.model = "Llama 3.1 405B";
  r.layers = "126";
  r.hidden = "16384";
  r.ffn_hidden = "53248";
  r.heads = "128";
  r.kv_heads = "8";
  r.vocab = "128256";
  r.gpu = "H100 96GB HBM2e @500W (Grand Teton, non-standard SKU)";
  r.num_gpus = "512";
  r.precision = "float8 linears + bf16";
  r.tp = "8";
  r.pp = "8";
  r.dp = "8";
  r.zero_stage = "3 (FSDP2)";
  r.recompute = "full";
  r.global_batch = "256";
  r.measured_tokens_per_sec_per_gpu = "128";
  r.notes = "Table 5: Interleaved 1F1B; compile+Float8+AsyncTP. 400Gb/s RDMA per GPU.";
  return r;
}

bool assumes(const ValidationCase& c, std::string_view text) {
  return std::any_of(c.assumptions.begin(), c.assumptions.end(),
                     [&](const std::string& a) { return a.find(text) != std::string::npos; });
}

TEST_CASE("validation: torchtitan's Grand Teton rows run on h100-96gb-500w with torchtitan's defaults") {
  const ValidationCase c = mapped(torchtitan_405b());
  const Scenario& s = c.scenario;
  CHECK(s.cluster.gpu.name == "h100-96gb-500w");
  CHECK(s.cluster.gpu.hbm_bytes_per_s == 2.4e12);
  CHECK(s.cluster.fabric == models::Fabric::roce);  // "400Gb/s RDMA per GPU": Grand Teton's RoCE
  // AsyncTP is tensor-parallel overlap, on the sequence-parallel TP plan.
  CHECK(s.parallelism.sp);
  CHECK(s.parallelism.tp_comm_overlap);
  // torchtitan's defaults at 9dec370: Interleaved1F1B with 2 stages per rank, and as many
  // micro-batches as pipeline ranks: 256 / (8 x 8) = 4 sequences each, 8 per step.
  CHECK(s.parallelism.vp == 2);
  CHECK(s.training.schedule == models::Schedule::interleaved);
  CHECK(s.training.micro_batch == 4);
  CHECK(assumes(c, "2 stages per rank"));
  CHECK(assumes(c, "pipeline_parallel_microbatches"));
  CHECK(s.training.seq_len == 8192);
  CHECK(s.training.precision == models::Precision::fp8);
  CHECK(assumes(c, "FSDP gathers bf16 parameters unless the row names the float8 all-gather"));
  CHECK_FALSE(s.training.fp8_param_gather);  // the Dec 2024 rows do not name it
  CHECK(s.training.fp8_recipe == models::Fp8Recipe::current);  // torchao tensorwise dynamic scaling
  CHECK(assumes(c, "fp8_recipe=current"));
  CHECK(s.training.elementwise == models::ElementwiseKernels::fused);  // torch.compile
  CHECK(s.parallelism.zero == 3);
  CHECK(s.parallelism.sharding == models::ShardingFramework::fsdp2);
  // 128 tokens/s per GPU: 256 x 8192 / (128 x 512) = 32 s.
  CHECK(c.measured.step_time_s == doctest::Approx(32.0));

  // Table 1's first row: FSDP only, no compile, bf16, local batch 2 given.
  ValidationRow fsdp = torchtitan_405b();
  fsdp.model = "Llama 3.1 8B";
  fsdp.layers = "32";
  fsdp.hidden = "4096";
  fsdp.ffn_hidden = "14336";
  fsdp.heads = "32";
  fsdp.num_gpus = "8";
  fsdp.precision = "bf16";
  fsdp.tp = "1";
  fsdp.pp = "1";
  fsdp.dp = "8";
  fsdp.recompute = "selective";
  fsdp.micro_batch = "2";
  fsdp.global_batch = "16";
  fsdp.measured_tokens_per_sec_per_gpu = "5762";
  fsdp.notes = "Table 1: FSDP only (no compile). 400Gb/s RDMA per GPU.";
  const ValidationCase f = mapped(fsdp);
  CHECK(f.scenario.training.micro_batch == 2);
  CHECK_FALSE(f.scenario.parallelism.tp_comm_overlap);
  CHECK(f.scenario.training.elementwise == models::ElementwiseKernels::eager);
  CHECK(f.scenario.training.precision == models::Precision::bf16);
  CHECK_FALSE(assumes(f, "Float8Linear"));
  // torchtitan's "selective" is its op-level policy; the full recompute of Table 5 stays full.
  CHECK(f.scenario.training.recompute == models::Recompute::op);
  CHECK(assumes(f, "recompute=op"));
  CHECK(s.training.recompute == models::Recompute::full);
  // 16 x 8192 / (5762 x 8) = 2.84346 s.
  CHECK(f.measured.step_time_s == doctest::Approx(2.843457).epsilon(1e-6));
  // torchtitan's Llama copied its key-value groups to the query heads then (repeat_kv); the
  // assumption is stated where there are groups to copy.
  CHECK(s.training.repeat_kv);
  CHECK(f.scenario.training.repeat_kv);
  CHECK(assumes(f, "repeat_kv=true"));
  fsdp.kv_heads = "32";
  CHECK_FALSE(assumes(mapped(fsdp), "repeat_kv=true"));
}

TEST_CASE("validation: a pipelined row's gradient-accumulation steps are its pipeline runs") {
  // 512 sequences on dp 8 x pp 4, one a micro-batch: 64 micro-batches a step, GA=4 runs of 16.
  ValidationRow row = gpt_1_7b();  // 32 GPUs
  row.pp = "4";
  row.dp = "8";
  row.notes = "Selene DGX A100 (8x200Gb/s HDR IB per node). LBS=16, GA=4.";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.training.pipeline_runs == 4);
  CHECK(assumes(c, "pipeline_runs=4: the row's GA=4"));
  // Without a pipeline, accumulation steps are micro-batches of one schedule.
  ValidationRow flat = gpt_1_7b();
  flat.notes = row.notes;
  CHECK(mapped(flat).scenario.training.pipeline_runs == 1);
}

TEST_CASE("validation: an Automodel pipeline splits its layers as Automodel does, the first parts a layer more") {
  // 30 layers on pp 4 x vp 2 = 8 model parts: Automodel gives the first 30 mod 8 = 6 parts 4 layers
  // and the last two 3 (generate_hf_model_fqn_per_model_part); clustersim's even split would put
  // the smaller parts at the two ends.
  ValidationRow row = gpt_1_7b();
  row.source = "NVIDIA-NeMo/Automodel docs/performance-summary.md";
  row.layers = "30";
  row.pp = "4";
  row.vp = "2";
  row.dp = "8";
  row.global_batch = "64";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.parallelism.layers_per_chunk == std::vector<std::int64_t>{4, 4, 4, 4, 4, 4, 3, 3});
  CHECK(assumes(c, "layers_per_chunk: Automodel's split"));
  // Where Automodel's split is the even one, the scenario leaves it to the default.
  row.layers = "32";
  CHECK(mapped(row).scenario.parallelism.layers_per_chunk.empty());
}

TEST_CASE("validation: Llama 3's interleaved pipeline takes the V its paper's split implies, the ends alone") {
  // The paper takes a layer from the first and from the last stage so that the first chunk holds the
  // embedding alone and the last the loss alone: 126 layers and the two ends in 16 stages of 8
  // places, V = 8 chunks of one place.
  ValidationRow row = gpt_1_7b();
  row.source = "Llama Team, 'The Llama 3 Herd of Models' (arXiv:2407.21783) Table 4";
  row.gpu = "H100-SXM5-80GB";
  row.layers = "126";
  row.num_gpus = "512";
  row.tp = "8";
  row.pp = "16";
  row.dp = "4";
  row.global_batch = "128";
  row.notes = "Interleaved PP schedule (V not given), first/last stage one layer fewer";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.parallelism.vp == 8);
  std::vector<std::int64_t> expected(128, 1);
  expected.front() = 0;
  expected.back() = 0;
  CHECK(c.scenario.parallelism.layers_per_chunk == expected);
  CHECK(c.scenario.training.schedule == models::Schedule::interleaved);
  CHECK(assumes(c, "vp=8 = (layers + 2) / pp: the paper's section 3.3.2"));
  CHECK_FALSE(c.scenario.training.repeat_kv);  // only torchtitan's family copies key-value groups
  // The same rule on 8 stages: 16 chunks a stage.
  row.pp = "8";
  row.dp = "8";
  const ValidationCase eight = mapped(row);
  CHECK(eight.scenario.parallelism.vp == 16);
  CHECK(eight.scenario.parallelism.layers_per_chunk == expected);
  // Where the layer places do not fill the stages, the smallest V and the even split.
  row.layers = "120";
  const ValidationCase uneven = mapped(row);
  CHECK(uneven.scenario.parallelism.vp == 2);
  CHECK(uneven.scenario.parallelism.layers_per_chunk.empty());
  CHECK(assumes(uneven, "vp=2, the smallest: 122 layer places do not fill 8 stages evenly"));
}

// The GPT row on 32 H100 as TP 1 x CP 2 x DP 16, from `source`.
ValidationRow context_parallel_row(std::string_view source) {
  ValidationRow row = gpt_1_7b();
  row.source = source;
  row.gpu = "H100-SXM5-80GB";
  row.cp = "2";
  row.dp = "16";
  return row;
}

TEST_CASE("validation: context parallelism exchanges keys and values as the source's framework does") {
  // Megatron-Core's default ring; the Llama 3 paper's exposed all-gather; torchtitan's default
  // allgather rotater. A row without context parallelism says nothing of it.
  ValidationRow row = context_parallel_row(kMegatronCore);
  const ValidationCase megatron = mapped(row);
  CHECK(megatron.scenario.parallelism.cp_comm == models::CpComm::p2p);
  CHECK(assumes(megatron, "cp_comm=p2p: Megatron-Core's cp_comm_type defaults to p2p"));
  row.source = "Llama Team, 'The Llama 3 Herd of Models' (arXiv:2407.21783) Table 4";
  const ValidationCase llama = mapped(row);
  CHECK(llama.scenario.parallelism.cp_comm == models::CpComm::all_gather);
  CHECK(assumes(llama, "cp_comm=all_gather: the paper's section 3.3.2"));
  row.source = "pytorch/torchtitan benchmarks";
  CHECK(mapped(row).scenario.parallelism.cp_comm == models::CpComm::all_gather);
  row.cp = "1";
  row.dp = "32";
  CHECK_FALSE(assumes(mapped(row), "cp_comm="));
}

// A CTA limit of the submission's conf/nccl/custom_communicator_cta.yaml: taken, with its
// assumption, for each source in `held`; NCCL's choice (0) for each in `free`.
void check_cta_limit(std::int64_t models::ParallelismSpec::*limit, std::int64_t value, std::string_view assumption,
                     std::initializer_list<std::string_view> held, std::initializer_list<std::string_view> free) {
  ValidationRow row = context_parallel_row(kMegatronCore);
  for (const std::string_view source : held) {
    CAPTURE(source);
    row.source = source;
    const ValidationCase c = mapped(row);
    CHECK(c.scenario.parallelism.*limit == value);
    CHECK(assumes(c, assumption));
  }
  for (const std::string_view source : free) {
    CAPTURE(source);
    row.source = source;
    CHECK(mapped(row).scenario.parallelism.*limit == 0);
  }
}

TEST_CASE("validation: MLPerf's Llama 3.1 submissions hold the context-parallel communicator to one CTA") {
  // Every v5.0 and v5.1 Llama 3.1 implementation (NVIDIA's and its partners') reads
  // conf/nccl/custom_communicator_cta.yaml, whose cp communicator has max_ctas 1; other families
  // leave NCCL its choice.
  check_cta_limit(&models::ParallelismSpec::cp_max_ctas, 1,
                  "cp_max_ctas=1: the submission's conf/nccl/custom_communicator_cta.yaml",
                  {"mlcommons/training_results_v5.0 NVIDIA/results/eos",
                   "mlcommons/training_results_v5.1 Nebius/results/nebius_h200_n64",
                   "mlcommons/training_results_v5.1 NVIDIA/results/tyche"},
                  {kMegatronCore});
  // Without context parallelism there is no cp communicator to limit.
  ValidationRow row = context_parallel_row("mlcommons/training_results_v5.0 NVIDIA/results/eos");
  row.cp = "1";
  row.dp = "32";
  CHECK_FALSE(assumes(mapped(row), "cp_max_ctas="));
}

TEST_CASE("validation: NVIDIA's MLPerf LLM implementations from v4.1 on hold the data-parallel communicators to 8 CTAs") {
  // conf/nccl/custom_communicator_cta.yaml of every v4.1 GPT-3 and v5.0 / v5.1 Llama 3.1
  // implementation: dp and dp_cp max_ctas 8. v3.1's had no such file.
  check_cta_limit(&models::ParallelismSpec::dp_max_ctas, 8,
                  "dp_max_ctas=8: the submission's conf/nccl/custom_communicator_cta.yaml",
                  {"mlcommons/training_results_v4.1 NVIDIA/results/eos_n64_ngc24.09_nemo",
                   "mlcommons/training_results_v5.0 NVIDIA/results/eos",
                   "mlcommons/training_results_v5.1 Nebius/results/nebius_h200_n64"},
                  {"mlcommons/training_results_v3.1 NVIDIA/results/eos", kMegatronCore});
}

TEST_CASE("validation: NVIDIA's MLPerf GPT-3 implementations run the cross-entropy their container has") {
  // NeMo 24.09's conf/custom.yaml turns Megatron-Core's fused loss on; the NeMo 24.04 implementation
  // (v4.0's, and the 11,616-GPU run v4.1 published again under its directory) and v3.1's have none.
  ValidationRow row = context_parallel_row(kMegatronCore);
  row.cp = "1";
  row.dp = "32";
  const auto loss = [&](std::string_view source) {
    row.source = source;
    return mapped(row).scenario.training.cross_entropy;
  };
  CHECK(loss("mlcommons/training_results_v4.1 NVIDIA/results/eos_n64_ngc24.09_nemo") == models::CrossEntropyKernel::fused);
  CHECK(loss("mlcommons/training_results_v4.1 NVIDIA/results/eos-dfw_n1452_ngc24.04_nemo") ==
        models::CrossEntropyKernel::inplace);
  CHECK(loss("mlcommons/training_results_v4.0 NVIDIA/results/eos_n64_ngc24.04_nemo") ==
        models::CrossEntropyKernel::inplace);
  CHECK(loss("mlcommons/training_results_v3.1 NVIDIA/results/eos") == models::CrossEntropyKernel::inplace);
  CHECK(assumes(mapped(row), "cross_entropy=inplace: the 2023 submission's Megatron-Core"));
  row.source = "mlcommons/training_results_v4.0 NVIDIA/results/eos_n64_ngc24.04_nemo";
  CHECK(assumes(mapped(row), "cross_entropy=inplace: the NeMo 24.04 implementation's conf/custom.yaml"));
}

TEST_CASE("validation: a row whose parameters are fp8 gathers them in fp8") {
  // NeMo's MLPerf configs (FP8_PARAMS=True, FP8_PARAM_GATHER=True) under the distributed optimizer.
  ValidationRow row = megatron_core_h100_row();
  row.precision = "fp8";
  row.zero_stage = "1";
  row.notes = "FP8 parameters (FP8_PARAMS=True), gathered in fp8.";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.training.fp8_param_gather);
  CHECK(assumes(c, "fp8_param_gather: the row's parameters are gathered in fp8"));
  row.notes = "FP8 parameter all-gather (FP8_PARAM_GATHER=True).";
  CHECK(mapped(row).scenario.training.fp8_param_gather);
  // Not without fp8, nor without a sharded optimizer to gather with.
  ValidationRow bf16 = row;
  bf16.precision = "bf16";
  CHECK_FALSE(mapped(bf16).scenario.training.fp8_param_gather);
  ValidationRow zero0 = row;
  zero0.zero_stage = "0";
  CHECK_FALSE(mapped(zero0).scenario.training.fp8_param_gather);
}

TEST_CASE("validation: a row without micro_batch outside torchtitan runs one sequence per micro-batch") {
  ValidationRow row = torchtitan_405b();
  row.source = kMegatronCore;
  row.gpu = "H100-SXM5-80GB";
  row.measured_tokens_per_sec_per_gpu = "";
  row.measured_tflops_per_gpu = "400";
  row.seq_len = "8192";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.training.micro_batch == 1);
  CHECK(assumes(c, "micro_batch = 1 (not given)"));
  // 126 layers do not fill the 8 stages one a chunk: the smallest V.
  CHECK(c.scenario.parallelism.vp == 2);
  CHECK(assumes(c, "vp=2, the smallest: 126 layers on 8 stages give no V > 1 of one layer a chunk"));
}

TEST_CASE("validation: Megatron-Core's 2024 table interleaves one layer a chunk where its notes say interleaved") {
  // The 462B row: 112 layers on 16 stages, 7 layers a stage, each its own chunk (V = 7); without
  // the note the row keeps 1F1B.
  ValidationRow row = megatron_core_h100_row();
  row.layers = "112";
  row.hidden = "18432";
  row.ffn_hidden = "";
  row.heads = "144";
  row.kv_heads = "144";
  row.seq_len = "4096";
  row.vocab = "131072";
  row.num_gpus = "6144";
  row.tp = "8";
  row.pp = "16";
  row.dp = "48";
  row.recompute = "";
  row.global_batch = "3072";
  row.measured_tflops_per_gpu = "459.9";
  const ValidationCase plain = mapped(row);
  CHECK(plain.scenario.parallelism.vp == 1);
  CHECK(plain.scenario.training.schedule == models::Schedule::one_f_one_b);
  row.notes = "Interleaved pipeline: V not given.";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.parallelism.vp == 7);
  CHECK(c.scenario.training.schedule == models::Schedule::interleaved);
  CHECK(assumes(c, "vp=7 = layers / pp, one layer a chunk: --num-layers-per-virtual-pipeline-stage 1"));
  // Layers that do not fill the stages evenly: the smallest V, and the assumption says why.
  row.layers = "110";
  const ValidationCase uneven = mapped(row);
  CHECK(uneven.scenario.parallelism.vp == 2);
  CHECK(assumes(uneven, "vp=2, the smallest: 110 layers on 16 stages give no V > 1 of one layer a chunk"));
}

// --- skip reasons ---------------------------------------------------------------------------

TEST_CASE("validation: rows the step model cannot express are skipped with the reason") {
  ValidationRow row = gpt_1_7b();
  SUBCASE("mixture of experts without a preset") {
    row.model = "Some MoE 1T";
    CHECK(skip_reason(row) == "mixture-of-experts model (Some MoE 1T) without a preset");
  }
  SUBCASE("expert parallelism") {
    row.ep = "8";
    CHECK(skip_reason(row) == "expert parallelism ep = 8 on a model without experts");
  }
  SUBCASE("non-standard GPU") {
    // The 500 W Grand Teton part has a preset (h100-96gb-500w); the same SKU at another limit has none.
    row.gpu = "H100 96GB HBM2e @700W";
    CHECK(skip_reason(row) == "non-standard GPU SKU (H100 96GB HBM2e @700W): no preset");
  }
  SUBCASE("no layout") {
    row.tp = "";
    CHECK(skip_reason(row) == "parallel layout not given (tp, pp)");
  }
  SUBCASE("no batch") {
    row.global_batch = "";
    CHECK(skip_reason(row) == "global batch not given");
  }
  SUBCASE("no sequence length, outside a family with a documented default") {
    row.seq_len = "";
    CHECK(skip_reason(row) == "sequence length not given");
  }
  SUBCASE("no vocabulary, and not a GPT or Nemotron model") {
    row.vocab = "";
    row.model = "Falcon 7B";
    CHECK(skip_reason(row) == "vocabulary size not given");
  }
  SUBCASE("no measurement") {
    row.measured_tflops_per_gpu = "";
    CHECK(skip_reason(row) == "no measurement (step time, tokens/s, TFLOP/s or MFU)");
  }
  SUBCASE("a layout the scenario rules reject") {
    row.tp = "5";  // 24 heads
    row.dp = "";
    row.num_gpus = "40";
    CHECK(skip_reason(row) == "layout rejected: /parallelism/tp: 5 does not divide heads=24");
  }
  SUBCASE("dp left out, and the GPUs not a multiple of the model-parallel ranks") {
    row.pp = "3";
    row.dp = "";
    CHECK(skip_reason(row) == "dp not given: cannot derive dp: num_gpus=32 is not divisible by tp*pp*cp = 1*3*1 = 3");
  }
  SUBCASE("an interleaved layout whose micro-batches do not fill the pipeline") {
    // Interleaving needs micro-batches per step (16 / (2 x 1) = 8) to be a multiple of pp = 16.
    row.layers = "32";
    row.pp = "16";
    row.dp = "2";
    row.vp = "2";
    row.global_batch = "16";
    CHECK(skip_reason(row) == "layout rejected: /training/global_batch: the interleaved schedule needs the "
                              "micro-batches of each pipeline run, global_batch/(dp*micro_batch*pipeline_runs) = 8, "
                              "to be a multiple of pp=16");
  }
}

// --- measured step time ---------------------------------------------------------------------

TEST_CASE("validation: measured step time from tokens/s is batch tokens over cluster throughput") {
  // torchtitan, Llama 3 8B on 64 A100: 64 sequences x 8192 tokens at 2973 tokens/s per GPU:
  // 64 x 8192 / (2973 x 64) = 2.75547 s.
  ValidationRow row = gpt_1_7b();
  row.seq_len = "8192";
  row.num_gpus = "64";
  row.dp = "64";
  row.global_batch = "64";
  row.measured_tflops_per_gpu = "";
  row.measured_tokens_per_sec_per_gpu = "2973";
  const ValidationCase c = mapped(row);
  CHECK(c.measured.basis == MeasuredBasis::tokens_per_s);
  CHECK(c.measured.step_time_s == doctest::Approx(2.755466).epsilon(1e-6));
}

TEST_CASE("validation: measured step time from Narayanan TFLOP/s uses eq. 3 hardware FLOPs") {
  // F = 96 B s l h^2 (1 + s/6h + V/16lh), B = 512, s = 2048, l = 24, h = 2304, V = 51200:
  // 1.546683e16 FLOPs; over 137 TFLOP/s x 32 GPUs: 3.528018 s.
  const double B = 512, s = 2048, l = 24, h = 2304, V = 51200;
  const double flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  CHECK(flops == doctest::Approx(1.546683e16).epsilon(1e-6));
  const ValidationCase c = mapped(gpt_1_7b());
  CHECK(c.measured.basis == MeasuredBasis::tflops);
  CHECK(c.measured.step_time_s == doctest::Approx(flops / (137e12 * 32)).epsilon(1e-9));
  CHECK(c.measured.step_time_s == doctest::Approx(3.528018).epsilon(1e-6));
}

TEST_CASE("validation: measured step time from Megatron-Core TFLOP/s uses model FLOPs") {
  // GPT 1.7B of the Megatron-Core weak-scaling table: B = 192, s = 4096, l = 24, h = 2048,
  // V = 131072, 48 GPUs at 408.8 TFLOP/s. Model FLOPs 72 B s l h^2 (1 + s/6h + V/12lh)
  // = 8.866462e15, so the step takes 8.866462e15 / (408.8e12 x 48) = 0.451854 s. The row's
  // MFU, 0.41 of 989 TF/s, is kept as a cross-check: 0.4555 s.
  ValidationRow row = gpt_1_7b();
  row.source = kMegatronCore;
  row.hidden = "2048";
  row.ffn_hidden = "";  // Megatron default 4h
  row.heads = "16";
  row.kv_heads = "16";
  row.seq_len = "4096";
  row.vocab = "131072";
  row.gpu = "H100-SXM5-80GB";
  row.num_gpus = "48";
  row.dp = "48";
  row.recompute = "";
  row.global_batch = "192";
  row.measured_tflops_per_gpu = "408.8";
  row.measured_mfu = "0.41";
  const ValidationCase c = mapped(row);
  const double B = 192, s = 4096, l = 24, h = 2048, V = 131072;
  const double flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  CHECK(c.measured.basis == MeasuredBasis::tflops);
  CHECK(c.measured.step_time_s == doctest::Approx(flops / (408.8e12 * 48)).epsilon(1e-9));
  CHECK(c.measured.step_time_s == doctest::Approx(0.451854).epsilon(1e-5));
  REQUIRE(c.alternatives.size() == 1);
  CHECK(c.alternatives[0].basis == MeasuredBasis::mfu);
  CHECK(c.alternatives[0].step_time_s == doctest::Approx(flops / (0.41 * 989e12 * 48)).epsilon(1e-9));
}

TEST_CASE("validation: a published step time is preferred over every derived one") {
  ValidationRow row = gpt_1_7b();
  row.measured_step_time_s = "3.5";
  const ValidationCase c = mapped(row);
  CHECK(c.measured.basis == MeasuredBasis::step_time);
  CHECK(c.measured.step_time_s == 3.5);
  REQUIRE(c.alternatives.size() == 1);
  CHECK(c.alternatives[0].basis == MeasuredBasis::tflops);
}

// MLPerf v5.1's Llama 3.1 8B on an NVL72 system, one sequence a data-parallel rank, as NVIDIA ran it
// on GB200 (tyche) and GB300 (theia): TP 2 x CP 4 on 512 GPUs, CP 2 on one rack of 72.
ValidationRow mlperf51_8b(std::string_view system, std::string_view gpu, int gpus) {
  const bool rack = gpus == 72;
  ValidationRow row = gpt_1_7b();
  row.source = "mlcommons/training_results_v5.1 NVIDIA/results/" + std::string(system) + "_ngpu" +
               std::to_string(gpus) + "_ngc25.09_nemo/llama31_8b";
  row.gpu = std::string(gpu);
  row.num_gpus = std::to_string(gpus);
  row.tp = rack ? "1" : "2";
  row.pp = "1";
  row.dp = rack ? "36" : "64";
  row.cp = rack ? "2" : "4";
  row.global_batch = row.dp;
  row.precision = "fp8";
  row.notes = "";  // no placement named
  return row;
}

TEST_CASE("validation: an HGX B300 row is the b300 preset, not the GB300's") {
  ValidationRow row = mlperf51_8b("tyche", "B300 (Dell XE9780)", 72);
  row.num_gpus = "8";
  row.dp = "8";
  row.cp = "1";
  row.global_batch = "8";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.cluster.gpu.name == "b300");
  CHECK(c.scenario.cluster.gpu.fp4_flops_per_s == 13500e12);
  CHECK(c.scenario.cluster.gpus_per_node == 8);
  CHECK(c.scenario.cluster.nic_bytes_per_s == 800e9 / 8.0);
}

TEST_CASE("validation: a GB300 row runs on its own trays: 4 GPUs, each with a ConnectX-8 at 800 Gb/s") {
  ValidationRow row = mlperf51_8b("theia", "GB300 (Theia, NVL72)", 512);
  row.notes = "GB300 NVL72, SEGMENT=16: racks of 16 trays.";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.cluster.gpu.name == "gb300");
  CHECK(c.scenario.cluster.gpu.bf16_flops_per_s == 2500e12);
  CHECK(c.scenario.cluster.gpus_per_node == 4);
  CHECK(c.scenario.cluster.nics_per_node == 4);
  CHECK(c.scenario.cluster.nic_bytes_per_s == 800e9 / 8.0);
  CHECK(c.scenario.cluster.nvlink_domain_gpus == 64);
  // Without a placement: one whole GB300 NVL72 rack, the same NICs.
  const ValidationCase rack = mapped(mlperf51_8b("theia", "GB300 (Theia, NVL72)", 72));
  CHECK(rack.scenario.cluster.nvlink_domain_gpus == 72);
  CHECK(rack.scenario.cluster.nic_bytes_per_s == 800e9 / 8.0);
}

TEST_CASE("validation: an NVFP4 row trains in nvfp4 with bf16 parameter gathers and no TP overlap") {
  ValidationRow row = mlperf51_8b("tyche", "GB200 (Tyche, NVL72)", 512);
  row.precision = "nvfp4";
  row.sp = "True";
  row.notes = "SEGMENT=16: racks of 16 trays. NVFP4 linear layers (FP4=True, FP4_RECIPE=nvfp4), parameters "
              "gathered in bf16 (FP8_PARAM_GATHER=False). TP comm overlap off (TP_COMM_OVERLAP=False). Full CUDA "
              "graph (FULL_CUDA_GRAPH=1).";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.training.precision == models::Precision::nvfp4);
  CHECK_FALSE(c.scenario.training.fp8_param_gather);
  CHECK_FALSE(c.scenario.parallelism.tp_comm_overlap);
  CHECK(c.scenario.training.cuda_graphs);
  CHECK(c.scenario.training.fp8_backward);
  CHECK_FALSE(c.scenario.training.fp8_attention);
  // FP8 attention where the row's config turns it on (config_common_fp8attn.sh).
  row.notes += " Attention in FP8 (FP8_DPA=True).";
  CHECK(mapped(row).scenario.training.fp8_attention);
}

TEST_CASE("validation: a GB200 row runs on trays of 4 in NVLink domains, with the graphs and buckets it names") {
  ValidationRow row = mlperf51_8b("tyche", "GB200 (Tyche, NVL72)", 512);
  row.notes = "SEGMENT=16: racks of 16 trays. Full CUDA graph (FULL_CUDA_GRAPH=1). Gradient buckets of "
              "BUCKET_SIZE=768000000 parameters.";
  const ValidationCase c = mapped(row);
  CHECK(c.scenario.cluster.gpu.name == "gb200");
  // DGX GB200: a compute tray's 4 GPUs share its 4 NICs; 16 trays of a rack share one NVLink fabric.
  CHECK(c.scenario.cluster.gpus_per_node == 4);
  CHECK(c.scenario.cluster.nics_per_node == 4);
  CHECK(c.scenario.cluster.nvlink_domain_gpus == 64);
  CHECK(c.scenario.training.cuda_graphs);
  CHECK(c.scenario.training.grad_bucket_params == 768'000'000);
  // MLPerf v5.1: per-tensor current scaling, bf16 gradient reduction.
  CHECK(c.scenario.training.fp8_recipe == models::Fp8Recipe::current);
  CHECK(c.scenario.training.grad_dtype == models::GradDtype::bf16);
  // Without a placement, one whole NVL72 rack is the domain; a B200 row keeps DGX B200's 8 GPUs and NICs.
  row = mlperf51_8b("tyche", "GB200 (Tyche, NVL72)", 72);
  CHECK(mapped(row).scenario.cluster.nvlink_domain_gpus == 72);
  CHECK_FALSE(mapped(row).scenario.training.cuda_graphs);
  CHECK(mapped(row).scenario.training.grad_bucket_params == 0);
  row.gpu = "B200";
  row.num_gpus = "16";
  row.dp = "8";
  row.global_batch = "16";
  CHECK(mapped(row).scenario.cluster.gpu.name == "b200");
  CHECK(mapped(row).scenario.cluster.gpus_per_node == 8);
  CHECK(mapped(row).scenario.cluster.nics_per_node == 8);
}

}  // namespace
}  // namespace clustersim::scenarios
