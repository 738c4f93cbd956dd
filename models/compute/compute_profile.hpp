#pragma once
/// How fast one GPU runs the kernels of a training step, as fractions of its datasheet peaks.
/// GEMM efficiency = e_max(precision) x tile_fill(m, n) x k_fill(k):
/// - e_max: the fraction of dense peak large GEMMs reach at the clock they were measured at,
///   fitted (calibration/make_profiles) to cuBLASLt GEMMs of at least one wave of output tiles, or
///   for Blackwell, where nothing else is measured, the best of a shape sweep (MAMF), an upper bound;
/// - tile_fill: useful output over the output tiles the SMs process, wave by wave: a GEMM of
///   ceil(m/tile_m) x ceil(n/tile_n) output tiles runs in ceil(tiles/SMs) waves of SMs tiles each,
///   which charges both partial tiles at the edges and a last, partly idle wave. cuBLASLt's
///   heuristic chooses the CTA tile per shape; the model offers the profile's tile, its transpose
///   and its half-width tile (on Hopper 128 x 256, 256 x 128 and 128 x 128) and takes the one that
///   wastes least. On the H200 measurement (calibration/measured/h200-2026-11-30, 47 bf16 GEMMs)
///   the choice lowers the fit's rms error from 14 % to 9 %: narrow GEMMs such as Llama 3 70B's
///   N = 1280 QKV projection run in smaller tiles, as the library does;
/// - k_fill = k / (k + k_half x r): the fixed prologue and epilogue of each tile against its main
///   loop. k_half is the bf16 figure; r (gemm_k_rate_ratio) is how many times faster the precision's
///   tensor cores step through k, 2 for fp8: a tile's fixed time is the same (its prologue loads
///   k-blocks of the same bytes, 128 fp8 or 64 bf16 elements; its epilogue writes the same bf16 C
///   tile), so it costs twice the fp8 elements of k. On the H200 measurement with the Azure fp8
///   rows (100 GEMMs) the rule lowers the fit's rms error from 8.6 % to 8.1 % with no parameter
///   added (a free second k_half would fit about 3 times bf16's and lower it little further);
/// Attention kernels run at their kernel's fraction of bf16 peak: the rate that each further FLOP
/// of a call costs in the measurements (calibration fits time = W / rate + t0 over calls of
/// several sizes; t0, the time a synchronised benchmark call spends outside the kernel on host
/// dispatch and autograd, is not charged here: a training step issues its kernels ahead of the
/// GPU, host_launch.hpp). Memory-bound ops run at a fixed fraction of HBM bandwidth; each kernel
/// pays a fixed launch overhead.
/// Units: fractions, SM counts, elements, seconds.
/// The clock: the GEMM and attention measurements ran for seconds at most, at the clock the GPU
/// held then (the H200 run read 1875 MHz at 652 W of its 700 W limit); a training run sits at the
/// power limit for hours, where Hopper holds about 1575 MHz. sustained_clock_ratio, the second
/// clock over the first, scales all tensor-core work (gemm_efficiency and attention). It is one
/// published reading (DeepGEMM issue #120), not a clock logged during a training run.
/// attention_clock_factor tells attention's held clock apart from the GEMMs': 1 (the same) until a
/// clock_under_load.py reading of both on the GPU says otherwise.
/// Limitations: three tiles (real libraries choose among more, and use split-K or stream-K for
/// small m x n with large k, so small-output GEMMs are pessimistic here); the layout (TN, NN, NT)
/// is not modelled (measured forward GEMMs run up to 15 % faster than their dgrad and wgrad);
/// attention runs at one rate per kernel whatever the size of the call (the measurement cannot
/// tell a short call's GPU tail from the benchmark's host time, so neither is charged), and only
/// at head dim 128.
/// Source: shared reference measurements.md section 2 (each constant's source string says which row).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "models/compute/overlap_interference.hpp"
#include "models/compute/sourced.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

/// cuDNN's FP8 fused attention (per-tensor scaling) against its bf16 kernel on the same call, one
/// cuDNN version and board: the FP8 call's time over the bf16 call's, forward and backward, by the
/// call's sequence length (causal, head dim 128, as cuDNN frontend's SDPA training benchmark runs
/// Llama 3.1's attention). The bf16 rate of the profile times this ratio is the FP8 rate.
struct Fp8AttentionTimes {
  struct Point {
    double seq = 0.0;       // query and key length of the call
    double forward = 0.0;   // FP8 time / bf16 time
    double backward = 0.0;
  };
  std::array<Point, 5> points{};
  int count = 0;  // 0: not measured
  std::string source;
};

