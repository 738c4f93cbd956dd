#include <doctest/doctest.h>

#include <cstdint>

#include "models/compute/compute_time.hpp"
#include "models/compute/flops.hpp"
#include "models/compute/host_launch.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

// One H100, no parallelism: no communication beside the compute, so a chunk's pass is its layers'
// passes plus the embedding and the output head. Layers of width 256 at 256 tokens run their ten
// forward kernels in a few microseconds each, shorter than the 8 us a framework module takes to
// issue one.
StepInputs tiny_on_one_h100(std::int64_t layers) {
  StepInputs in;
  in.model = {.name = "tiny", .layers = layers, .hidden = 256, .ffn_hidden = 1024, .heads = 4, .kv_heads = 4,
              .vocab = 1024, .mlp = MlpKind::swiglu, .tied_embeddings = false};
  in.parallelism = {.tp = 1, .pp = 1, .dp = 1, .zero = 0};
  in.training = {.seq_len = 256, .micro_batch = 1, .global_batch = 1};
  in.cluster = {.gpu = test::h100(), .num_gpus = 1, .gpus_per_node = 1};
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  return in;
}

double ops_gpu_s(const OpList& ops, const StepInputs& in) {
  return ops_time_s(ops.span(), in.cluster.gpu, in.compute, in.training.precision);
}

/// One layer's pass, as the difference of two plans 4 layers apart (the ends cancel).
struct LayerPass {
  double forward_s, backward_s;
};
LayerPass layer_pass(StepInputs small, StepInputs large) {
  const ChunkCosts a = plan_step(small).stages[0].chunks[0], b = plan_step(large).stages[0].chunks[0];
  return {(b.forward_s - a.forward_s) / 4.0, (b.backward_s - a.backward_s) / 4.0};
}

}  // namespace

TEST_CASE("host gaps: a tiny layer waits for the CPU to issue its kernels, 8 us each") {
  const StepInputs in = tiny_on_one_h100(4);
  const LayerCosts layer = layer_costs(in.model, in.parallelism, in.training);
  const double forward_kernels = static_cast<double>(kernel_count(layer.forward.span()));
  const double backward_kernels =
      static_cast<double>(kernel_count(layer.backward.span()) + kernel_count(layer.recompute.span()));
  // Framework modules (training.elementwise fused): 8 us of host time a kernel.
  const double host_forward_s = forward_kernels * 8e-6, host_backward_s = backward_kernels * 8e-6;
  REQUIRE(ops_gpu_s(layer.forward, in) < host_forward_s);
  REQUIRE(ops_gpu_s(layer.backward, in) + ops_gpu_s(layer.recompute, in) < host_backward_s);

  const LayerPass pass = layer_pass(in, tiny_on_one_h100(8));
  CHECK(pass.forward_s == doctest::Approx(host_forward_s).epsilon(1e-9));
  CHECK(pass.backward_s == doctest::Approx(host_backward_s).epsilon(1e-9));

  SUBCASE("eager PyTorch issues a kernel in 6 us") {
    StepInputs small = in, large = tiny_on_one_h100(8);
    small.training.elementwise = large.training.elementwise = ElementwiseKernels::eager;
    const LayerCosts eager = layer_costs(small.model, small.parallelism, small.training);
    const double kernels = static_cast<double>(kernel_count(eager.forward.span()));
    REQUIRE(ops_gpu_s(eager.forward, small) < kernels * 6e-6);
    CHECK(layer_pass(small, large).forward_s == doctest::Approx(kernels * 6e-6).epsilon(1e-9));
  }

  SUBCASE("CUDA graphs remove the host excess: the layer costs its GPU time") {
    StepInputs small = in, large = tiny_on_one_h100(8);
    small.training.cuda_graphs = large.training.cuda_graphs = true;
    // One 10 us graph replay a pass hides under the GPU's kernels and gaps (4 us a kernel at least).
    REQUIRE(ops_gpu_s(layer.forward, in) > 10e-6);
    const LayerPass graphed = layer_pass(small, large);
    CHECK(graphed.forward_s == doctest::Approx(ops_gpu_s(layer.forward, in)).epsilon(1e-9));
    CHECK(graphed.backward_s ==
          doctest::Approx(ops_gpu_s(layer.backward, in) + ops_gpu_s(layer.recompute, in)).epsilon(1e-9));
    CHECK(graphed.forward_s < pass.forward_s);
  }
}

TEST_CASE("host gaps: the optimizer waits for its first launch after the step's synchronisation") {
  const StepInputs in = tiny_on_one_h100(4);
  const double params = static_cast<double>(4 * layer_parameters(in.model) + embedding_parameters(in.model));
  // Under 20,971,520 parameters: one multi-tensor Adam launch, 30 B a parameter at 3.35 TB/s x
  // the HBM efficiency, one 4 us GPU gap, after the 8 us the CPU takes to issue it.
  const double adam_s = params * 30.0 / (3.35e12 * in.compute.hbm_efficiency.value) + in.compute.launch_overhead_s.value;
  CHECK(plan_step(in).stages[0].optimizer_s == doctest::Approx(8e-6 + adam_s).epsilon(1e-9));
  // On bf16 parameters with bf16 moments: the parameter, m and v read and written at 2 B, the fp32
  // main gradient read (4 B): 16 B a parameter.
  StepInputs bf16 = in;
  bf16.training.bf16_params = true;
  REQUIRE(bf16.training.grad_dtype == GradDtype::fp32);
  const double bf16_adam_s =
      params * 16.0 / (3.35e12 * in.compute.hbm_efficiency.value) + in.compute.launch_overhead_s.value;
  CHECK(plan_step(bf16).stages[0].optimizer_s == doctest::Approx(8e-6 + bf16_adam_s).epsilon(1e-9));
}

TEST_CASE("host gaps: a large layer hides its issue under GPU time, with or without graphs") {
  StepInputs in = test::llama70b_on_256();
  const LayerCosts layer = layer_costs(in.model, in.parallelism, in.training);
  REQUIRE(ops_gpu_s(layer.forward, in) > 10.0 * static_cast<double>(kernel_count(layer.forward.span())) * 8e-6);

  const StepPlan eager_issue = plan_step(in);
  in.training.cuda_graphs = true;
  const StepPlan graphed = plan_step(in);
  for (std::size_t s = 0; s < eager_issue.stages.size(); ++s) {
    const ChunkCosts& a = eager_issue.stages[s].chunks[0];
    const ChunkCosts& b = graphed.stages[s].chunks[0];
    CHECK(a.forward_s == b.forward_s);
    CHECK(a.backward_s == b.backward_s);
  }
  // The middle stages hold layers only: 20 layers of GPU time plus the communication's interference.
  const ChunkCosts& middle = eager_issue.stages[1].chunks[0];
  CHECK(middle.forward_s - middle.interference_forward_s ==
        doctest::Approx(20.0 * ops_gpu_s(layer.forward, in)).epsilon(1e-9));
}

TEST_CASE("host gaps: the same inputs plan and simulate the same step, bit for bit") {
  StepInputs in = tiny_on_one_h100(4);
  in.training.global_batch = 4;
  const StepPlan a = plan_step(in), b = plan_step(in);
  CHECK(a.stages[0].chunks[0].forward_s == b.stages[0].chunks[0].forward_s);
  CHECK(a.stages[0].chunks[0].backward_s == b.stages[0].chunks[0].backward_s);
  CHECK(a.stages[0].optimizer_s == b.stages[0].optimizer_s);
  CHECK(simulate_step(in).report.times.step_time_s == simulate_step(in).report.times.step_time_s);
}
