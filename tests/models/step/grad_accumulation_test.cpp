#include <doctest/doctest.h>

#include "models/compute/flops.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

// Llama 3 70B at TP 8 x PP 4 x DP 8: a middle stage holds 20 layers, each 1/8 of a layer's
// parameters on the rank; 1,024 sequences over 8 replicas at micro-batch 1 are 128 micro-batches.
constexpr double kMicroBatches = 128.0;

double middle_stage_params(const StepInputs& in) {
  return 20.0 * static_cast<double>(layer_parameters(in.model)) / 8.0;
}

double hbm_rate(const StepInputs& in) { return 3.35e12 * in.compute.hbm_efficiency.value; }

ChunkCosts middle_chunk(const StepInputs& in) { return plan_step(in).stages[1].chunks[0]; }

StepInputs with(GradAccumulation accumulation, GradDtype dtype = GradDtype::fp32) {
  StepInputs in = test::llama70b_on_256();
  in.training.grad_accumulation = accumulation;
  in.training.grad_dtype = dtype;
  return in;
}

}  // namespace

TEST_CASE("gradient accumulation: each backward's pass over the rank's gradients, by how the framework adds them") {
  const StepInputs fused = with(GradAccumulation::fused);
  REQUIRE(plan_step(fused).micro_batches == 128);
  const ChunkCosts base = middle_chunk(fused);
  CHECK(base.grad_accumulation_s == 0.0);
  const double params = middle_stage_params(fused);

  // Each case: the HBM bytes a parameter of one backward moves, averaged over the step's passes.
  struct Case {
    const char* name;
    StepInputs in;
    double bytes_per_param;
  };
  const Case cases[] = {
      // AccumulateGrad: nothing on the first micro-batch, then read .grad and the new gradient and
      // write .grad, 2 B each.
      {"autograd", with(GradAccumulation::autograd), 6.0 * (kMicroBatches - 1.0) / kMicroBatches},
      // Megatron's hook: read the 2 B gradient, read and write the 4 B main_grad, every pass.
      {"main_grad_add into fp32", with(GradAccumulation::main_grad_add), 2.0 + 4.0 + 4.0},
      {"main_grad_add into bf16", with(GradAccumulation::main_grad_add, GradDtype::bf16), 2.0 + 2.0 + 2.0},
      // DeepSpeed's update_hp_grads: lp.grad.to(float32) reads 2 B and writes 4, add_ reads 4 + 4
      // and writes 4.
      {"fp32_cast_add", with(GradAccumulation::fp32_cast_add), 2.0 + 4.0 + 4.0 + 4.0 + 4.0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const ChunkCosts chunk = middle_chunk(c.in);
    const double expected_s = params * c.bytes_per_param / hbm_rate(c.in);
    CHECK(chunk.grad_accumulation_s == doctest::Approx(expected_s).epsilon(1e-12));
    CHECK(chunk.backward_s - base.backward_s == doctest::Approx(expected_s).epsilon(1e-9));
    CHECK(chunk.forward_s == base.forward_s);
  }
}

TEST_CASE("gradient accumulation: none to add with one micro-batch, and none under ZeRO-3") {
  StepInputs one = with(GradAccumulation::autograd);
  one.training.global_batch = 8;  // one sequence a replica
  REQUIRE(plan_step(one).micro_batches == 1);
  CHECK(middle_chunk(one).grad_accumulation_s == 0.0);

  // ZeRO-3 that reduce-scatters every backward's gradients into the shard has no full buffer to add
  // into (FSDP2 under a pipeline does: collective records' test of it).
  StepInputs sharded = with(GradAccumulation::fp32_cast_add);
  sharded.parallelism.zero = 3;
  sharded.parallelism.sharding = ShardingFramework::megatron_fsdp;
  CHECK(middle_chunk(sharded).grad_accumulation_s == 0.0);
}

TEST_CASE("gradient accumulation: an unfused add lengthens the step by about its passes on the slowest stage") {
  const StepInputs fused = with(GradAccumulation::fused);
  const StepInputs cast_add = with(GradAccumulation::fp32_cast_add);
  const double pass_s = middle_chunk(cast_add).grad_accumulation_s;
  const double longer_s =
      simulate_step(cast_add).report.times.step_time_s - simulate_step(fused).report.times.step_time_s;
  // Every stage's 128 backwards each take the pass longer; the first and last stages hold the
  // embedding or the output layer's parameters too, so the critical path gains at least the
  // middle stages' 128 passes and not much more.
  CHECK(longer_s >= 0.99 * kMicroBatches * pass_s);
  CHECK(longer_s <= 1.3 * kMicroBatches * pass_s);
}