struct ComputeProfile {
  std::string gpu;  // the GpuSpec name this profile belongs to
  Sourced<double> gemm_max_efficiency_bf16;
  Sourced<double> gemm_max_efficiency_fp8;  // 0 where the GPU has no fp8 tensor cores
  Sourced<int> sm_count;
  Sourced<int> tile_m;
  Sourced<int> tile_n;
  Sourced<double> k_half;  // bf16 reduction length at which k_fill is 1/2 (gemm_k_half for others)
  // SM clock held through hours of training at the power limit over the clock of the GEMM and
  // attention measurements the efficiencies were fitted to; scales tensor-core work only.
  Sourced<double> sustained_clock_ratio;
  // SM clock fused attention kernels hold under the same sustained load, as a multiple of the
  // GEMMs' (sustained_clock_ratio): above 1 where attention, keeping the tensor cores less busy,
  // draws less power at the limit and throttles less. Scales the fused attention rates only.
  Sourced<double> attention_clock_factor;
  // Fused attention, by kernel: the rate its calls add per executed (causal-halved) FLOP, as a
  // fraction of bf16 dense peak. FlashAttention-2 as the flash-attn package builds it
  // (attention_efficiency), PyTorch's build of it behind scaled_dot_product_attention, and cuDNN
  // fused attention (Transformer Engine's kernel on Hopper and later).
  Sourced<double> attention_efficiency;
  Sourced<double> attention_cudnn_efficiency;
  Sourced<double> attention_flash3_efficiency;  // FlashAttention-3 (Hopper only)
  Sourced<double> attention_sdpa_flash_efficiency;
  // What dropout adds to a fused attention call (forward + backward): the kernel draws a random
  // number per score on the SM's ALUs, whose throughput does not follow the kernel's tensor rate,
  // so the time it adds is a fixed amount per executed FLOP, given here in units of the FLOP's
  // time at the bf16 tensor peak: a call at efficiency e (attention_efficiency and its kin) takes
  // 1 + share x e times its time without dropout (attention_dropout_factor). Applies to models that
  // train with dropout.
  Sourced<double> attention_dropout_share;
  Sourced<double> hbm_efficiency;        // of the datasheet HBM bandwidth
  Sourced<double> launch_overhead_s;     // per kernel
  OverlapInterference overlap;  // what a communication kernel running beside compute takes from it
  // NVFP4 GEMMs (block-scaled E2M1, Blackwell), of the GPU's dense FP4 peak; 0 where it has none.
  Sourced<double> gemm_max_efficiency_fp4{0.0, "no FP4 tensor cores"};
  Fp8AttentionTimes fp8_attention{};  // cuDNN's FP8 attention against its bf16 kernel; empty if unmeasured
};

/// The FP8 attention call's time over the bf16 call's at `seq` keys, interpolated linearly in
/// log2(seq) between the measured lengths and held at the end points beyond them.
double fp8_attention_time_ratio(const ComputeProfile& profile, double seq, bool backward);

/// Bundled profiles: "a100-80gb", "h100-sxm", "h200-sxm", "b200", "gb200", "b300", "gb300". Throws on
/// other names.
ComputeProfile default_compute_profile(std::string_view gpu);

/// Useful output over the output tiles processed, wave by wave, for the best of the tile, its
/// transpose and its half-width tile on `sm_count` SMs. 1 for an empty shape.
double gemm_tile_fill(int tile_m, int tile_n, int sm_count, std::int64_t m, std::int64_t n);
/// The same for a grouped GEMM of `groups` problems of m x n each (CUTLASS's grouped GEMM and
/// Transformer Engine's GroupedLinear schedule every problem's tiles over the SMs together): each
/// problem's edge tiles are padded, the waves are counted over all of them.
double grouped_gemm_tile_fill(int tile_m, int tile_n, int sm_count, std::int64_t groups, std::int64_t m,
                              std::int64_t n);

/// How many times faster than bf16 the tensor cores of `precision` step through the reduction
/// dimension: the dense peak ratio, 2 for fp8 on Hopper and Blackwell (1,979 / 989 and 4,500 /
/// 2,250 TF/s, shared reference measurements.md 4), 4 for nvfp4 (the B200's and GB200's 9,000 /
/// 2,250 and 10,000 / 2,500; Blackwell Ultra's 15,000 / 2,500 is 6, taken as 4), 1 for bf16.
double gemm_k_rate_ratio(Precision precision);
/// The reduction length at which k_fill is 1/2 for `precision`: profile.k_half x gemm_k_rate_ratio.
double gemm_k_half(const ComputeProfile& profile, Precision precision);

/// Fraction of the dense peak of `precision` that a GEMM C[m x n] = A[m x k] B[k x n] sustains.
/// Includes the profile's sustained_clock_ratio.
double gemm_efficiency(const ComputeProfile& profile, Precision precision, int m, int n, int k);
/// The same for `groups` problems of that shape run as one grouped GEMM.
double grouped_gemm_efficiency(const ComputeProfile& profile, Precision precision, int groups, int m, int n, int k);

/// Fraction of bf16 peak a fused attention kernel (cudnn, flash2, sdpa_flash or flash3) reaches at
/// the clock of its measurement: attention_efficiency, attention_cudnn_efficiency, ...
double attention_kernel_efficiency(const ComputeProfile& profile, AttentionKernel kernel);
/// The same under sustained load: attention_kernel_efficiency x sustained_clock_ratio x
/// attention_clock_factor.
double attention_sustained_efficiency(const ComputeProfile& profile, AttentionKernel kernel);
/// A call of `kernel` with dropout over the same call without, in time: 1 + attention_dropout_share
/// x attention_kernel_efficiency (the random numbers run at the same clock as the kernel, so the
/// ratio is the measurement's at any clock).
double attention_dropout_factor(const ComputeProfile& profile, AttentionKernel kernel);

}  // namespace clustersim::models
