#include "planning/search/layout_search.hpp"

#include <doctest/doctest.h>

#include <set>
#include <tuple>

#include "tests/models/model_fixtures.hpp"
#include "models/compute/compute_profile.hpp"

namespace clustersim::models {
namespace {

// A transformer small enough to count its layouts by hand: 4 layers, 4 heads, 4 key/value heads,
// on 4 GPUs of one node, 4 sequences of 8 tokens per step.
StepInputs tiny() {
  StepInputs in{.model = {.name = "tiny", .layers = 4, .hidden = 64, .ffn_hidden = 256, .heads = 4, .kv_heads = 4,
                          .vocab = 128},
                .parallelism = {},
                .training = {.seq_len = 8, .micro_batch = 1, .global_batch = 4},
                .cluster = {.gpu = test::h100(), .num_gpus = 4, .gpus_per_node = 4},
                .compute = default_compute_profile("h100-sxm"),
                .comm = {}};
  in.comm = default_comm_profile(in.cluster);
  return in;
}

using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool, int,
                       Recompute, Schedule>;
Key key(const planning::Layout& l) {
  const auto& p = l.parallelism;
  return {p.tp, p.pp, p.dp, p.cp, p.vp, l.training.micro_batch, p.sp, p.zero, l.training.recompute,
          l.training.schedule};
}

TEST_CASE("layout search: a tiny model's layouts, counted by hand") {
  // tp in {1, 2, 4} (divides 4 GPUs, 4 heads, 4 kv heads); cp divides the rest and 8 tokens;
  // pp the rest again (at most 4 layers); dp what is left; micro-batches divide 4 / dp; vp = 2 only
  // for pp = 2 (4 layers in whole chunks) with micro-batches per step a multiple of pp.
  // tp1 cp1: pp1 dp4 {mb1}: 1; pp2 dp2 {mb1, mb2} + vp2 {mb1}: 3; pp4 dp1 {1, 2, 4}: 3   -> 7
  // tp1 cp2: pp1 dp2 {1, 2}: 2; pp2 dp1 {1, 2, 4} + vp2 {mb1, mb2}: 5                    -> 7
  // tp1 cp4: pp1 dp1 {1, 2, 4}                                                           -> 3
  // tp2 cp1: as tp1 cp2                                                                  -> 7
  // tp2 cp2 and tp4 cp1: pp1 dp1 {1, 2, 4}                                               -> 3 + 3
  // 30 layouts with one ZeRO stage, one recompute setting and SP off.
  planning::SearchSpace space{.recompute = {Recompute::selective}, .zero = {1}, .sp = {false}};
  const auto layouts = planning::search_layouts(tiny(), space);
  CHECK(layouts.size() == 30);
  // SP doubles the layouts whose tp > 1 (8 tokens divide by tp x cp for all of them): 7 + 3 + 3.
  space.sp = {false, true};
  CHECK(planning::search_layouts(tiny(), space).size() == 43);
  // Two ZeRO stages double every layout whose parameters have more than one replica (dp x cp > 1)
  // and leave the 11 with dp = cp = 1 alone: tp1 pp4 (3), tp2 pp2 (3 + 2 interleaved), tp4 pp1 (3).
  space.sp = {false};
  space.zero = {1, 3};
  CHECK(planning::search_layouts(tiny(), space).size() == 2 * 30 - 11);
}

TEST_CASE("layout search: the scenario's ZeRO-3 implementation, CP exchange and overlap options stay with every layout") {
  StepInputs base = tiny();
  base.parallelism.sharding = ShardingFramework::megatron_fsdp;
  base.parallelism.cp_comm = CpComm::all_gather;
  base.parallelism.tp_comm_overlap = true;
  planning::SearchSpace space{.recompute = {Recompute::selective}, .zero = {3}};
  const auto layouts = planning::search_layouts(base, space);
  REQUIRE_FALSE(layouts.empty());
  bool overlapped = false;
  for (const auto& c : layouts) {
    CHECK(c.layout.parallelism.sharding == ShardingFramework::megatron_fsdp);
    CHECK(c.layout.parallelism.cp_comm == CpComm::all_gather);
    // TP overlap needs sequence parallelism: kept where SP is on, off elsewhere.
    CHECK(c.layout.parallelism.tp_comm_overlap == c.layout.parallelism.sp);
    overlapped = overlapped || c.layout.parallelism.tp_comm_overlap;
  }
  CHECK(overlapped);
}

// A training key that only some layouts can take (`key`), set on the base: the search lists as many
// layouts as without it, and `applies` says which of them keep it; both kinds are listed.
template <class Applies>
void check_kept_where_valid(StepInputs base, const planning::SearchSpace& space, bool TrainingSpec::*key,
                            Applies applies) {
  const std::size_t without = planning::search_layouts(base, space).size();
  base.training.*key = true;
  const auto layouts = planning::search_layouts(base, space);
  CHECK(layouts.size() == without);
  bool with = false, others = false;
  for (const auto& c : layouts) {
    const bool expected = applies(c.layout.parallelism);
    CHECK(c.layout.training.*key == expected);
    (expected ? with : others) = true;
  }
  CHECK(with);
  CHECK(others);
}

TEST_CASE("layout search: keys a layout may refuse stay with the layouts that take them") {
  // Megatron-Core refuses the deferred output-layer weight gradients without a pipeline.
  check_kept_where_valid(tiny(), {.recompute = {Recompute::selective}, .zero = {1}},
                         &TrainingSpec::defer_embedding_wgrad, [](const ParallelismSpec& p) { return p.pp > 1; });
  // FSDP's once-a-step sync needs sharded parameters.
  StepInputs fsdp = tiny();
  fsdp.parallelism.zero = 3;
  check_kept_where_valid(fsdp, {.recompute = {Recompute::selective}, .zero = {1, 3}}, &TrainingSpec::fsdp_sync_once,
                         [](const ParallelismSpec& p) { return p.zero == 3; });
  // Reducing every micro-batch under a pipeline needs sharded parameters and a pipeline.
  check_kept_where_valid(fsdp, {.recompute = {Recompute::selective}, .zero = {1, 3}},
                         &TrainingSpec::fsdp_sync_every_micro_batch,
                         [](const ParallelismSpec& p) { return p.zero == 3 && p.pp > 1; });
}

TEST_CASE("layout search: under the flow fidelity it lists no layout over the flow's 2^16 chunk passes") {
  // tp 1, cp 1, pp 4 on the tiny model's 4 GPUs leaves dp 1 and vp 1 (4 layers); a step of 2^17
  // sequences then holds 4 x 2^17 / mb chunk passes: 2^19 at mb 1, within the analytic limit
  // (2^19), and at most 2^16 only from mb 8.
  StepInputs base = tiny();
  base.training.global_batch = std::int64_t{1} << 17;
  const planning::SearchSpace space{.tp = {1}, .cp = {1}, .pp = {4}, .micro_batch = {1, 2, 4, 8, 16},
                                    .recompute = {Recompute::selective}, .zero = {1}, .sp = {false}};
  CHECK(planning::search_layouts(base, space).size() == 5);
  base.fidelity = CommFidelity::flow;
  const auto flow_layouts = planning::search_layouts(base, space);
  REQUIRE(flow_layouts.size() == 2);
  CHECK(flow_layouts[0].layout.training.micro_batch == 8);
  CHECK(flow_layouts[1].layout.training.micro_batch == 16);
}

TEST_CASE("layout search: every layout is valid, distinct, fills the GPUs and keeps the base's batch") {
  const StepInputs base = tiny();
  const auto layouts = planning::search_layouts(base);
  REQUIRE(!layouts.empty());
  std::set<Key> seen;
  for (const auto& c : layouts) {
    const auto& p = c.layout.parallelism;
    CAPTURE(p.tp);
    CAPTURE(p.pp);
    CAPTURE(p.cp);
    CHECK(p.tp * p.pp * p.dp * p.cp == base.cluster.num_gpus);
    CHECK(c.layout.training.global_batch == base.training.global_batch);
    CHECK(c.layout.training.seq_len == base.training.seq_len);
    CHECK((p.vp > 1) == (c.layout.training.schedule == Schedule::interleaved));
    CHECK_NOTHROW(check_layout(planning::with_layout(base, c.layout)));
    CHECK(seen.insert(key(c.layout)).second);
  }
}

TEST_CASE("layout search: the memory estimate is what simulate_step reports") {
  // Llama 3 8B on 16 H100: the estimate must pick the same peak stage and total as a full
  // simulation does, or the search would set apart layouts that run reports as fitting.
  StepInputs base = tiny();
  base.model = test::llama3_8b();
  base.cluster.num_gpus = 16;
  base.cluster.gpus_per_node = 8;
  base.training = {.seq_len = 2048, .micro_batch = 1, .global_batch = 32};
  const planning::SearchSpace space{.tp = {2, 8}, .cp = {1}, .pp = {2, 4}, .micro_batch = {1, 2}, .zero = {1}};
  const auto layouts = planning::search_layouts(base, space);
  REQUIRE(layouts.size() >= 4);
  for (const auto& c : layouts) {
    const StepReport report = simulate_step(planning::with_layout(base, c.layout)).report;
    CHECK(c.memory.stage == report.peak_memory_stage);
    CHECK(c.memory.breakdown.total_bytes == report.memory_per_stage.at(static_cast<std::size_t>(c.memory.stage)).total_bytes);
    CHECK(c.memory.fits == report.fits_in_memory);
  }
}

TEST_CASE("layout search: a layout fits when its peak, runtime memory included, is within HBM") {
  // Shrink the GPU until some layouts of the 8B model no longer fit: the split must follow the
  // rule of models/compute/memory.hpp exactly, stage by stage.
  StepInputs base = tiny();
  base.model = test::llama3_8b();
  base.cluster.num_gpus = 8;
  base.cluster.gpus_per_node = 8;
  base.cluster.gpu.hbm_bytes = 40e9;
  base.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 16};
  const auto layouts = planning::search_layouts(base, {.cp = {1}, .micro_batch = {1, 4}});
  std::size_t fit = 0, too_large = 0;
  for (const auto& c : layouts) {
    const auto stages = planning::memory_per_stage(planning::with_layout(base, c.layout));
    double peak = 0.0;
    for (const auto& m : stages) peak = std::max(peak, m.total_bytes);
    CHECK(c.memory.breakdown.total_bytes == peak);
    CHECK(c.memory.fits == (peak <= 40e9));
    (c.memory.fits ? fit : too_large) += 1;
  }
  CHECK(fit > 0);
  CHECK(too_large > 0);
}

TEST_CASE("layout search: equal plan keys mean equal simulated steps, ZeRO-1, 2 and 3 have keys of their own") {
  StepInputs base = tiny();
  base.model = test::llama3_8b();
  base.cluster.num_gpus = 16;
  base.cluster.gpus_per_node = 8;
  base.training = {.seq_len = 2048, .micro_batch = 1, .global_batch = 32};
  planning::Layout one{.parallelism = {.tp = 4, .pp = 2, .dp = 2, .zero = 1}, .training = base.training};
  // A ZeRO-3 implementation named beside ZeRO-1 changes nothing the step runs.
  planning::Layout same = one;
  same.parallelism.sharding = ShardingFramework::fsdp1;
  planning::Layout two = one;
  two.parallelism.zero = 2;
  planning::Layout three = one;
  three.parallelism.zero = 3;
  const auto plan = [&](const planning::Layout& l) { return planning::plan_key(plan_step(planning::with_layout(base, l))); };
  CHECK(plan(one) == plan(same));
  CHECK(simulate_step(planning::with_layout(base, one)).report.times.step_time_s ==
        simulate_step(planning::with_layout(base, same)).report.times.step_time_s);
  // ZeRO-2 reduce-scatters every micro-batch's gradients, ZeRO-1 once a step.
  CHECK(plan(one) != plan(two));
  CHECK(plan(one) != plan(three));
  CHECK(plan(two) != plan(three));
}

TEST_CASE("layout search: a plan key covers ZeRO-3's blocking data-parallel time") {
  // Without overlap, ZeRO-3's gathers and reduce-scatters block the compute stream: two plans that
  // differ only there simulate to different steps, so they must not share a key.
  StepInputs base = tiny();
  base.model = test::llama3_8b();
  base.cluster.num_gpus = 16;
  base.cluster.gpus_per_node = 8;
  base.training = {.seq_len = 2048, .micro_batch = 1, .global_batch = 32};
  base.training.overlap_param_gather = base.training.overlap_grad_reduce = false;
  const planning::Layout layout{.parallelism = {.tp = 4, .pp = 1, .dp = 4, .zero = 3}, .training = base.training};
  const StepPlan plan = plan_step(planning::with_layout(base, layout));
  REQUIRE(plan.stages.front().chunks.front().dp_before_forward_s > 0.0);
  StepPlan slower = plan;
  slower.stages.front().chunks.front().dp_before_forward_s *= 2.0;
  CHECK(planning::plan_key(plan) != planning::plan_key(slower));
  StepPlan slower_backward = plan;
  slower_backward.stages.front().chunks.front().dp_after_backward_s *= 2.0;
  CHECK(planning::plan_key(plan) != planning::plan_key(slower_backward));
}

}  // namespace
}  // namespace clustersim::models
