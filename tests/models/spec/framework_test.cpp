#include "models/spec/framework.hpp"

#include <doctest/doctest.h>

#include <array>

namespace clustersim::models {
namespace {

constexpr std::array kFrameworks{Framework::megatron_core, Framework::megatron_lm, Framework::megatron_deepspeed,
                                 Framework::torchtitan,    Framework::llm_foundry, Framework::nemo_automodel};

TEST_CASE("frameworks: every choice of every parameter set names its source") {
  for (const Framework f : kFrameworks) {
    const FrameworkParameters& set = framework_parameters(f);
    CAPTURE(framework_name(f));
    CHECK(set.framework == f);
    CHECK_FALSE(set.attention.source.empty());
    CHECK_FALSE(set.elementwise.source.empty());
    CHECK_FALSE(set.grad_dtype.source.empty());
    CHECK_FALSE(set.sharding.source.empty());
    CHECK_FALSE(set.fp8_recipe.source.empty());
    CHECK_FALSE(set.selective_recompute.source.empty());
    CHECK_FALSE(set.fp32_loss.source.empty());
    CHECK_FALSE(set.cross_entropy.source.empty());
    CHECK_FALSE(set.compile_fuses_loss.source.empty());
    CHECK_FALSE(set.bf16_params.source.empty());
    CHECK_FALSE(set.fp8_keeps_quantized_inputs.source.empty());
    CHECK_FALSE(set.tp_keeps_gathered_inputs.source.empty());
    CHECK_FALSE(set.tp_loss_parallel.source.empty());
    CHECK_FALSE(set.pp_stage_buffers.source.empty());
    CHECK_FALSE(set.pp_blocking_sends.source.empty());
    CHECK_FALSE(set.tp_collectives_copy_sequence.source.empty());
    CHECK_FALSE(set.zero1_all_reduces_gradients.source.empty());
    CHECK_FALSE(set.zero_param_gather_beside_forward.source.empty());
    CHECK_FALSE(set.fused_qkv.source.empty());
    CHECK_FALSE(set.fused_gate_up.source.empty());
  }
}

TEST_CASE("frameworks: Megatron's model code fuses the input projections, PyTorch-native model code keeps them apart") {
  for (const Framework f : {Framework::megatron_core, Framework::megatron_lm, Framework::megatron_deepspeed}) {
    CHECK(framework_parameters(f).fused_qkv.value);
    CHECK(framework_parameters(f).fused_gate_up.value);
  }
  for (const Framework f : {Framework::torchtitan, Framework::nemo_automodel}) {
    CHECK_FALSE(framework_parameters(f).fused_qkv.value);
    CHECK_FALSE(framework_parameters(f).fused_gate_up.value);
  }
  // MPT: one Wqkv linear, a gate_proj beside up_proj in its GLU.
  CHECK(framework_parameters(Framework::llm_foundry).fused_qkv.value);
  CHECK_FALSE(framework_parameters(Framework::llm_foundry).fused_gate_up.value);
}

TEST_CASE("frameworks: NeMo Automodel trains a bf16 model with Transformer Engine's kernels") {
  const FrameworkParameters& automodel = framework_parameters(Framework::nemo_automodel);
  CHECK(automodel.bf16_params.value);
  CHECK(automodel.grad_dtype.value == GradDtype::bf16);
  CHECK(automodel.attention.value == AttentionKernel::cudnn);
  CHECK(automodel.elementwise.value == ElementwiseKernels::fused);
  CHECK(automodel.fp32_loss.value);  // MaskedCrossEntropy's default; its benchmark configs turn it off
  // Every other framework keeps fp32 master weights and upcasts the loss.
  for (const Framework f : kFrameworks) {
    if (f == Framework::nemo_automodel) continue;
    CAPTURE(framework_name(f));
    CHECK_FALSE(framework_parameters(f).bf16_params.value);
    CHECK(framework_parameters(f).fp32_loss.value);
  }
}

TEST_CASE("frameworks: the loss works in place in Megatron, fused in llm-foundry, eager in torchtitan unless "
          "compiled") {
  using enum CrossEntropyKernel;
  // Megatron's vocab-parallel cross-entropy unless --cross-entropy-loss-fusion, whatever its
  // elementwise kernels (Megatron fuses those by hand, not with torch.compile).
  for (const Framework f : {Framework::megatron_core, Framework::megatron_lm, Framework::megatron_deepspeed}) {
    CAPTURE(framework_name(f));
    CHECK(framework_cross_entropy(framework_parameters(f), ElementwiseKernels::eager) == inplace);
    CHECK(framework_cross_entropy(framework_parameters(f), ElementwiseKernels::fused) == inplace);
  }
  const FrameworkParameters& foundry = framework_parameters(Framework::llm_foundry);
  CHECK(framework_cross_entropy(foundry, ElementwiseKernels::eager) == fused);
  CHECK(framework_cross_entropy(foundry, ElementwiseKernels::fused) == fused);
  const FrameworkParameters& torchtitan = framework_parameters(Framework::torchtitan);
  CHECK(framework_cross_entropy(torchtitan, ElementwiseKernels::eager) == eager);
  CHECK(framework_cross_entropy(torchtitan, ElementwiseKernels::fused) == fused);  // torch.compile on
  // NeMo Automodel's MaskedCrossEntropy runs outside the compiled model.
  const FrameworkParameters& automodel = framework_parameters(Framework::nemo_automodel);
  CHECK(framework_cross_entropy(automodel, ElementwiseKernels::fused) == eager);
}

}  // namespace
}  // namespace clustersim::models
