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

TEST_CASE("overlap cost: traffic spreads over the pass's whole duration, not over its kernels alone") {
  // 1 s of kernels in a pass of 2 s on the compute stream (the host issues its kernels slower than
  // they run): 0.5 s of traffic overlaps a quarter of the kernels, and traffic of the pass's length
  // all of them; a duration below the kernels' time counts as theirs.
  const GpuSpec gpu = test::h100();
  const double fc = 24.0 / 132.0, fm = 3.0 * 100e9 / gpu.hbm_bytes_per_s;
  const double whole = 0.8 * fc / (1.0 - fc) + 0.2 * fm / (1.0 - fm);
  const PassCompute stretched{.compute_bound_s = 0.8, .memory_bound_s = 0.2, .gemm_s = 0.7, .duration_s = 2.0};
  const BesideTraffic half_second{.seconds = 0.5, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(stretched, std::span(&half_second, 1), gpu, nccl_like()) ==
        doctest::Approx(0.25 * whole).epsilon(1e-12));
  const BesideTraffic two_seconds{.seconds = 2.0, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(stretched, std::span(&two_seconds, 1), gpu, nccl_like()) ==
        doctest::Approx(whole).epsilon(1e-12));
  const PassCompute short_duration{.compute_bound_s = 0.8, .memory_bound_s = 0.2, .gemm_s = 0.7, .duration_s = 0.1};
  CHECK(interference_s(short_duration, std::span(&half_second, 1), gpu, nccl_like()) ==
        doctest::Approx(0.5 * whole).epsilon(1e-12));
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

TEST_CASE("overlap cost: ZeRO-1's gradient buckets slow the last backward they run beside, by the SMs they hold") {
  // The built-in default layout (Llama 3 70B on 256 H100, TP 8 x PP 4 x DP 8, ZeRO-1): each
  // chunk's last backward releases 20 per-layer buckets, the reductions of all but the last run
  // under the layers still to go. With the HBM share off, what they cost that backward is
  // phi x compute-bound seconds x s / (1 - s), s the share of the SMs the collective holds: NCCL's
  // 24 of 132, or 8 on a communicator held to 8 CTAs (NVIDIA's MLPerf configurations), whose
  // reductions keep their time; the ratio is the SM shares'. The other micro-batches' backwards
  // run beside no reduction and pay nothing.
  StepInputs in = test::llama70b_on_256();
  in.compute.overlap.sms_held.value = 24.0;
  in.compute.overlap.hbm_bytes_per_bus_byte.value = 0.0;
  const ChunkCosts free_ctas = plan_step(in).stages[1].chunks.front();
  REQUIRE(free_ctas.grad_buckets == 20);
  REQUIRE(free_ctas.grad_bucket_interference_s > 0.0);
  in.parallelism.dp_max_ctas = 8;
  const ChunkCosts eight = plan_step(in).stages[1].chunks.front();
  CHECK(eight.grad_reduce_s == free_ctas.grad_reduce_s);
  CHECK(eight.backward_s == free_ctas.backward_s);  // every other backward: nothing of the DP group beside it
  const auto share = [](double sms) { return sms / 132.0 / (1.0 - sms / 132.0); };
  CHECK(eight.grad_bucket_interference_s / free_ctas.grad_bucket_interference_s ==
        doctest::Approx(share(8.0) / share(24.0)).epsilon(1e-9));
  // Reduced after the backward, or with ZeRO-3's own per-unit traffic, nothing is beside it.
  StepInputs zero3 = in;
  zero3.parallelism.zero = 3;
  CHECK(plan_step(zero3).stages[1].chunks.front().grad_bucket_interference_s == 0.0);
  in.training.overlap_grad_reduce = false;
  CHECK(plan_step(in).stages[1].chunks.front().grad_bucket_interference_s == 0.0);
}

TEST_CASE("overlap cost: a context-parallel communicator held to one CTA takes one SM from the attention beside it") {
  // Llama 3 8B, CP 8 on one node of 8 H100 and nothing else in parallel: the only communication
  // beside the compute is the CP ring. With the HBM share off, what it costs a pass is
  // min(1, cp / pass) x compute x s / (1 - s), s the share of SMs it holds: NCCL's 24 with its own
  // choice of CTAs, 1 with max_ctas 1, whose ring takes longer (nccl_channel.hpp).
  StepInputs in;
  in.model = test::llama3_8b();
  in.parallelism = {.tp = 1, .pp = 1, .dp = 1, .cp = 8, .vp = 1, .zero = 1};
  in.training = {.seq_len = 65536, .micro_batch = 1, .global_batch = 1};
  in.cluster = {.gpu = test::h100(), .num_gpus = 8, .gpus_per_node = 8, .nic_bytes_per_s = 50e9, .nics_per_node = 8};
  in.compute = default_compute_profile("h100-sxm");
  in.compute.overlap.sms_held.value = 24.0;
  in.compute.overlap.hbm_bytes_per_bus_byte.value = 0.0;
  in.comm = default_comm_profile(in.cluster);
  const ChunkCosts free_ctas = plan_step(in).stages[0].chunks.front();
  in.parallelism.cp_max_ctas = 1;
  const ChunkCosts one_cta = plan_step(in).stages[0].chunks.front();
  REQUIRE(free_ctas.interference_forward_s > 0.0);
  REQUIRE(one_cta.cp_forward_s > free_ctas.cp_forward_s);
  const auto share = [](double sms) { return sms / 132.0 / (1.0 - sms / 132.0); };
  // Both rings are shorter than the pass, so the ratio is the rings' times the SM shares'.
  CHECK(one_cta.interference_forward_s / free_ctas.interference_forward_s ==
        doctest::Approx((one_cta.cp_forward_s / free_ctas.cp_forward_s) * share(1.0) / share(24.0)).epsilon(1e-9));
  CHECK(one_cta.interference_forward_s < free_ctas.interference_forward_s);
}
