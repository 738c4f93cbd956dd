#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/compute/compute_profile.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"

namespace clustersim::scenarios {
namespace {

// The message of the ScenarioError `load` throws, or "" if it loads.
template <class Load>
std::string error_of(Load load) {
  try {
    load();
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

std::string error_with(const std::vector<std::string>& sets) {
  return error_of([&] { default_scenario(sets); });
}

std::string error_in(std::string_view text) {
  return error_of([&] { load_scenario_text(text, "my.json"); });
}

// Smallest scenario the format accepts: a model, a GPU; everything else defaults (dp derived).
constexpr std::string_view minimal = R"({"model": {"preset": "llama3-8b"},
                                         "cluster": {"gpu": "h100-sxm"}})";

TEST_CASE("scenario: the built-in default is Llama 3 70B on 256 H100, TP8 x PP4 x DP8") {
  const Scenario s = default_scenario();
  CHECK(s.name == "default-llama3-70b-256xh100");
  CHECK(s.model.name == "llama3-70b");
  CHECK(s.model.layers == 80);
  CHECK(s.model.kv_heads == 8);
  CHECK(s.cluster.gpu.name == "h100-sxm");
  CHECK(s.cluster.gpu.bf16_flops_per_s == 989e12);
  CHECK(s.cluster.num_gpus == 256);
  CHECK(s.cluster.nic_bytes_per_s == 50e9);  // 400 Gbit/s, converted once at load
  CHECK(s.cluster.topology == models::TopologyKind::rail_optimized);
  CHECK(s.parallelism.tp == 8);
  CHECK(s.parallelism.pp == 4);
  CHECK(s.parallelism.dp == 8);
  CHECK(s.parallelism.sp);
  CHECK(s.training.schedule == models::Schedule::one_f_one_b);
  CHECK(s.training.tokens == 1e12);
  CHECK(s.simulation.fidelity == Fidelity::analytic);
}

TEST_CASE("scenario: absent keys take the struct defaults and dp is derived") {
  // 256 GPUs (default) with tp = pp = cp = 1 leaves dp = 256.
  const Scenario s = load_scenario_text(minimal, "minimal.json");
  CHECK(s.parallelism.dp == 256);
  CHECK(s.cluster.network_latency_s == models::ClusterSpec{}.network_latency_s);
  CHECK(s.training == models::TrainingSpec{});
}

TEST_CASE("scenario: training.framework sets the keys the scenario leaves out, and a written key wins") {
  // torchtitan: PyTorch's FlashAttention-2 through scaled_dot_product_attention, eager PyTorch modules,
  // FSDP2, fp32 gradient reduction (models/spec/framework.cpp and its sources).
  const std::string titan = R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
                                "training": {"framework": "torchtitan"}})";
  const Scenario t = load_scenario_text(titan, "titan.json");
  CHECK(t.training.framework == models::Framework::torchtitan);
  CHECK(t.training.attention == models::AttentionKernel::sdpa_flash);
  CHECK(t.training.elementwise == models::ElementwiseKernels::eager);
  CHECK(t.parallelism.sharding == models::ShardingFramework::fsdp2);
  CHECK(t.training.grad_dtype == models::GradDtype::fp32);
  // llm-foundry: Composer's FSDP1 with bf16 reduction.
  const Scenario f = load_scenario_text(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
                                            "training": {"framework": "llm-foundry"}})",
                                        "foundry.json");
  CHECK(f.parallelism.sharding == models::ShardingFramework::fsdp1);
  CHECK(f.training.grad_dtype == models::GradDtype::bf16);
  // A key the scenario writes overrides its framework's choice; the rest still follow the set.
  const Scenario compiled = load_scenario_text(
      R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
          "training": {"framework": "torchtitan", "elementwise": "fused"}})",
      "compiled.json");
  CHECK(compiled.training.elementwise == models::ElementwiseKernels::fused);
  CHECK(compiled.training.attention == models::AttentionKernel::sdpa_flash);
  // The default framework is Megatron-Core, whose Transformer Engine runs cuDNN attention.
  const Scenario m = load_scenario_text(minimal, "minimal.json");
  CHECK(m.training.framework == models::Framework::megatron_core);
  CHECK(m.training.attention == models::AttentionKernel::cudnn);
  CHECK(m.training.elementwise == models::ElementwiseKernels::fused);
  // What is written reads back the same.
  CHECK(load_scenario_text(to_json(t), "again.json").training == t.training);
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
                     "training": {"framework": "deepspeed"}})")
            .find("/training/framework") != std::string::npos);
}

