#include "models/step/pipeline_schedule.hpp"

#include <doctest/doctest.h>

#include <string>

#include "models/step/step_builder.hpp"
#include "models/step/step_metrics.hpp"
#include "sim/engine.hpp"

using namespace clustersim::models;

namespace {

// A pipeline of p identical stages, v chunks each, forward 1 s and backward 2 s per micro-batch per
// stage (split evenly over the chunks), with free communication and no optimizer: the textbook
// setting of the closed-form bubble.
StepPlan uniform_plan(Schedule schedule, std::int64_t p, std::int64_t v, std::int64_t m) {
  StepPlan plan;
  plan.schedule = schedule;
  plan.micro_batches = m;
  for (std::int64_t s = 0; s < p; ++s) {
    StagePlan stage;
    for (std::int64_t c = 0; c < v; ++c)
      stage.chunks.push_back({.layers = 1, .forward_s = 1.0 / static_cast<double>(v),
                              .backward_s = 2.0 / static_cast<double>(v)});
    plan.stages.push_back(stage);
  }
  return plan;
}

StepTimes simulate(const StepPlan& plan) {
  const StepGraph step = build_step_graph(plan);
  const auto timeline = clustersim::sim::Engine(step.resources).run(step.graph);
  return measure_step(step, timeline);
}

std::string order_string(const std::vector<PassRef>& order) {
  std::string out;
  for (const PassRef& r : order)
    out += (r.forward ? "F" : "B") + std::to_string(r.micro_batch) +
           (r.chunk > 0 ? "." + std::to_string(r.chunk) : std::string{}) + " ";
  return out;
}

}  // namespace

TEST_CASE("schedule: 1F1B bubble equals (p-1)/(m+p-1) with uniform stages and free communication") {
  for (std::int64_t p : {2, 4, 8})
    for (std::int64_t m : {4, 16, 64}) {
      CAPTURE(p);
      CAPTURE(m);
      const StepTimes t = simulate(uniform_plan(Schedule::one_f_one_b, p, 1, m));
      const double expected = static_cast<double>(p - 1) / static_cast<double>(m + p - 1);
      CHECK(t.bubble_fraction == doctest::Approx(expected).epsilon(0.01));
      // (m + p - 1) slots of forward + backward, 3 s each.
      CHECK(t.step_time_s == doctest::Approx(3.0 * static_cast<double>(m + p - 1)));
      CHECK(t.exposed_comm_fraction == doctest::Approx(0.0));
    }
}

TEST_CASE("schedule: interleaved bubble equals (p-1)/(v m + p-1)") {
  for (std::int64_t p : {2, 4, 8})
    for (std::int64_t v : {2, 3})
      for (std::int64_t m : {8, 16, 64}) {
        CAPTURE(p);
        CAPTURE(v);
        CAPTURE(m);
        const StepTimes t = simulate(uniform_plan(Schedule::interleaved, p, v, m));
        const double expected =
            static_cast<double>(p - 1) / static_cast<double>(v * m + p - 1);
        CHECK(t.bubble_fraction == doctest::Approx(expected).epsilon(0.01));
      }
}

TEST_CASE("schedule: each pipeline run fills and drains the pipeline, 3 (m + r (p - 1)) s for r runs") {
  // torchtitan and NeMo Automodel call the schedule once per gradient-accumulation step: r runs of
  // m / r micro-batches one after the other, each paying the p - 1 slots of fill and drain of the
  // closed form above; interleaved, (p - 1) / v slots each.
  CHECK(order_string(stage_pass_order(Schedule::one_f_one_b, 2, 1, 4, 0, 2)) == "F0 F1 B0 B1 F2 F3 B2 B3 ");
  for (std::int64_t p : {2, 4})
    for (std::int64_t r : {1, 2, 4}) {
      CAPTURE(p);
      CAPTURE(r);
      StepPlan plan = uniform_plan(Schedule::one_f_one_b, p, 1, 8);
      plan.pipeline_runs = r;
      CHECK(simulate(plan).step_time_s == doctest::Approx(3.0 * static_cast<double>(8 + r * (p - 1))));
      StepPlan interleaved = uniform_plan(Schedule::interleaved, p, 2, 16);
      interleaved.pipeline_runs = r;
      CHECK(simulate(interleaved).step_time_s ==
            doctest::Approx(3.0 * (16.0 + static_cast<double>(r * (p - 1)) / 2.0)));
    }
}

TEST_CASE("schedule: GPipe and 1F1B take the same time, 1F1B holds fewer micro-batches") {
  // Both fill and drain the pipeline once: (m + p - 1)(t_f + t_b). 1F1B's first stage holds p
  // micro-batches' activations at its peak, GPipe's holds all m (Narayanan et al. 2021, 2.2).
  const StepTimes gpipe = simulate(uniform_plan(Schedule::gpipe, 4, 1, 16));
  const StepTimes one_f_one_b = simulate(uniform_plan(Schedule::one_f_one_b, 4, 1, 16));
  CHECK(gpipe.step_time_s == doctest::Approx(one_f_one_b.step_time_s));
  CHECK(gpipe.step_time_s == doctest::Approx(3.0 * (16 + 4 - 1)));
}

