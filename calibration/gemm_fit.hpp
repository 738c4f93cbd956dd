#pragma once
/// Fits the GEMM efficiency model of models/compute/compute_profile.hpp to measured GEMMs:
///   efficiency(m, n, k) = e_max(precision) x tile_fill(m, n) x k / (k + k_half x r(precision)),
/// with tile_fill from the profile's tile shape and SM count (waves of output tiles; the best of the
/// tile, its transpose and its half-width tile, as models::gemm_tile_fill) and r the rate at which
/// the precision's tensor cores step through k against bf16 (models::gemm_k_rate_ratio, 2 for fp8,
/// 4 for nvfp4).
/// The fitted parameters are e_max per precision present in the samples and one k_half (bf16's),
/// shared by all.
/// Relative least squares: residuals are log(measured / modelled efficiency), minimised by
/// Gauss-Newton over (log e_max..., log k_half) with the linear solves of least_squares.hpp; the
/// 95 % intervals come from s^2 (J^T J)^-1 at the optimum and are mapped back through exp (so
/// they are asymmetric). k_half is held at its prior (and reported so) when the samples cannot
/// identify it: fewer than two distinct k in one precision, or no residual degree of freedom.
/// The tile/wave model is checked by refitting under a few other common tile shapes and
/// reporting each one's residual RMS (the profile keeps the given shape).
/// Samples with fewer output tiles (of the given tile) than SMs are left out of the fit and listed:
/// the library runs them with split-K or stream-K kernels, which the model does not have (all are
/// fitted when no sample fills a wave).
/// Units: efficiencies are fractions of the GPU's dense peak of the sample's precision.
/// Limitations: the model has no split-K/stream-K, so small m x n with large k fit badly; one
/// tile family for all sizes; the intervals assume independent relative errors across shapes,
/// which best-of-sweep published numbers are not.
/// Source: models/compute/compute_profile.hpp (the model being fitted); Gauss-Newton as in Nocedal &
/// Wright, "Numerical Optimization", section 10.3.

#include <optional>
#include <span>
#include <vector>

#include "calibration/bench_records.hpp"

namespace clustersim::calibration {

struct GemmModelShape {
  int tile_m = 128;
  int tile_n = 256;
  int sm_count = 132;
};

struct GemmFitInputs {
  GemmModelShape shape{};
  double bf16_peak_flops_per_s = 0.0;
  double fp8_peak_flops_per_s = 0.0;  // 0: the GPU has no fp8 tensor cores
  double fp4_peak_flops_per_s = 0.0;  // 0: the GPU has no FP4 tensor cores (nvfp4 samples)
  double k_half_prior = 256.0;        // used when the samples cannot identify k_half
};

struct FittedValue {
  double value = 0.0;
  double lo = 0.0, hi = 0.0;  // 95 %; NaN when not available
  bool fitted = false;        // false: not in the samples (e_max) or held at the prior (k_half)
  int samples = 0;
};

struct GemmPointFit {
  GemmSample sample{};
  double measured = 0.0;   // efficiency
  double predicted = 0.0;  // efficiency
  double tile_fill = 0.0;
  double k_fill = 0.0;
};

struct TileCheck {
  GemmModelShape shape{};
  double rms_relative = 0.0;  // of predicted / measured efficiency - 1
};

struct GemmFit {
  FittedValue e_max_bf16{};
  FittedValue e_max_fp8{};
  FittedValue e_max_fp4{};  // nvfp4 (block-scaled E2M1) samples
  FittedValue k_half{};
  int dof = 0;
  double rms_relative = 0.0;
  double max_relative = 0.0;
  std::vector<GemmPointFit> points{};
  std::vector<TileCheck> tile_check{};  // the given shape first
  std::vector<GemmSample> below_one_wave{};  // not fitted: fewer output tiles than SMs
};

/// models::gemm_tile_fill for `shape` (useful output over the tiles of all waves).
double tile_fill(const GemmModelShape& shape, std::int64_t m, std::int64_t n);

/// Throws std::invalid_argument when there are no samples or an fp8 sample on a GPU without fp8.
GemmFit fit_gemm(std::span<const GemmSample> samples, const GemmFitInputs& inputs);

}  // namespace clustersim::calibration
