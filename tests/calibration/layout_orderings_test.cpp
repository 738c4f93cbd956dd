// Physical orderings of the whole step model over a spread of layouts, as a user builds them from
// scenario keys (the bundled profile of each GPU): a slower or costlier network, slower HBM or
// NVLink never make a step faster, a free one or more NICs never slower; memory never grows from
// ZeRO 0 to 2 nor from no recomputation to selective to full. The layouts are ones a random sweep
// over model and GPU presets, degrees, sharding, recomputation, precision and fabric found the
// model breaking an ordering in, and a few common ones.
// The step orderings hold to 0.1 %: the step is a schedule of passes and transfers, and where
// communication bounds it a pass that ends sooner may start transfers beside others and end the
// step a little later (under 0.06 % in the sweep); the costs themselves must not, and every
// failure the sweep found moved the step by 0.2-1.4 %. The memory orderings are exact.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "calibration/step_inputs.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/scenario_io.hpp"

namespace {

using namespace clustersim;

struct Layout {
  std::string name;
  std::vector<std::string> sets;
};

const std::vector<Layout>& layouts() {
  static const std::vector<Layout> all{
      {"the default: Llama 3 70B, 256 H100, TP 8 PP 4 DP 8, ZeRO-1", {}},
      {"Mixtral 8x7B, 16 A100 on 800 Gb/s, TP 4 DP 4 EP 2, ZeRO-3 (twice the NICs slowed it 0.2 %)",
       {"model.preset=mixtral-8x7b", "cluster.gpu=a100-80gb", "cluster.num_gpus=16", "cluster.nic_gbit_per_s=800",
        "parallelism.tp=4",
        "parallelism.pp=1", "parallelism.dp=4", "parallelism.ep=2", "parallelism.zero=3", "training.global_batch=64"}},
      {"GPT-OSS 20B, 16 A100 on 800 Gb/s, TP 4 DP 4 EP 2, FSDP2 under NeMo Automodel (0.9 %)",
       {"model.preset=gpt-oss-20b", "cluster.gpu=a100-80gb", "cluster.num_gpus=16", "cluster.nic_gbit_per_s=800",
        "parallelism.tp=4",
        "parallelism.pp=1", "parallelism.dp=4", "parallelism.ep=2", "parallelism.zero=3",
        "training.framework=nemo-automodel", "training.global_batch=64", "training.cuda_graphs=true"}},
      {"Qwen3-30B-A3B, 64 H100 at 500 W, TP 2 CP 2 DP 16 EP 2, DeepEP, full recompute",
       {"model.preset=qwen3-30b-a3b", "cluster.gpu=h100-96gb-500w", "cluster.num_gpus=64", "parallelism.tp=2",
        "parallelism.pp=1", "parallelism.cp=2", "parallelism.dp=16", "parallelism.ep=2", "training.seq_len=8192",
        "training.micro_batch=4", "training.global_batch=128", "training.recompute=full",
        "training.moe_dispatcher=deepep"}},
      {"GPT-3 175B, 1,536 A100 on 200 Gb/s, TP 8 PP 8 DP 24",
       {"model.preset=gpt3-175b", "cluster.gpu=a100-80gb", "cluster.num_gpus=1536", "cluster.nic_gbit_per_s=200",
        "parallelism.pp=8", "parallelism.dp=24", "training.seq_len=2048", "training.global_batch=1536"}},
      {"Llama 3 8B, 16 B200, FSDP2 under torchtitan, FP8",
       {"model.preset=llama3-8b", "cluster.gpu=b200", "cluster.num_gpus=16", "parallelism.tp=1", "parallelism.sp=false",
        "parallelism.pp=1", "parallelism.dp=16", "parallelism.zero=3", "training.framework=torchtitan",
        "training.precision=fp8", "training.global_batch=64"}},
      {"Llama 3 405B, 8 B300, TP 2 PP 4 on one data-parallel rank (ZeRO-2 held a buffer for no reduction)",
       {"model.preset=llama3-405b", "cluster.gpu=b300", "cluster.num_gpus=8", "parallelism.tp=2", "parallelism.pp=4",
        "parallelism.dp=1", "parallelism.vp=2", "training.schedule=interleaved", "training.seq_len=2048",
        "training.global_batch=32", "training.attention=unfused"}},
      {"GPT-OSS 20B, 8 A100, TP 2 DP 4, 32K tokens, unfused attention (selective recompute held no scores)",
       {"model.preset=gpt-oss-20b", "cluster.gpu=a100-80gb", "cluster.num_gpus=8", "parallelism.tp=2",
        "parallelism.pp=1", "parallelism.dp=4", "training.seq_len=32768", "training.micro_batch=4",
        "training.global_batch=256", "training.attention=unfused"}},
      {"GPT-3 175B, 1,024 B300, TP 4 PP 8 CP 2 DP 16, ZeRO-2 under Megatron-LM (7 % faster with half the HBM "
       "bandwidth: each backward's reductions started before the gradients reached it)",
       {"model.preset=gpt3-175b", "cluster.gpu=b300", "cluster.num_gpus=1024", "parallelism.tp=4", "parallelism.pp=8",
        "parallelism.cp=2", "parallelism.dp=16", "training.seq_len=2048", "training.global_batch=1024",
        "parallelism.zero=2", "training.framework=megatron-lm"}},
      {"Llama 3 70B, 256 H100, TP 2 PP 4 DP 32 interleaved, ZeRO-2 (the search's best)",
       {"parallelism.tp=2", "parallelism.dp=32", "parallelism.vp=20", "training.schedule=interleaved",
        "parallelism.zero=2", "training.recompute=none"}},
  };
  return all;
}

double step_s(const std::vector<std::string>& sets) {
  return models::step_report(calibration::step_inputs(scenarios::default_scenario(sets))).times.step_time_s;
}

double peak_memory(const std::vector<std::string>& sets) {
  const models::StepReport r = models::step_report(calibration::step_inputs(scenarios::default_scenario(sets)));
  return r.memory_per_stage[static_cast<std::size_t>(r.peak_memory_stage)].total_bytes;
}

std::vector<std::string> with(std::vector<std::string> sets, std::initializer_list<std::string> more) {
  for (const std::string& s : more) sets.push_back(s);
  return sets;
}

constexpr double kTimelineTolerance = 1e-3;

}  // namespace

