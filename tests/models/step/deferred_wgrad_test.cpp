// Megatron-Core's deferred output-layer weight gradients (training.defer_embedding_wgrad): what the
// last stage's backward leaves out, the drain task that runs it after the stage's last pass, the
// memory the deferred micro-batches hold, and the layout rules.
#include <doctest/doctest.h>

#include <algorithm>

#include "models/compute/compute_profile.hpp"
#include "models/compute/compute_time.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

StepInputs deferred(std::int64_t limit) {
  StepInputs in = test::llama70b_on_256();  // TP 8 with SP, PP 4, 1F1B, 128 micro-batches
  in.training.defer_embedding_wgrad = true;
  in.training.wgrad_deferral_limit = limit;
  return in;
}

}  // namespace

TEST_CASE("deferred wgrad: the last chunk's backward leaves out the logits weight-gradient GEMM") {
  const StepInputs in = deferred(0);
  const StepPlan plan = plan_step(in);
  CHECK(plan.deferred_wgrad_micro_batches == 128);
  // The GEMM by hand: dW[h x V/t] from the rank's T = 4,096 tokens, 2 T (V/t) h FLOPs in bf16 at
  // the profile's efficiency for that shape (m = h, n = V/t, k = T), plus a kernel's launch gap.
  const double tokens = 4096.0, hidden = 8192.0, vocab_per_rank = 128256.0 / 8.0;
  const double flops = 2.0 * tokens * vocab_per_rank * hidden;
  const double efficiency = gemm_efficiency(in.compute, Precision::bf16, 8192, 16032, 4096);
  const double gemm_s = flops / (in.cluster.gpu.bf16_flops_per_s * efficiency) + in.compute.launch_overhead_s.value;
  const ChunkCosts& last = plan.stages[3].chunks[0];
  CHECK(last.backward_deferred_s == doctest::Approx(gemm_s).epsilon(1e-9));
  for (std::size_t s = 0; s < 3; ++s) {
    CHECK(plan.stages[s].chunks[0].backward_deferred_s == 0.0);
    CHECK(plan.stages[s].deferred_wgrad_s == 0.0);
  }
  // The drain under SP: the first input's gather g, then each GEMM beside the next gather.
  const StepPlan base = plan_step(test::llama70b_on_256());
  CHECK(base.deferred_wgrad_micro_batches == 0);
  CHECK(base.stages[3].deferred_wgrad_s == 0.0);
  CHECK(base.stages[3].chunks[0].backward_s == last.backward_s);  // the same full backward, used by the rest
  // In bf16 the gathered input is the layers' all-gather of a bf16 activation (plan.layer.tp[0]);
  // 64 MiB over NVLink is shorter than a 4.3 TFLOP GEMM, so the GEMMs set the pace.
  const double g = plan.layer.tp[0].seconds;
  CHECK(g > 0.0);
  CHECK(g < gemm_s);
  CHECK(plan.stages[3].deferred_wgrad_s == doctest::Approx(g + 128.0 * gemm_s).epsilon(1e-9));
}

TEST_CASE("deferred wgrad: the drain runs after the last stage's passes and before its optimizer") {
  const StepInputs in = deferred(0);
  const StepSimulation run = simulate_step(in);
  const StepPlan plan = plan_step(in);
  const StepGraph& g = run.step;
  const std::size_t n = g.passes_per_stage();
  const auto last_pass_end = g.pass_begin[3 * (n + 1) + n];
  auto drain = static_cast<clustersim::sim::TaskId>(g.graph.size());
  for (auto t = last_pass_end; t < g.stage_begin[4]; ++t)
    if (g.graph.work(t) == plan.stages[3].deferred_wgrad_s) drain = t;
  REQUIRE(drain < g.graph.size());
  // It starts once every task of the stage's passes has finished, and the stage's last task (its
  // optimizer step) starts after it ends.
  for (auto t = g.stage_begin[3]; t < last_pass_end; ++t)
    if (g.graph.label(t).kind == static_cast<std::uint8_t>(TaskKind::compute) ||
        g.graph.label(t).kind == static_cast<std::uint8_t>(TaskKind::compute_then_tp))
      CHECK(run.timeline.tasks[t].finish <= run.timeline.tasks[drain].start);
  CHECK(run.timeline.tasks[g.stage_begin[4] - 1].start >= run.timeline.tasks[drain].finish);
  // The last stage sets the pace (its logits and loss): taking 128 GEMMs off its steady state
  // shortens the step, although the drain runs them at the end.
  const StepReport base = step_report(test::llama70b_on_256());
  CHECK(run.report.times.step_time_s < base.times.step_time_s);
  CHECK(step_report(in).times.step_time_s == run.report.times.step_time_s);  // simulated whole either way
}

TEST_CASE("deferred wgrad: the limit defers the first micro-batches only, and memory holds what is deferred") {
  const StepReport base = step_report(test::llama70b_on_256());
  for (const std::int64_t limit : {16, 0}) {
    CAPTURE(limit);
    const StepInputs in = deferred(limit);
    const StepPlan plan = plan_step(in);
    const std::int64_t n = limit == 0 ? 128 : limit;
    CHECK(plan.deferred_wgrad_micro_batches == n);
    // Each deferred micro-batch keeps the output layer's input shard (T h / t bf16 under SP) and
    // its logits gradient (T V / t bf16) on the last stage, the other stages nothing more.
    const double per_micro_batch = 2.0 * 4096.0 * 8192.0 / 8.0 + 2.0 * 4096.0 * 128256.0 / 8.0;
    const StepReport r = step_report(in);
    CHECK(r.memory_per_stage[3].other_bytes - base.memory_per_stage[3].other_bytes ==
          doctest::Approx(static_cast<double>(n) * per_micro_batch).epsilon(1e-12));
    for (std::size_t s = 0; s < 3; ++s)
      CHECK(r.memory_per_stage[s].other_bytes == base.memory_per_stage[s].other_bytes);
  }
}

TEST_CASE("deferred wgrad: the layout rules Megatron-Core's configuration holds") {
  const auto violation = [](StepInputs in) {
    return layout_violation(in.model, in.parallelism, in.training, in.cluster);
  };
  CHECK_FALSE(violation(deferred(0)));
  StepInputs one_stage = deferred(0);
  one_stage.parallelism.pp = 1;
  one_stage.parallelism.dp = 32;
  StepInputs torchtitan = deferred(0);
  torchtitan.training.framework = Framework::torchtitan;
  StepInputs unfused = deferred(0);
  unfused.training.grad_accumulation = GradAccumulation::main_grad_add;
  StepInputs runs = deferred(0);
  runs.training.pipeline_runs = 2;
  for (const StepInputs& in : {one_stage, torchtitan, unfused, runs}) {
    const auto v = violation(in);
    REQUIRE(v);
    CHECK(v->field == LayoutField::training_defer_embedding_wgrad);
  }
}