TEST_CASE("schedule: 1F1B pass order of the first and last stage, p = 4, m = 6") {
  // Stage 0 warms up with p - 1 = 3 forwards; the last stage alternates from the start.
  CHECK(order_string(stage_pass_order(Schedule::one_f_one_b, 4, 1, 6, 0)) ==
        "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ");
  CHECK(order_string(stage_pass_order(Schedule::one_f_one_b, 4, 1, 6, 3)) ==
        "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 ");
  CHECK(order_string(stage_pass_order(Schedule::gpipe, 2, 1, 3, 0)) == "F0 F1 F2 B0 B1 B2 ");
}

TEST_CASE("schedule: interleaved order follows Megatron-LM's groups of p micro-batches") {
  // p = 2, v = 2, m = 4, last stage (s = 1): warm-up 2 (p - s - 1) + (v - 1) p = 2 forward units.
  // Forward units cycle chunk 0 over micro-batches {0, 1}, then chunk 1 over {0, 1}, then {2, 3};
  // backward units start with the last chunk.
  CHECK(order_string(stage_pass_order(Schedule::interleaved, 2, 2, 4, 1)) ==
        "F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3 ");
}

TEST_CASE("schedule: interleaved micro-batch groups of N follow Megatron-Core's schedule table") {
  // Megatron-Core's own example (model_parallel_config.py, microbatch_group_size_per_vp_stage):
  // p = 2, v = 2, N = 3, m = 5 runs forwards 0 1 2 | 0 1 2 | 3 4 | 3 4 over chunks 0, 1, 0, 1.
  // Stage 0 warms up with 2 (p - 1) + (v - 1) N = 5 forward units; backwards visit each group's
  // chunks last to first: 0.1 1.1 2.1 0 1 2, then the last group of two, 3.1 4.1 3 4.
  CHECK(order_string(stage_pass_order(Schedule::interleaved, 2, 2, 5, 0, 1, 3)) ==
        "F0 F1 F2 F0.1 F1.1 F2.1 B0.1 F3 B1.1 F4 B2.1 F3.1 B0 F4.1 B1 B2 B3.1 B4.1 B3 B4 ");
  // N = p is the default.
  CHECK(order_string(stage_pass_order(Schedule::interleaved, 2, 2, 4, 1, 1, 2)) ==
        order_string(stage_pass_order(Schedule::interleaved, 2, 2, 4, 1)));
  // Larger groups start more forwards before the first backward: 2 (p - s - 1) + (v - 1) N.
  CHECK(warmup_units(Schedule::interleaved, 4, 2, 16, 0, 8) == 6 + 8);
  CHECK(warmup_units(Schedule::interleaved, 4, 3, 16, 3, 16) == 32);
}

TEST_CASE("schedule: with uniform stages and free communication the group size leaves the bubble at (p-1)/(v m + p-1)") {
  // Each chunk still waits p - 1 slots to fill and drain; larger groups only hold more in flight.
  for (const std::int64_t group : {4, 8, 12, 32}) {
    CAPTURE(group);
    StepPlan plan = uniform_plan(Schedule::interleaved, 4, 2, 32);
    plan.microbatch_group = group;
    const StepTimes t = simulate(plan);
    CHECK(t.bubble_fraction == doctest::Approx(3.0 / (2.0 * 32.0 + 3.0)).epsilon(0.01));
  }
}

TEST_CASE("layer split: even where it divides, otherwise the ends get the smaller chunks") {
  CHECK(split_layers(80, 4, 1) == std::vector<std::int64_t>{20, 20, 20, 20});
  // Llama 3 405B: 126 layers on 16 stages ran 7 on the first and last stage, 8 elsewhere.
  const auto llama = split_layers(126, 16, 1);
  CHECK(llama.front() == 7);
  CHECK(llama.back() == 7);
  for (std::size_t i = 1; i + 1 < llama.size(); ++i) CHECK(llama[i] == 8);
  // 10 layers on 4 chunks: two of 3 and two of 2; the 2s at both ends.
  CHECK(split_layers(10, 2, 2) == std::vector<std::int64_t>{2, 3, 3, 2});
}

TEST_CASE("schedule: a framework's synchronous sends hold the sending stage's stream") {
  // GPipe, 2 stages, 2 micro-batches, forward 1 s, backward 2 s, each send 0.5 s. Beside the next
  // pass: stage 0 forwards in [0, 2], stage 1 in [1.5, 2.5] and [2.5, 3.5], backwards B0 [3.5, 5.5]
  // and B1 [5.5, 7.5]; stage 0's B0 waits for its gradient, [6, 8], then B1 [8, 10]: 10 s. Blocking
  // (DeepSpeed's pipeline engine, Megatron-LM before Megatron-Core): stage 0's F1 waits for F0's
  // send, [1.5, 2.5], so stage 1's F1 runs [3, 4], its B0 [4, 6], its B1 after B0's send, [6.5, 8.5];
  // stage 0's B0 [6.5, 8.5] and B1, after the last gradient arrives at 9, [9, 11]: 11 s.
  StepPlan plan = uniform_plan(Schedule::gpipe, 2, 1, 2);
  for (StagePlan& stage : plan.stages) stage.send_forward_s = stage.send_backward_s = 0.5;
  CHECK(simulate(plan).step_time_s == doctest::Approx(10.0));
  plan.blocking_sends = true;
  CHECK(simulate(plan).step_time_s == doctest::Approx(11.0));
}
