// The op-by-op compute of one micro-batch (`run --ops`): the GEMM shapes and FLOPs derived by hand
// from the layout, each op timed by its roofline, and every part of the model listed once.

#include <doctest/doctest.h>

#include <algorithm>
#include <string_view>

#include "models/step/op_breakdown.hpp"
#include "tests/models/step/step_fixtures.hpp"

namespace clustersim::models {
namespace {

const TimedOp& find(const std::vector<TimedOp>& ops, OpPart part, std::string_view name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const TimedOp& t) { return t.part == part && t.op.name == name; });
  REQUIRE_MESSAGE(it != ops.end(), "no op " << name << " in " << op_part_name(part));
  return *it;
}

bool has_part(const std::vector<TimedOp>& ops, OpPart part) {
  return std::any_of(ops.begin(), ops.end(), [&](const TimedOp& t) { return t.part == part; });
}

}  // namespace

TEST_CASE("op breakdown: Llama 3 70B at TP 8 with SP, its GEMMs and attention as derived by hand") {
  const StepInputs in = test::llama70b_on_256();
  const std::vector<TimedOp> ops = op_breakdown(in);
  // s = 4096 tokens of one sequence; sequence parallelism gathers them before the column-parallel
  // GEMMs. The fused QKV projection: h -> (64 + 2 x 8) heads of 128, split over 8 ranks.
  const TimedOp& qkv = find(ops, OpPart::layer_forward, "qkv_proj");
  CHECK(qkv.op.gemm_m == 4096);
  CHECK(qkv.op.gemm_n == (8192 + 2 * 8 * 128) / 8);
  CHECK(qkv.op.gemm_k == 8192);
  CHECK(qkv.op.flops == doctest::Approx(2.0 * 4096 * 1280 * 8192));
  // Its time is at least the FLOPs at the dense bf16 peak.
  CHECK(qkv.seconds >= qkv.op.flops / tensor_peak_flops_per_s(in.cluster.gpu, Precision::bf16));
  // Causal attention: Q K^T and P V over 8 of the 64 heads, 2 FLOPs a multiply-add, half the score
  // matrix computed; the backward 2.5 times that (Dao 2023, section 4.1).
  const TimedOp& attention = find(ops, OpPart::layer_forward, "attention");
  CHECK(attention.op.flops == doctest::Approx(0.5 * 4.0 * 4096.0 * 4096.0 * 8192.0 / 8.0));
  CHECK(find(ops, OpPart::layer_backward, "attention_bwd").op.flops == doctest::Approx(2.5 * attention.op.flops));
  // The logits: every token against the rank's 128256 / 8 vocabulary rows.
  const TimedOp& logits = find(ops, OpPart::output_forward, "logits");
  CHECK(logits.op.flops == doctest::Approx(2.0 * 4096 * (128256 / 8) * 8192));
}

TEST_CASE("op breakdown: a memory-bound op takes its HBM bytes at the profile's rate plus its launches") {
  const StepInputs in = test::llama70b_on_256();
  for (const TimedOp& t : op_breakdown(in)) {
    if (t.op.kind != OpKind::elementwise) continue;
    CAPTURE(t.op.name);
    const double hbm = in.cluster.gpu.hbm_bytes_per_s * in.compute.hbm_efficiency.value;
    CHECK(t.seconds == doctest::Approx(t.op.bytes / hbm + t.op.kernels * in.compute.launch_overhead_s.value));
  }
}

TEST_CASE("op breakdown: each part of the model once, in the order a step runs them") {
  const std::vector<TimedOp> dense = op_breakdown(test::llama70b_on_256());
  CHECK(dense.front().part == OpPart::embedding_forward);
  CHECK(dense.back().part == OpPart::embedding_backward);
  CHECK(has_part(dense, OpPart::layer_forward));
  CHECK(has_part(dense, OpPart::layer_backward));
  CHECK(has_part(dense, OpPart::output_backward));
  CHECK_FALSE(has_part(dense, OpPart::moe_layer_forward));
  // Every layer of Mixtral is a mixture of experts: no dense layer's ops.
  StepInputs moe = test::llama70b_on_256();
  moe.model = test::mixtral_8x7b();
  const std::vector<TimedOp> experts = op_breakdown(moe);
  CHECK(has_part(experts, OpPart::moe_layer_forward));
  CHECK(has_part(experts, OpPart::moe_layer_backward));
  CHECK_FALSE(has_part(experts, OpPart::layer_forward));
}

}  // namespace clustersim::models
