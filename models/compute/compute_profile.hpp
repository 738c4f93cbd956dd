#pragma once
/// How fast one GPU runs the kernels of a training step, as fractions of its datasheet peaks.
/// GEMM efficiency = e_max(precision) x tile_fill(m, n) x k_fill(k):
/// - e_max: the sustained fraction of dense peak of large GEMMs: fitted to measured cuBLASLt GEMMs
///   of 4096^3 and up where the by-shape table has the GPU and precision, else the best of a shape
///   sweep (MAMF), an upper bound;
/// - tile_fill: useful output over the output tiles the SMs process, wave by wave: a GEMM of
///   ceil(m/tile_m) x ceil(n/tile_n) output tiles runs in ceil(tiles/SMs) waves of SMs tiles each,
///   which charges both partial tiles at the edges and a last, partly idle wave;
/// - k_fill = k / (k + k_half): the fixed prologue and epilogue of each tile against its main loop.
/// Attention kernels run at a fixed fraction of bf16 peak, memory-bound ops at a fixed fraction of
/// HBM bandwidth, and each kernel pays a fixed launch overhead.
/// Units: fractions, SM counts, elements, seconds.
/// Limitations: one tile shape per GPU (real libraries choose among many, and use split-K or
/// stream-K for small m x n with large k, so small-output GEMMs are pessimistic here); no clock or
/// power throttling; attention is FlashAttention-2 (FA3 and cuDNN kernels on Hopper are faster).
/// Source: shared reference measurements.md section 2 (each constant's source string says which row).

#include <string>
#include <string_view>

#include "models/compute/overlap_interference.hpp"
#include "models/compute/sourced.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

struct ComputeProfile {
  std::string gpu;  // the GpuSpec name this profile belongs to
  Sourced<double> gemm_max_efficiency_bf16;
  Sourced<double> gemm_max_efficiency_fp8;  // 0 where the GPU has no fp8 tensor cores
  Sourced<int> sm_count;
  Sourced<int> tile_m;
  Sourced<int> tile_n;
  Sourced<double> k_half;  // reduction length at which k_fill is 1/2
  Sourced<double> attention_efficiency;  // of bf16 dense peak, executed (causal-halved) FLOPs
  Sourced<double> hbm_efficiency;        // of the datasheet HBM bandwidth
  Sourced<double> launch_overhead_s;     // per kernel
  OverlapInterference overlap;  // what a communication kernel running beside compute takes from it
};

/// Bundled profiles: "a100-80gb", "h100-sxm", "h200-sxm", "b200", "gb200". Throws on other names.
ComputeProfile default_compute_profile(std::string_view gpu);

/// Fraction of the dense peak of `precision` that a GEMM C[m x n] = A[m x k] B[k x n] sustains.
double gemm_efficiency(const ComputeProfile& profile, Precision precision, int m, int n, int k);

}  // namespace clustersim::models
