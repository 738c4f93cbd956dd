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

TEST_CASE("overlap cost: a collective beside a pass costs it the work its window takes") {
  // A pass of 0.8 s compute-bound and 0.2 s memory-bound kernels, back to back: each second of the
  // collective costs l = 0.8 fc + 0.2 fm seconds of work.
  const GpuSpec gpu = test::h100();
  const PassCompute pass{.compute_bound_s = 0.8, .memory_bound_s = 0.2, .gemm_s = 0.7};
  const double fc = 24.0 / 132.0, fm = 3.0 * 100e9 / gpu.hbm_bytes_per_s;
  const double l = 0.8 * fc + 0.2 * fm;
  // Half a second of it: half a second's loss.
  const BesideTraffic half{.seconds = 0.5, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(pass, std::span(&half, 1), gpu, nccl_like()) == doctest::Approx(0.5 * l).epsilon(1e-12));
  // Longer than the pass, however much: the pass stretches until its work is done, each second of
  // the stretch losing l as well, 1 s x l / (1 - l).
  const BesideTraffic whole{.seconds = 5.0, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(pass, std::span(&whole, 1), gpu, nccl_like()) ==
        doctest::Approx(l / (1.0 - l)).epsilon(1e-12));
  // The two meet where the collective ends with the stretched pass, T = 1 s / (1 - l).
  const BesideTraffic just_below{.seconds = 1.0 / (1.0 - l) - 1e-9, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(pass, std::span(&just_below, 1), gpu, nccl_like()) ==
        doctest::Approx(l / (1.0 - l)).epsilon(1e-8));
  // Under the GEMMs only (tensor-parallel overlap), with its own SMs: 0.35 s beside 0.7 s of GEMMs.
  const BesideTraffic tp{.seconds = 0.35, .sms_held = 8.5, .under_gemms_only = true};
  CHECK(interference_s(pass, std::span(&tp, 1), gpu, nccl_like()) ==
        doctest::Approx(0.35 * 8.5 / 132.0).epsilon(1e-12));
  // Nothing beside, nothing lost.
  CHECK(interference_s(pass, {}, gpu, nccl_like()) == 0.0);
}

TEST_CASE("overlap cost: the same bytes sooner cost no more") {
  // 20 GB of bus traffic holding no SMs beside a pass of memory-bound kernels, at 50 to 400 GB/s:
  // the HBM it takes follows its bytes, 20 GB x 3 / HBM bandwidth of the kernels' time whatever
  // the rate (costing the overlapped kernels at fm / (1 - fm) grew by half over that range).
  const GpuSpec gpu = test::h100();
  const PassCompute pass{.compute_bound_s = 0.0, .memory_bound_s = 1.0};
  const double expected = 20e9 * 3.0 / gpu.hbm_bytes_per_s;
  for (const double rate : {50e9, 100e9, 200e9, 400e9}) {
    const BesideTraffic t{.seconds = 20e9 / rate, .bus_bytes_per_s = rate, .sms_held = 0.0};
    CAPTURE(rate);
    CHECK(interference_s(pass, std::span(&t, 1), gpu, nccl_like()) == doctest::Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("overlap cost: traffic spreads over the pass's whole duration, not over its kernels alone") {
  // The same 1 s of kernels in a pass of 2 s on the compute stream (the host issues its kernels
  // slower than they run): a second of traffic meets half as much work, l = (0.8 fc + 0.2 fm) / 2;
  // a duration below the kernels' time counts as theirs.
  const GpuSpec gpu = test::h100();
  const double fc = 24.0 / 132.0, fm = 3.0 * 100e9 / gpu.hbm_bytes_per_s;
  const double l = (0.8 * fc + 0.2 * fm) / 2.0;
  const PassCompute stretched{.compute_bound_s = 0.8, .memory_bound_s = 0.2, .gemm_s = 0.7, .duration_s = 2.0};
  const BesideTraffic half_second{.seconds = 0.5, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(stretched, std::span(&half_second, 1), gpu, nccl_like()) ==
        doctest::Approx(0.5 * l).epsilon(1e-12));
  const BesideTraffic two_seconds{.seconds = 2.0, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(stretched, std::span(&two_seconds, 1), gpu, nccl_like()) ==
        doctest::Approx(2.0 * l).epsilon(1e-12));
  const BesideTraffic ten_seconds{.seconds = 10.0, .bus_bytes_per_s = 100e9};
  CHECK(interference_s(stretched, std::span(&ten_seconds, 1), gpu, nccl_like()) ==
        doctest::Approx(2.0 * l / (1.0 - l)).epsilon(1e-12));
  const PassCompute short_duration{.compute_bound_s = 0.8, .memory_bound_s = 0.2, .gemm_s = 0.7, .duration_s = 0.1};
  CHECK(interference_s(short_duration, std::span(&half_second, 1), gpu, nccl_like()) ==
        doctest::Approx(0.5 * 2.0 * l).epsilon(1e-12));
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
  // under the layers still to go. They outlast that backward, which therefore stretches: with the
  // HBM share off, the share of the stretched pass they take, X / (D + X), is l = s x Cg / D, s the
  // share of the SMs the collective holds: NCCL's 24 of 132, or 8 on a communicator held to 8 CTAs
  // (NVIDIA's MLPerf configurations), whose reductions keep their time; the ratio of the two is the
  // SM shares', 8 / 24. The other micro-batches' backwards run beside no reduction and pay nothing.
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
  const double pass_s = free_ctas.backward_s - free_ctas.interference_backward_s;  // D, before any cost
  const auto taken = [&](double extra_s) { return extra_s / (pass_s + extra_s); };
  CHECK(taken(eight.grad_bucket_interference_s) / taken(free_ctas.grad_bucket_interference_s) ==
        doctest::Approx(8.0 / 24.0).epsilon(1e-9));
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
  // cp seconds x s x compute / pass, s the share of SMs it holds: NCCL's 24 with its own choice of
  // CTAs, 1 with max_ctas 1, whose ring takes longer (nccl_channel.hpp).
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
  // Both rings end within the pass, so the ratio is the rings' times the SM shares'.
  CHECK(one_cta.interference_forward_s / free_ctas.interference_forward_s ==
        doctest::Approx((one_cta.cp_forward_s / free_ctas.cp_forward_s) * 1.0 / 24.0).epsilon(1e-9));
  CHECK(one_cta.interference_forward_s < free_ctas.interference_forward_s);
}