TEST_CASE("presets: every GPU and model preset loads with its sourced values") {
  CHECK(gpu_preset_names() ==
        std::vector<std::string>{"a100-80gb", "b200", "b300", "gb200", "gb300", "h100-96gb-500w", "h100-sxm", "h200-sxm"});
  CHECK(model_preset_names() ==
        std::vector<std::string>{"deepseek-v3", "gpt-oss-120b", "gpt-oss-20b", "gpt3-175b", "kimi-k2", "llama2-13b",
                                 "llama2-70b", "llama2-7b", "llama3-405b", "llama3-70b", "llama3-8b", "mixtral-8x22b", "mixtral-8x7b",
                                 "qwen3-235b-a22b", "qwen3-30b-a3b"});
  for (const auto& name : gpu_preset_names()) {
    CAPTURE(name);
    const auto gpu = gpu_preset(name);
    CHECK(gpu.name == name);
    CHECK(gpu.bf16_flops_per_s > 0);
    CHECK(gpu.hbm_bytes > 0);
    // Every preset runs with a bundled compute profile.
    CHECK_NOTHROW(models::default_compute_profile(gpu_compute_profile(name)));
    // Every preset is usable in a scenario.
    CHECK(error_of([&] { load_scenario_text(minimal, "minimal.json", {"cluster.gpu=" + name}); })
              .empty());
  }
  for (const auto& name : model_preset_names()) {
    CAPTURE(name);
    const auto model = model_preset(name);
    CHECK(model.name == name);
    CHECK(model.heads % model.kv_heads == 0);
    CHECK(error_of([&] {
            load_scenario_text(minimal, "minimal.json", {"model.preset=\"" + name + "\""});
          }).empty());
  }
  // Spot checks against measurements.md section 4 and the papers.
  CHECK(gpu_preset("a100-80gb").fp8_flops_per_s == 0);  // A100 has no FP8 tensor cores
  CHECK(gpu_preset("h200-sxm").hbm_bytes == 150.1e9);
  CHECK(gpu_preset("b200").nvlink_bytes_per_s == 900e9);
  CHECK(model_preset("llama3-405b").ffn_hidden == 53248);
  CHECK(model_preset("gpt3-175b").mlp == models::MlpKind::gelu);
  CHECK(model_preset("gpt3-175b").dropout == 0.1);  // Megatron-LM default, as the GPT-3 runs trained
  CHECK(model_preset("llama3-8b").dropout == 0.0);   // Llama trains without dropout
  CHECK(model_preset("llama2-70b").vocab == 32000);
}

TEST_CASE("presets: the Grand Teton H100 of torchtitan's benchmarks, 96 GB HBM2e at 500 W") {
  // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md, Hardware: 96 GB HBM2e at
  // 2.4 TB/s, the default 500 W power limit, eight SXM H100 per host on NVLink.
  const models::GpuSpec gpu = gpu_preset("h100-96gb-500w");
  CHECK(gpu.hbm_bytes == 96e9);
  CHECK(gpu.hbm_bytes_per_s == 2.4e12);
  CHECK(gpu.power_w == 500);
  CHECK(gpu.nvlink_bytes_per_s == 450e9);
  // Its peak is not published (between SXM and NVL, the source says): the SXM peaks, as the
  // source's MFU uses them.
  const models::GpuSpec sxm = gpu_preset("h100-sxm");
  CHECK(gpu.bf16_flops_per_s == sxm.bf16_flops_per_s);
  CHECK(gpu.fp8_flops_per_s == sxm.fp8_flops_per_s);
  CHECK(sxm.power_w == 700);
  // No kernels of its own measured: it borrows the H100 SXM compute constants.
  CHECK(gpu_compute_profile("h100-96gb-500w") == "h100-sxm");
  CHECK(gpu_compute_profile("h100-sxm") == "h100-sxm");
  CHECK(gpu_compute_profile("tpu-v5") == "tpu-v5");  // no preset: its own name
  CHECK(gpu_preset_text("h100-96gb-500w").find("'We used the default 500W power limit") != std::string_view::npos);
}

TEST_CASE("presets: an unknown name is an error listing the known ones") {
  const std::string message = error_of([] { gpu_preset("h300"); });
  CHECK(message.find("unknown GPU preset \"h300\"") != std::string::npos);
  CHECK(message.find("h100-sxm") != std::string::npos);
  const std::string in_scenario = error_with({"model.preset=llama4"});
  CHECK(in_scenario.find("default scenario: /model/preset: unknown model preset") == 0);
  CHECK(in_scenario.find("llama3-70b") != std::string::npos);
  // A GPU named by a bare string is pointed at where the string was written.
  CHECK(error_with({"cluster.gpu=h300"}).find("default scenario: /cluster/gpu: unknown GPU") == 0);
  CHECK(error_with({"cluster.gpu.preset=h300"}).find("/cluster/gpu/preset: unknown GPU") !=
        std::string::npos);
}

