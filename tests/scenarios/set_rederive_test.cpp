// A --set re-derives what followed from the value it replaces: the fields of an old model or GPU
// preset that the file did not write, dp from tp, pp, cp and num_gpus (issue 22, item 10), and the
// loss's kernel from the framework and torch.compile (Field::rederived_when).
// What a file writes explicitly is kept: tests/scenarios/preset_provenance_test.cpp.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scenarios/presets.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"

namespace clustersim::scenarios {
namespace {

std::string load_error(std::string_view text, const std::vector<std::string>& sets) {
  try {
    load_scenario_text(text, "s.json", sets);
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

// A scenario as a user writes it by hand: the H100 preset and, beside it, every one of its values.
constexpr std::string_view spelled_out = R"({"model": {"preset": "llama3-70b", "layers": 80, "hidden": 8192},
  "cluster": {"gpu": {"preset": "h100-sxm", "bf16_tflops": 989, "fp8_tflops": 1979, "hbm_gb": 85.0,
                      "hbm_tb_per_s": 3.35, "nvlink_gb_per_s": 450, "power_w": 700},
              "num_gpus": 256},
  "parallelism": {"tp": 8, "pp": 4, "dp": 8}})";

TEST_CASE("--set of a GPU preset on a printed scenario takes the new preset's figures") {
  const models::GpuSpec h200 = gpu_preset("h200-sxm");
  const std::string printed = to_json(default_scenario());
  for (const std::string assignment : {"cluster.gpu=h200-sxm", "cluster.gpu.preset=h200-sxm"}) {
    CAPTURE(assignment);
    const Scenario s = load_scenario_text(printed, "s.json", {assignment});
    CHECK(s.cluster.gpu.name == "h200-sxm");
    CHECK(s.cluster.gpu.bf16_flops_per_s == h200.bf16_flops_per_s);
    CHECK(s.cluster.gpu.hbm_bytes == h200.hbm_bytes);
    CHECK(s.cluster.gpu.hbm_bytes_per_s == h200.hbm_bytes_per_s);
    CHECK(s.cluster.gpu.hbm_bytes != gpu_preset("h100-sxm").hbm_bytes);
    // The file spelled out in full keeps what it wrote: its H100 figures.
    const Scenario kept = load_scenario_text(spelled_out, "s.json", {assignment});
    CHECK(kept.cluster.gpu.name == "h200-sxm");
    CHECK(kept.cluster.gpu.hbm_bytes == 85.0e9);
    CHECK(kept.cluster.gpu.hbm_bytes_per_s == 3.35e12);
  }
}

TEST_CASE("--set of a preset keeps the fields the file writes, and those --set") {
  const models::GpuSpec h200 = gpu_preset("h200-sxm");
  constexpr std::string_view own_hbm = R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"preset": "h100-sxm", "hbm_gb": 94}, "num_gpus": 256}})";
  const Scenario s = load_scenario_text(own_hbm, "s.json", {"cluster.gpu=h200-sxm"});
  CHECK(s.cluster.gpu.hbm_bytes == 94e9);  // the file's own value, not a preset's
  CHECK(s.cluster.gpu.bf16_flops_per_s == h200.bf16_flops_per_s);
  // A --set field stays even when it equals the old preset's value.
  const Scenario t = default_scenario({"cluster.gpu.hbm_gb=85", "cluster.gpu=h200-sxm"});
  CHECK(t.cluster.gpu.hbm_bytes == 85e9);
  CHECK(t.cluster.gpu.bf16_flops_per_s == h200.bf16_flops_per_s);
}

TEST_CASE("--set model.preset re-derives the old model's fields") {
  const models::TransformerSpec small = model_preset("llama3-8b");
  const Scenario s = load_scenario_text(to_json(default_scenario()), "s.json", {"model.preset=llama3-8b"});
  CHECK(s.model.name == "llama3-8b");
  CHECK(s.model.layers == small.layers);
  CHECK(s.model.hidden == small.hidden);
  CHECK(s.model.ffn_hidden == small.ffn_hidden);
  // The fields a file writes stay, even with the old preset's values (Llama 3 70B: 80 x 8192).
  const Scenario spelled = load_scenario_text(spelled_out, "s.json", {"model.preset=llama3-8b"});
  CHECK(spelled.model.layers == 80);
  CHECK(spelled.model.hidden == 8192);
  CHECK(spelled.model.ffn_hidden == small.ffn_hidden);
  // A layer count the user chose stays.
  const Scenario cut = load_scenario_text(R"({"model": {"preset": "llama3-70b", "layers": 40},
                                              "cluster": {"gpu": "h100-sxm", "num_gpus": 256}})",
                                          "s.json", {"model.preset=llama3-8b"});
  CHECK(cut.model.layers == 40);
  CHECK(cut.model.hidden == small.hidden);
}