TEST_CASE("layout orderings: a costlier network, HBM or NVLink never speeds a step, a free one never slows it") {
  for (const Layout& layout : layouts()) {
    CAPTURE(layout.name);
    const double base = step_s(layout.sets);
    REQUIRE(base > 0.0);
    const double slow_floor = base * (1.0 - kTimelineTolerance), fast_ceiling = base * (1.0 + kTimelineTolerance);
    CHECK(step_s(with(layout.sets, {"cluster.nic_gbit_per_s=100"})) >= slow_floor);
    CHECK(step_s(with(layout.sets, {"cluster.network_latency_us=50"})) >= slow_floor);
    CHECK(step_s(with(layout.sets, {"cluster.oversubscription=4"})) >= slow_floor);
    const double hbm_tb_per_s = calibration::step_inputs(scenarios::default_scenario(layout.sets)).cluster.gpu.hbm_bytes_per_s / 1e12;
    CHECK(step_s(with(layout.sets, {"cluster.gpu.hbm_tb_per_s=1"})) >= slow_floor);
    CHECK(step_s(with(layout.sets, {"cluster.gpu.hbm_tb_per_s=" + std::to_string(hbm_tb_per_s / 2.0)})) >= slow_floor);
    CHECK(step_s(with(layout.sets, {"cluster.gpu.nvlink_gb_per_s=100"})) >= slow_floor);
    CHECK(step_s(with(layout.sets, {"cluster.nics_per_node=16"})) <= fast_ceiling);
    CHECK(step_s(with(layout.sets, {"cluster.ideal_network=true"})) <= fast_ceiling);
  }
}

TEST_CASE("layout orderings: memory never grows from ZeRO 0 to 2, nor from no recomputation to selective to full") {
  for (const Layout& layout : layouts()) {
    CAPTURE(layout.name);
    // Each setting in turn, the most memory first: each peak at most the one before.
    const auto never_grows = [&](const std::vector<std::string>& sets, const std::vector<std::string>& settings) {
      double previous = 0.0;
      for (const std::string& setting : settings) {
        const double peak = peak_memory(with(sets, {setting}));
        CAPTURE(setting);
        if (previous > 0.0) CHECK(peak <= previous);
        previous = peak;
      }
    };
    never_grows(with(layout.sets, {"parallelism.zero=1"}),
                {"training.recompute=none", "training.recompute=selective", "training.recompute=full"});
    never_grows(with(layout.sets, {"training.recompute=selective"}),
                {"parallelism.zero=0", "parallelism.zero=1", "parallelism.zero=2"});
  }
}