TEST_CASE("scenario: fields written next to a preset override it") {
  const Scenario s = load_scenario_text(R"({
      "model": {"preset": "llama3-70b", "layers": 40},
      "cluster": {"gpu": {"preset": "h100-sxm", "hbm_gb": 96}, "num_gpus": 8}})",
                                        "override.json");
  CHECK(s.model.layers == 40);
  CHECK(s.model.hidden == 8192);  // the rest still from the preset
  CHECK(s.cluster.gpu.hbm_bytes == 96e9);
  CHECK(s.cluster.gpu.bf16_flops_per_s == 989e12);
}

TEST_CASE("scenario: a model without a preset must give every shape field") {
  CHECK(error_in(R"({"model": {"layers": 2, "hidden": 64}, "cluster": {"gpu": "h100-sxm"}})") ==
        "my.json: /model/ffn_hidden: required when no preset is given");
  const Scenario s = load_scenario_text(R"({
      "model": {"layers": 4, "hidden": 256, "ffn_hidden": 1024, "heads": 4, "kv_heads": 4,
                "vocab": 1000, "mlp": "gelu"},
      "cluster": {"gpu": "h100-sxm", "num_gpus": 8}})",
                                        "tiny.json");
  CHECK(s.model.name.empty());
  CHECK(s.model.mlp == models::MlpKind::gelu);
  CHECK(s.parallelism.dp == 8);
}

TEST_CASE("scenario: --set overrides apply to the raw JSON before validation") {
  const Scenario s = default_scenario({"parallelism.tp=4", "parallelism.dp=16",
                                       "cluster.gpu=h200-sxm", "training.tokens=2e12"});
  CHECK(s.parallelism.tp == 4);
  CHECK(s.parallelism.dp == 16);
  CHECK(s.cluster.gpu.name == "h200-sxm");
  CHECK(s.cluster.gpu.hbm_bytes == 150.1e9);
  CHECK(s.training.tokens == 2e12);

  // A GPU given by name can be refined key by key.
  CHECK(default_scenario({"cluster.gpu.hbm_gb=96"}).cluster.gpu.hbm_bytes == 96e9);
  // Schedule and vp change together.
  const Scenario interleaved =
      default_scenario({"training.schedule=interleaved", "parallelism.vp=5"});
  CHECK(interleaved.training.schedule == models::Schedule::interleaved);
  // A value that is not JSON is a string; a JSON value keeps its type, so errors name the key.
  CHECK(default_scenario({"name=my run"}).name == "my run");
  CHECK(error_with({"parallelism.tp=\"8\""}) ==
        "default scenario: /parallelism/tp: must be an integer in 1..1048576, got \"8\"");
  // Malformed assignments.
  CHECK(error_with({"parallelism.tp"}) == "--set parallelism.tp: expected path=value");
  CHECK(error_with({"parallelism..tp=1"}).find("empty key") != std::string::npos);
  CHECK(error_with({"parallelism.tp.x=1"}) ==
        "--set parallelism.tp.x=1: /parallelism/tp: cannot set key \"x\" inside 8");
  CHECK(error_with({"cluster.nic_gbps=200"}).find("/cluster/nic_gbps: unknown key") !=
        std::string::npos);
}

TEST_CASE("scenario: to_json is normalised and loads back to the same scenario") {
  const std::vector<Scenario> scenarios = {
      default_scenario(),
      default_scenario({"cluster.gpu.hbm_gb=96.5", "cluster.network_latency_us=3.7",
                        "cluster.nic_gbit_per_s=200", "simulation.seed=18446744073709551615",
                        "simulation.fidelity=flow", "calibration.profile=p.json"}),
      load_scenario_text(R"({"model": {"layers": 4, "hidden": 256, "ffn_hidden": 1000,
                                       "heads": 4, "kv_heads": 2, "vocab": 1000, "mlp": "gelu"},
                             "cluster": {"gpu": {"bf16_tflops": 123.456, "fp8_tflops": 0,
                                         "hbm_gb": 24, "hbm_tb_per_s": 1.1,
                                         "nvlink_gb_per_s": 0, "power_w": 300},
                                         "num_gpus": 4, "gpus_per_node": 4}})",
                         "custom.json"),
  };
  for (const auto& s : scenarios) {
    const std::string text = to_json(s);
    CAPTURE(text);
    const Scenario reloaded = load_scenario_text(text, "normalised.json");
    CHECK(reloaded == s);
    CHECK(to_json(reloaded) == text);  // a fixed point: printing is stable
  }
  const std::string text = to_json(default_scenario());
  // Stable key order: sections as in the schema, units in the key names.
  CHECK(text.find("\"name\"") < text.find("\"model\""));
  CHECK(text.find("\"model\"") < text.find("\"cluster\""));
  CHECK(text.find("\"gpu\"") < text.find("\"num_gpus\""));
  CHECK(text.find("\"nic_gbit_per_s\": 400.0") != std::string::npos);
  CHECK(text.find("\"preset\": \"llama3-70b\"") != std::string::npos);
}

