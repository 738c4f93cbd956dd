#include "models/compute/overlap_interference.hpp"

#include <doctest/doctest.h>

#include "models/compute/compute_profile.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

using test::a100;
using test::h100;

TEST_CASE("overlap: an NCCL kernel costs compute-bound work its SMs, memory-bound work its HBM bytes") {
  const OverlapInterference h = default_overlap_interference("h100-sxm");
  // 24 CTAs of 132 SMs; 300 GB/s of busbw at 3 HBM bytes per bus byte against 3.35 TB/s.
  const InterferenceShare s = overlap_slowdown(h100(), 132, h, CommEngine::sm_kernel, 300e9);
  CHECK(s.sms_taken == 24.0);
  CHECK(s.compute_bound == doctest::Approx(24.0 / 132.0));
  CHECK(s.memory_bound == doctest::Approx(3.0 * 300e9 / 3.35e12));  // 0.2687
  // A copy-engine transfer holds no SM; a device-to-device copy of 1 TB/s reads and writes it.
  const InterferenceShare c = overlap_slowdown(h100(), 132, h, CommEngine::copy_engine, 1e12);
  CHECK(c.sms_taken == 0.0);
  CHECK(c.compute_bound == 0.0);
  CHECK(c.memory_bound == doctest::Approx(2.0 * 1e12 / 3.35e12));
  // HBM cannot lose more than all of it; no transfer, no loss.
  CHECK(overlap_slowdown(h100(), 132, h, CommEngine::copy_engine, 10e12).memory_bound == 1.0);
  CHECK(overlap_slowdown(h100(), 132, h, CommEngine::sm_kernel, 0.0).memory_bound == 0.0);
  // The same 24 CTAs are a larger share of A100's 108 SMs.
  CHECK(overlap_slowdown(a100(), 108, default_overlap_interference("a100-80gb"), CommEngine::sm_kernel, 0.0).compute_bound ==
        doctest::Approx(24.0 / 108.0));
}

TEST_CASE("overlap: every GPU preset has sourced constants, other GPUs none") {
  for (const char* gpu : {"a100-80gb", "h100-sxm", "h200-sxm", "b200", "gb200", "gb300"}) {
    CAPTURE(gpu);
    const OverlapInterference o = default_compute_profile(gpu).overlap;
    CHECK(o.sms_held.value >= 16.0);  // NCCL's smallest default, NVLS on Hopper
    CHECK(o.sms_held.value <= 32.0);
    CHECK(o.hbm_bytes_per_bus_byte.value == 3.0);
    CHECK(o.copy_hbm_bytes_per_byte.value == 2.0);
    CHECK_FALSE(o.sms_held.source.empty());
    CHECK_FALSE(o.hbm_bytes_per_bus_byte.source.empty());
  }
  const OverlapInterference none = default_overlap_interference("mi300x");
  CHECK(none.sms_held.value == 0.0);
  CHECK(none.sms_held.source.find("not modelled") != std::string::npos);
  CHECK(overlap_slowdown(h100(), 132, none, CommEngine::sm_kernel, 300e9).compute_bound == 0.0);
}

