#pragma once
/// Time one GPU takes for one op: a roofline over the op's FLOPs and HBM bytes, plus launches.
/// time = max(flops / (peak x efficiency), bytes / (HBM bandwidth x HBM efficiency))
///        + kernels x launch overhead (the GPU-side gap between back-to-back kernels of a stream),
/// where efficiency is the GEMM shape efficiency (at the precision's peak, times the op's fp8 recipe
/// rate at fp8) for GEMMs, the same at bf16 peak for the unfused attention's GEMMs and for GEMMs
/// the op keeps in bf16 (OpCost::bf16_gemm: fp8 forward with bf16 backward), and the attention kernel efficiency (at bf16 peak)
/// for fused attention; elementwise ops are memory-bound by assumption (their vector FLOPs are not
/// timed).
/// Units: seconds.
/// The CPU's issue of the kernels, which the GPU waits for where it is the longer, is added per layer
/// pass by the step model (host_launch.hpp).
/// Limitations: no compute slow-down
/// while communication kernels share the SMs (the step builder can add one).
/// Source: roofline model; parameters from models/compute/compute_profile.hpp.

#include <span>

#include "models/compute/compute_profile.hpp"
#include "models/spec/gpu_spec.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/compute/transformer_costs.hpp"

namespace clustersim::models {

/// Throws std::invalid_argument when a GEMM asks for a precision the GPU or profile lacks.
double op_time_s(const OpCost& op, const GpuSpec& gpu, const ComputeProfile& profile, Precision precision);
double ops_time_s(std::span<const OpCost> ops, const GpuSpec& gpu, const ComputeProfile& profile,
                  Precision precision);

}  // namespace clustersim::models
