#include "planning/search/step_bound.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"
#include "models/compute/compute_profile.hpp"
#include "planning/search/layout_search.hpp"
#include "models/step/step_model.hpp"

namespace clustersim::models {
namespace {

// Llama 3 8B on 4 nodes of 8 H100, 32 sequences of 2048 tokens a step: every layout a search
// enumerates (tp, cp, pp, vp, micro-batch, SP, ZeRO, recompute), 1F1B and interleaved.
StepInputs llama8b_on_32() {
  StepInputs in{.model = test::llama3_8b(),
                .parallelism = {},
                .training = {.seq_len = 2048, .micro_batch = 1, .global_batch = 32},
                .cluster = {.gpu = test::h100(), .num_gpus = 32, .gpus_per_node = 8},
                .compute = default_compute_profile("h100-sxm"),
                .comm = {}};
  in.comm = default_comm_profile(in.cluster);
  return in;
}

TEST_CASE("step bound: never above the simulated step time, and tight where nothing overlaps") {
  // The bound is a chain of dependent tasks at their solo durations, so every layout's simulated
  // step (contention and rounding only lengthen tasks) must take at least as long. Memory does
  // not matter here: layouts that cannot fit are simulated too.
  const StepInputs base = llama8b_on_32();
  planning::SearchSpace space;
  space.recompute = {Recompute::selective, Recompute::full};
  space.zero = {1, 3};
  const auto candidates = planning::search_layouts(base, space);
  REQUIRE(candidates.size() > 100);
  int tight = 0;
  for (std::size_t i = 0; i < candidates.size(); i += 3) {
    const StepInputs in = planning::with_layout(base, candidates[i].layout);
    const double bound = planning::step_time_lower_bound_s(plan_step(in));
    const double simulated = simulate_step(in).report.times.step_time_s;
    CAPTURE(i);
    CHECK(bound > 0.0);
    CHECK(bound <= simulated * (1.0 + 1e-12));
    if (bound >= simulated * (1.0 - 1e-6)) ++tight;
  }
  // Without a pipeline (pp = 1) and with ZeRO-1 the chain is the whole step, up to rounding.
  CHECK(tight > 0);
}

TEST_CASE("step bound: compute alone bounds the flow fidelity's step, and the analytic bound is above it") {
  // Under flow the communication is flows on the routes, which the plan's seconds do not bound;
  // its compute tasks are the analytic fidelity's, so their chain does. Every 24th layout of the
  // search, fitting or not, on a 4:1 fat tree (where flows contend most).
  StepInputs base = llama8b_on_32();
  base.fidelity = CommFidelity::flow;
  planning::SearchSpace space;
  space.recompute = {Recompute::selective, Recompute::full};
  space.zero = {1, 3};
  const auto candidates = planning::search_layouts(base, space);
  REQUIRE(candidates.size() > 100);
  base.cluster.topology = TopologyKind::fat_tree;
  base.cluster.oversubscription = 4.0;
  for (std::size_t i = 0; i < candidates.size(); i += 24) {
    const StepInputs in = planning::with_layout(base, candidates[i].layout);
    const StepPlan plan = plan_step(in);
    const double compute = planning::step_time_lower_bound_s(plan, CommFidelity::flow);
    CAPTURE(i);
    CHECK(compute > 0.0);
    CHECK(compute <= planning::step_time_lower_bound_s(plan, CommFidelity::analytic));
    CHECK(compute <= simulate_step(in).report.times.step_time_s * (1.0 + 1e-12));
  }
}

TEST_CASE("step bound: GPipe's fill and drain count, as in 1F1B") {
  // 4 stages, ideal network: with uniform stages of forward f and backward b per micro-batch,
  // both schedules take (m + p - 1)(f + b) plus the optimizer, and the bound holds exactly that
  // chain: fill (p - 1) f, the last stage's m (f + b), drain (p - 1) b.
  StepInputs in = llama8b_on_32();
  in.cluster.ideal_network = true;
  in.parallelism = {.tp = 8, .pp = 4, .dp = 1};
  in.training.global_batch = 8;
  for (const Schedule schedule : {Schedule::gpipe, Schedule::one_f_one_b}) {
    in.training.schedule = schedule;
    const double bound = planning::step_time_lower_bound_s(plan_step(in));
    const double simulated = simulate_step(in).report.times.step_time_s;
    CHECK(bound <= simulated * (1.0 + 1e-12));
    CHECK(bound == doctest::Approx(simulated).epsilon(0.02));
  }
}

TEST_CASE("step bound: a layout is set aside only past the kept slow end, and a beaten bound throws") {
  // The margin is a billionth of the bound: 1.0 against a kept 0.999 is out, against 1.0 (a tie) is in.
  CHECK(planning::bound_excludes(1.0, 0.999));
  CHECK_FALSE(planning::bound_excludes(1.0, 1.0));
  CHECK_FALSE(planning::bound_excludes(1.0 + 5e-10, 1.0));
  CHECK_NOTHROW(planning::check_bound_holds(1.0, 1.0, "TP8"));
  CHECK_NOTHROW(planning::check_bound_holds(1.0, 1.0 - 5e-10, "TP8"));
  CHECK_THROWS_WITH_AS(planning::check_bound_holds(1.0, 0.9, "TP8"),
                       "step-time lower bound 1 s exceeds the simulated 0.9 s for TP8", std::logic_error);
}

}  // namespace
}  // namespace clustersim::models
