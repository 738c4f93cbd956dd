// The steady state simulated once: figures equal, bit for bit, to the whole step's simulation, on
// layouts that exercise every kind of task the analytic step has.

#include "models/step/periodic_step.hpp"

#include <doctest/doctest.h>

#include <string>

#include "models/step/step_builder.hpp"
#include "models/step/step_metrics.hpp"
#include "sim/engine.hpp"
#include "tests/models/step/same_step_times.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

StepTimes whole_step(const StepPlan& plan) {
  const StepGraph step = build_step_graph(plan);
  return measure_step(step, clustersim::sim::Engine(step.resources).run(step.graph));
}

struct Case {
  std::string name;
  StepInputs in;
};

std::vector<Case> layouts() {
  using test::llama70b_on_256;
  std::vector<Case> cases;
  cases.push_back({"default: TP8 PP4 DP8 ZeRO-1 1F1B, 128 micro-batches", llama70b_on_256()});
  StepInputs interleaved = llama70b_on_256();
  interleaved.parallelism.vp = 5;
  interleaved.training.schedule = Schedule::interleaved;
  cases.push_back({"interleaved, 5 chunks a stage", interleaved});
  StepInputs grouped = interleaved;
  grouped.parallelism.microbatch_group = 8;
  cases.push_back({"interleaved in micro-batch groups of 8", grouped});
  StepInputs context = llama70b_on_256();
  context.parallelism.dp = 4;
  context.parallelism.cp = 2;
  cases.push_back({"context parallel: the ring beside the compute shares the port with the sends", context});
  StepInputs fsdp = llama70b_on_256();
  fsdp.parallelism = {.tp = 4, .pp = 4, .dp = 16, .sp = true, .zero = 3};
  cases.push_back({"ZeRO-3: gathers before and beside each pass, reductions after", fsdp});
  StepInputs zero2 = llama70b_on_256();
  zero2.parallelism.zero = 2;
  cases.push_back({"ZeRO-2: every backward's reductions beside it, the parameters gathered once", zero2});
  StepInputs blocking = llama70b_on_256();
  blocking.training.overlap_grad_reduce = false;
  blocking.training.overlap_param_gather = false;
  cases.push_back({"no overlap: one reduction after the last backward, the gather after the optimizer", blocking});
  StepInputs tied = llama70b_on_256();
  tied.model.tied_embeddings = true;
  cases.push_back({"tied embeddings: the two ends all-reduce the embedding's gradient before the optimizer", tied});
  StepInputs tp_overlap = llama70b_on_256();
  tp_overlap.parallelism.tp_comm_overlap = true;
  cases.push_back({"TP overlap: the hidden collectives on NVLink beside the GEMMs", tp_overlap});
  StepInputs moe;
  moe.model = test::mixtral_8x7b();
  moe.parallelism = {.tp = 2, .pp = 4, .dp = 8, .sp = true, .ep = 8, .ep_comm_overlap = true};
  moe.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 256, .recompute = Recompute::none};
  moe.cluster = test::h100_cluster(64);
  moe.compute = default_compute_profile("h100-sxm");
  moe.comm = default_comm_profile(moe.cluster);
  cases.push_back({"MoE: all-to-alls beside the compute", moe});
  return cases;
}

}  // namespace

TEST_CASE("periodic step: the steady state simulated once gives the whole step's figures bit for bit") {
  for (const Case& c : layouts()) {
    CAPTURE(c.name);
    check_layout(c.in);
    const StepPlan plan = plan_step(c.in);
    const std::optional<StepTimes> periodic = periodic_step_times(plan);
    REQUIRE(periodic.has_value());  // every layout above repeats: the proof must find it
    test::check_same_step_times(*periodic, whole_step(plan));
  }
}

TEST_CASE("periodic step: the textbook pipeline's time, 3 s a slot over m + p - 1 slots, from two short runs") {
  // Forward 1 s and backward 2 s a micro-batch on each of 4 stages, free communication.
  StepPlan plan;
  plan.micro_batches = 64;
  for (int s = 0; s < 4; ++s) plan.stages.push_back({.chunks = {{.layers = 1, .forward_s = 1.0, .backward_s = 2.0}}});
  const std::optional<StepTimes> periodic = periodic_step_times(plan);
  REQUIRE(periodic.has_value());
  CHECK(periodic->step_time_s == doctest::Approx(3.0 * (64 + 4 - 1)).epsilon(1e-12));
  CHECK(periodic->bubble_fraction == doctest::Approx(3.0 / 67.0).epsilon(1e-9));
  test::check_same_step_times(*periodic, whole_step(plan));
}

TEST_CASE("periodic step: no proof, no shortcut: GPipe, steps too short to repeat and a short last group are simulated whole") {
  StepPlan gpipe = plan_step(test::llama70b_on_256());
  gpipe.schedule = Schedule::gpipe;
  CHECK_FALSE(periodic_step_times(gpipe).has_value());
  StepPlan short_step = plan_step(test::llama70b_on_256());
  short_step.micro_batches = 8;  // 4 stages: the two short runs would cost about as much as the step
  CHECK_FALSE(periodic_step_times(short_step).has_value());
  // Interleaved groups of 12 leave 128 a last group of 8, which reorders the passes before the drain.
  StepInputs last_group = test::llama70b_on_256();
  last_group.parallelism.vp = 5;
  last_group.parallelism.microbatch_group = 12;
  last_group.training.schedule = Schedule::interleaved;
  check_layout(last_group);
  CHECK_FALSE(periodic_step_times(plan_step(last_group)).has_value());
}