TEST_CASE("validation: each rule names the key to change") {
  // Starting from the default: llama3-70b (64 heads, 8 kv heads, 80 layers), 256 GPUs,
  // tp 8, pp 4, dp 8, cp 1, sp on, seq 4096, micro-batch 1, global batch 1024.
  struct Case {
    std::vector<std::string> sets;
    std::string pointer;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {{"parallelism.tp=-2"}, "/parallelism/tp", "must be an integer in 1..1048576, got -2"},
      {{"parallelism.tp=2.5"}, "/parallelism/tp", "must be an integer in 1..1048576, got 2.5"},
      {{"model.hidden=8100"}, "/model/hidden", "must be divisible by heads=64 (or set model.head_dim), got 8100"},
      {{"model.kv_heads=6"}, "/model/kv_heads", "must divide heads=64, got 6"},
      {{"parallelism.tp=3"}, "/parallelism/tp", "3 does not divide heads=64"},
      {{"model.heads=96", "model.hidden=12288", "parallelism.tp=12"}, "/parallelism/tp",
       "12 and kv_heads=8 must divide one another"},
      {{"parallelism.tp=1", "parallelism.dp=64"}, "/parallelism/sp",
       "sequence parallelism splits activations over the TP group: it needs parallelism.tp > 1"},
      {{"parallelism.vp=2", "training.schedule=interleaved", "training.global_batch=48"}, "/training/global_batch",
       "the interleaved schedule needs the micro-batches of each pipeline run, "
       "global_batch/(dp*micro_batch*pipeline_runs) = 6, to be a multiple of pp=4"},
      {{"parallelism.dp=4"}, "/parallelism",
       "tp*pp*dp*cp = 8*4*4*1 = 128 must equal cluster.num_gpus=256"},
      {{"cluster.num_gpus=252"}, "/cluster/num_gpus",
       "must be a multiple of gpus_per_node=8, got 252"},
      {{"training.global_batch=1020"}, "/training/global_batch",
       "must be divisible by dp*micro_batch = 8*1 = 8, got 1020"},
      {{"parallelism.vp=2"}, "/parallelism/vp", "vp=2 needs training.schedule \"interleaved\""},
      {{"training.schedule=interleaved"}, "/training/schedule",
       "\"interleaved\" needs parallelism.vp > 1"},
      {{"parallelism.zero=4"}, "/parallelism/zero", "must be an integer in 0..3, got 4"},
      {{"cluster.gpu=a100-80gb", "training.precision=fp8"}, "/training/precision",
       "fp8 needs a GPU with FP8 tensor cores; a100-80gb has fp8_tflops=0"},
      {{"parallelism.cp=2", "parallelism.dp=4", "training.seq_len=4095"}, "/training/seq_len",
       "must be divisible by cp=2, got 4095"},
      {{"training.seq_len=4100"}, "/training/seq_len",
       "must be divisible by tp*cp = 8 with sequence parallelism, got 4100"},
      {{"model.layers=3"}, "/parallelism/pp",
       "pp*vp = 4*1 = 4 exceeds layers=3: every pipeline chunk needs a layer (parallelism.layers_per_chunk may "
       "leave the first and the last chunk without one)"},
      {{"parallelism.layers_per_chunk=[20,20,20]"}, "/parallelism/layers_per_chunk",
       "has 3 entries, must have one per model chunk: pp*vp = 4*1 = 4"},
      {{"parallelism.layers_per_chunk=[20,0,40,20]"}, "/parallelism/layers_per_chunk",
       "entry 1 is 0: only the first chunk (with the embedding) and the last (with the loss) may hold no layer"},
      {{"parallelism.layers_per_chunk=[0,30,30,21]"}, "/parallelism/layers_per_chunk",
       "sums to 81 layers, must sum to model.layers=80"},
      {{"parallelism.layers_per_chunk=[0,30,30,-1]"}, "/parallelism/layers_per_chunk/3",
       "must be a layer count, an integer in [0, 10000], got -1"},
      {{"training.precision=fp16"}, "/training/precision",
       "must be one of bf16|fp8|nvfp4, got \"fp16\""},
      {{"cluster.topology=mesh"}, "/cluster/topology",
       "must be one of rail_optimized|fat_tree|dragonfly|torus, got \"mesh\""},
      {{"cluster.oversubscription=0.5"}, "/cluster/oversubscription",
       "must be a number in [1, 1024], got 0.5"},
      {{"cluster.ideal_network=1"}, "/cluster/ideal_network", "must be true or false, got 1"},
      {{"simulation.seed=-1"}, "/simulation/seed", "must be a non-negative integer, got -1"},
      {{"cluster.gpu.hbm_gb=0"}, "/cluster/gpu/hbm_gb", "must be a number in [1, 100000] GB, got 0"},
      {{"model.dropout=1.5"}, "/model/dropout", "must be a number in [0, 1], got 1.5"},
      {{"model.dropout=-0.1"}, "/model/dropout", "must be a number in [0, 1], got -0.1"},
      {{"training.grad_dtype=fp16"}, "/training/grad_dtype", "must be one of fp32|bf16, got \"fp16\""},
      {{"model.drop_out=0.1"}, "/model/drop_out", "unknown key (did you mean dropout?)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.pointer);
    CHECK(error_with(c.sets) == "default scenario: " + c.pointer + ": " + c.rule);
  }
  // Allowed: uneven layer splits, long sequences not divisible by tp without sp, and more TP
  // ranks than key/value heads (each holds one, as Megatron-LM does).
  CHECK(error_with({"model.layers=81"}).empty());
  CHECK(error_with({"parallelism.tp=16", "parallelism.dp=4"}).empty());
  CHECK(error_with({"training.seq_len=4100", "parallelism.sp=false"}).empty());
}

TEST_CASE("validation: dp that cannot be derived names the product") {
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"},
                     "cluster": {"gpu": "h100-sxm", "num_gpus": 16},
                     "parallelism": {"tp": 8, "pp": 3}})") ==
        "my.json: /parallelism/dp: cannot derive dp: num_gpus=16 is not divisible by "
        "tp*pp*cp = 8*3*1 = 24");
}