TEST_CASE("printed scenarios write a preset and only the fields written explicitly") {
  const std::string plain = to_json(default_scenario());
  CHECK(plain.find("\"preset\": \"h100-sxm\"") != std::string::npos);
  CHECK(plain.find("bf16_tflops") == std::string::npos);
  CHECK(plain.find("\"layers\"") == std::string::npos);
  const std::string own = to_json(default_scenario({"cluster.gpu.hbm_gb=96.5"}));
  CHECK(own.find("\"hbm_gb\": 96.5") != std::string::npos);
  CHECK(own.find("bf16_tflops") == std::string::npos);
  // Printing does not change what a --set does: a file and its printed form answer alike.
  const std::vector<std::vector<std::string>> set_lists = {
      {"cluster.gpu=h200-sxm"}, {"model.preset=llama3-8b"}, {"parallelism.tp=4"}, {"cluster.num_gpus=512"}};
  for (const auto& sets : set_lists) {
    CAPTURE(sets.front());
    const Scenario direct = load_scenario_text(spelled_out, "s.json", sets);
    const std::string printed = to_json(load_scenario_text(spelled_out, "s.json"));
    CHECK(load_scenario_text(printed, "printed.json", sets) == direct);
  }
}

TEST_CASE("--set of training.elementwise or framework derives the loss's kernel again unless it is --set too") {
  // A printed torchtitan scenario writes its derived cross_entropy (eager: no torch.compile).
  const std::string printed = to_json(default_scenario({"training.framework=torchtitan"}));
  REQUIRE(printed.find(R"("cross_entropy": "eager")") != std::string::npos);
  // torch.compile on compiles torchtitan's loss too; a --set of the kernel itself wins.
  CHECK(load_scenario_text(printed, "s.json", {"training.elementwise=fused"}).training.cross_entropy ==
        models::CrossEntropyKernel::fused);
  CHECK(load_scenario_text(printed, "s.json", {"training.elementwise=fused", "training.cross_entropy=eager"})
            .training.cross_entropy == models::CrossEntropyKernel::eager);
  // Megatron-Core's loss works in place whatever its elementwise kernels.
  CHECK(load_scenario_text(printed, "s.json", {"training.framework=megatron-core"}).training.cross_entropy ==
        models::CrossEntropyKernel::inplace);
  // Another --set leaves the written kernel alone.
  CHECK(load_scenario_text(printed, "s.json", {"training.seq_len=2048"}).training.cross_entropy ==
        models::CrossEntropyKernel::eager);
}

TEST_CASE("--set of tp, pp, cp or num_gpus derives dp again unless dp is --set too") {
  // The README's and every --help's example, on the built-in scenario (TP8 PP4 DP8 on 256).
  CHECK(default_scenario({"parallelism.tp=4"}).parallelism.dp == 256 / (4 * 4));
  CHECK(default_scenario({"parallelism.pp=8"}).parallelism.dp == 256 / (8 * 8));
  CHECK(default_scenario({"parallelism.cp=2"}).parallelism.dp == 256 / (8 * 4 * 2));
  CHECK(default_scenario({"cluster.num_gpus=512"}).parallelism.dp == 512 / (8 * 4));
  CHECK(default_scenario({"parallelism={\"tp\": 4, \"pp\": 2}"}).parallelism.dp == 256 / (4 * 2));
  // dp --set as well is checked, not replaced.
  CHECK(default_scenario({"parallelism.tp=4", "parallelism.dp=16"}).parallelism.dp == 16);
  CHECK(load_error(to_json(default_scenario()), {"parallelism.tp=4", "parallelism.dp=8"})
            .find("s.json: /parallelism: tp*pp*dp*cp = 4*4*8*1 = 128 must equal cluster.num_gpus=256") == 0);
  // Without such a --set, a dp the file writes is checked against the file's own layout.
  CHECK(load_error(spelled_out, {}).empty());
  const std::string wrong = load_error(R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": "h100-sxm", "num_gpus": 256}, "parallelism": {"tp": 8, "pp": 4, "dp": 4}})", {});
  CHECK(wrong.find("/parallelism") != std::string::npos);
  // Another --set (not of the layout) leaves a written dp alone.
  CHECK(!load_error(R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": "h100-sxm", "num_gpus": 256}, "parallelism": {"tp": 8, "pp": 4, "dp": 4}})",
                    {"training.seq_len=2048"})
             .empty());
}

TEST_CASE("a searched layout need not fit the cluster: the search replaces it") {
  CHECK(load_error(to_json(default_scenario()), {"cluster.num_gpus=48"}).find("/parallelism/dp: cannot derive dp") !=
        std::string::npos);
  const Scenario searched = default_scenario({"cluster.num_gpus=48"}, LayoutCheck::searched);
  CHECK(searched.cluster.num_gpus == 48);
  // Rules that are not the layout's still hold.
  CHECK_THROWS_AS(default_scenario({"cluster.num_gpus=-8"}, LayoutCheck::searched), ScenarioError);
}

}  // namespace
}  // namespace clustersim::scenarios
