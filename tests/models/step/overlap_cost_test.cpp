#include "models/step/overlap_cost.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

// An H100 (132 SMs, 3.35 TB/s) beside a collective holding 24 SMs at 100 GB/s of bus bandwidth,
// 3 HBM bytes per bus byte: compute-bound work loses 24/132, memory-bound 0.3/3.35.
ComputeProfile nccl_like() {
  ComputeProfile p = default_compute_profile("h100-sxm");
  REQUIRE(p.sm_count.value == 132);
  p.overlap.sms_held.value = 24.0;
  p.overlap.hbm_bytes_per_bus_byte.value = 3.0;
  return p;
}

}  // namespace

TEST_CASE("overlap cost: a collective under part of a pass slows that part of its compute") {
  const GpuSpec gpu = test::h100();
  const PassCompute pass{.compute_bound_s = 0.8, .memory_bound_s = 0.2, .gemm_s = 0.7};
  const double fc = 24.0 / 132.0, fm = 3.0 * 100e9 / gpu.hbm_bytes_per_s;
  // Half the pass overlapped: half of each kind of work runs at the reduced rate.
  const BesideTraffic half{.seconds = 0.5, .bus_bytes_per_s = 100e9};
  const double expected = 0.5 * (0.8 * fc / (1.0 - fc) + 0.2 * fm / (1.0 - fm));
  CHECK(interference_s(pass, std::span(&half, 1), gpu, nccl_like()) == doctest::Approx(expected).epsilon(1e-12));
  // Longer than the pass: the whole pass, no more.
  const BesideTraffic whole{.seconds = 5.0, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(pass, std::span(&whole, 1), gpu, nccl_like()) ==
        doctest::Approx(2.0 * expected).epsilon(1e-12));
  // Under the GEMMs only (tensor-parallel overlap), with its own SMs: 0.35 s of 0.7 s of GEMMs.
  const BesideTraffic tp{.seconds = 0.35, .sms_held = 8.5, .under_gemms_only = true};
  const double f = 8.5 / 132.0;
  CHECK(interference_s(pass, std::span(&tp, 1), gpu, nccl_like()) ==
        doctest::Approx(0.5 * 0.7 * f / (1.0 - f)).epsilon(1e-12));
  // Nothing beside, nothing lost.
  CHECK(interference_s(pass, {}, gpu, nccl_like()) == 0.0);
}

TEST_CASE("overlap cost: FSDP's overlapped gathers lengthen the passes they hide under") {
  const StepInputs in = test::fsdp_llama3_8b_on_64_h100();
  const StepPlan costed = plan_step(in);
  StepInputs free = in;
  free.compute.overlap.sms_held.value = 0.0;
  free.compute.overlap.hbm_bytes_per_bus_byte.value = 0.0;
  const StepPlan plain = plan_step(free);
  const ChunkCosts& c = costed.stages[0].chunks.front();
  const ChunkCosts& p = plain.stages[0].chunks.front();
  CHECK(p.interference_forward_s == 0.0);
  CHECK(c.interference_forward_s > 0.0);
  CHECK(c.forward_s == doctest::Approx(p.forward_s + c.interference_forward_s).epsilon(1e-12));
  CHECK(c.backward_s == doctest::Approx(p.backward_s + c.interference_backward_s).epsilon(1e-12));
  // At most the SM share of the whole pass (the gathers are shorter than it) plus its HBM share.
  CHECK(c.interference_forward_s < p.forward_s * 0.25);
}