TEST_CASE("overlap: a GEMM of one full wave needs more when the collective holds SMs") {
  const ComputeProfile p = default_compute_profile("h100-sxm");  // 128 x 256 tiles, 132 SMs
  // 12 x 11 = 132 tiles: one wave alone; on 108 SMs the best of the model's tiles is 128 x 128:
  // 12 x 22 = 264 tiles in 3 waves of 108 (324 slots), where 128 x 256 would take 2 waves (216).
  const int m = 128 * 12, n = 256 * 11, k = 8192;
  const double alone = gemm_efficiency(p, Precision::bf16, m, n, k);
  CHECK(overlapped_gemm_efficiency(p, 0.0, Precision::bf16, m, n, k) == alone);
  const double overlapped = overlapped_gemm_efficiency(p, 24.0, Precision::bf16, m, n, k);
  // tile_fill 264 / 324 on 108 / 132 of the SMs: exactly two thirds of the throughput.
  CHECK(overlapped == doctest::Approx(alone * (264.0 / 324.0) * (108.0 / 132.0)));
  CHECK(alone / overlapped == doctest::Approx(1.5));
  // A GEMM of many waves loses about the SM share only: 8192 x 16384, whose best tile here is
  // 128 x 128 (8192 tiles), runs 63 waves on 132 SMs and 76 on 108, keeping 63 / 76 of its
  // throughput: it loses 13 / 76 = 0.171, the SM share 24 / 132 = 0.182 less the waves' rounding.
  const double big_alone = gemm_efficiency(p, Precision::bf16, 128 * 64, 256 * 64, k);
  const double big = overlapped_gemm_efficiency(p, 24.0, Precision::bf16, 128 * 64, 256 * 64, k);
  CHECK(1.0 - big / big_alone == doctest::Approx(13.0 / 76.0).scale(0.0));
  CHECK(1.0 - big / big_alone == doctest::Approx(24.0 / 132.0).epsilon(0.07).scale(0.0));
  CHECK(overlapped_gemm_efficiency(p, 132.0, Precision::bf16, m, n, k) == 0.0);
}

// Published measurements of GEMM slowdown under a concurrent NCCL collective, against the model.
TEST_CASE("overlap: the model against published GEMM slowdowns under NCCL") {
  const ComputeProfile h = default_compute_profile("h100-sxm");
  const ComputeProfile a = default_compute_profile("a100-80gb");
  const auto slowdown = [](double lost) { return 1.0 / (1.0 - lost) - 1.0; };  // extra time of the compute

  // Lee et al., "Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep
  // Learning: Performance and Power Implications" (arXiv:2507.03114, 2025), abstract: overlapped
  // compute is 18.9 % slower on average, 40.0 % at most, than alone (GPT and Llama on 4 A100, H100,
  // MI250, MI210). The SM share alone gives H100 22.2 %, A100 28.6 %. Tolerance: the H100 figure
  // within 25 % of the published mean (an average over models, GPUs and kernels, not one GEMM);
  // both under the published maximum.
  const double h100_share = overlap_slowdown(h100(), 132, h.overlap, CommEngine::sm_kernel, 0.0).compute_bound;
  const double a100_share = overlap_slowdown(a100(), 108, a.overlap, CommEngine::sm_kernel, 0.0).compute_bound;
  CHECK(slowdown(h100_share) == doctest::Approx(0.222).epsilon(0.01));
  CHECK(slowdown(a100_share) == doctest::Approx(0.286).epsilon(0.01));
  CHECK(slowdown(h100_share) == doctest::Approx(0.189).epsilon(0.25));
  CHECK(slowdown(h100_share) < 0.40);
  CHECK(slowdown(a100_share) < 0.40);

  // NVIDIA developer forum, "Compute-Communication Overlap Causes Severe GEMM Performance Degradation
  // because of Tail Effect" (2025): on H100 SXM a GEMM of exactly 132 CTAs runs at ~80 % MFU alone
  // and ~47 % beside a 24-CTA ncclAllGather, 1.70x the time ("nearly doubles"). The wave model on
  // the SMs left gives 2.0x; the share alone 1.22x. Tolerance 20 % on the time ratio for the wave
  // model; the share model misses this case (it is the tail, not the share).
  const int m = 128 * 12, n = 256 * 11, k = 8192;
  const double wave_ratio = gemm_efficiency(h, Precision::bf16, m, n, k) /
                            overlapped_gemm_efficiency(h, h.overlap.sms_held.value, Precision::bf16, m, n, k);
  const double published_ratio = 80.0 / 47.0;
  CHECK(wave_ratio == doctest::Approx(published_ratio).epsilon(0.20));
  CHECK(1.0 / (1.0 - h100_share) < published_ratio * 0.8);
}

}  // namespace
}  // namespace clustersim::models