TEST_CASE("scenario errors: malformed JSON, unknown keys, wrong types, missing files") {
  CHECK(error_in("{\"model\": ").find("my.json: malformed JSON: parse error at line 1") == 0);
  CHECK(error_in("[1, 2]") == "my.json: must be a JSON object, got [1,2]");
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm",
                     "nic_gbps": 200}})") ==
        "my.json: /cluster/nic_gbps: unknown key (did you mean nic_gbit_per_s?)");
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
                     "parallelism": {"tp": 1, "tp": 2}})") ==
        "my.json: /parallelism/tp: duplicate key");
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
                     "plumbing": {}})") == "my.json: /plumbing: unknown key");
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": 80}})") ==
        "my.json: /cluster/gpu: must be a preset name or an object, got 80");
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": {"preset": "h100-sxm",
                     "hbm": 96}}})") ==
        "my.json: /cluster/gpu/hbm: unknown key (did you mean hbm_gb?)");
  CHECK(error_in(R"({"model": "llama3-8b", "cluster": {"gpu": "h100-sxm"}})") ==
        "my.json: /model: must be an object, got \"llama3-8b\"");
  CHECK(error_in(R"({"cluster": {"gpu": "h100-sxm"}})") == "my.json: /model: required");
  CHECK(error_in(R"({"model": {"preset": "llama3-8b"}, "cluster": {}})") ==
        "my.json: /cluster/gpu: required");

  const auto missing = std::filesystem::temp_directory_path() / "clustersim-no-such-file.json";
  const std::string message = error_of([&] { load_scenario_file(missing); });
  CHECK(message == missing.string() + ": no such file");
}

TEST_CASE("scenario files: errors name the file as given") {
  const auto path = std::filesystem::temp_directory_path() / "clustersim-scenario-io-test.json";
  {
    std::ofstream file(path);
    file << R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm"},
               "parallelism": {"tp": 0}})";
  }
  CHECK(error_of([&] { load_scenario_file(path); }) ==
        path.string() + ": /parallelism/tp: must be an integer in 1..1048576, got 0");
  CHECK(load_scenario_file(path, {"parallelism.tp=8"}).parallelism.dp == 32);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace clustersim::scenarios
