#pragma once
/// What overlapped communication costs the compute it hides under (models/compute/
/// overlap_interference.hpp): while a collective kernel runs beside a pass, compute-bound kernels
/// (GEMMs, attention) run on the SMs it leaves, and memory-bound kernels share HBM with its
/// traffic. A pass of Cg seconds of compute-bound and Cm of memory-bound kernels lasts D >= Cg + Cm
/// on the compute stream (the host's issue where that is slower, the copies and host work of
/// ZeRO-3's gathers). A collective of T seconds beside it, spread evenly over it, takes fc of the
/// compute-bound kernels' throughput and fm of the memory-bound ones': each second of it costs the
/// pass l = (Cg fc + Cm fm) / D seconds of work. The collective's seconds are the network's, so the
/// pass grows by l T; a collective that outlasts the stretched pass (T (1 - l) > D) costs it
/// l D / (1 - l), each second of the stretch losing as much. The cost thus follows the window the
/// traffic is there (SMs held) and its bytes (HBM), never its rate alone: a faster network moving
/// the same bytes cannot cost more. Traffic that runs only under the GEMMs (tensor-parallel
/// overlap) costs them alone: D = G, l = fc.
/// Units: seconds, bytes/s, SMs.
/// Limitations: concurrent collectives beside one pass add their costs as if they ran one after
/// another; the SMs a GEMM loses cost it their share of throughput, not the wave tail a GEMM of
/// whole waves pays (overlapped_gemm_efficiency). ZeRO 0-1's gradient buckets, reduced from a chunk's
/// last backward on, are booked on that backward (ChunkCosts::grad_bucket_interference_s); the distributed
/// optimizer's parameter gather is not charged: it runs from the step's start, beside the first
/// stages' first forwards but while the deeper stages wait for their first input, and which passes
/// it meets depends on the schedule's timing, which a pass's cost cannot know.

#include <span>

#include "models/compute/compute_profile.hpp"
#include "models/spec/gpu_spec.hpp"

namespace clustersim::models {

/// One pass's compute, split by what bounds it.
struct PassCompute {
  double compute_bound_s = 0.0;  // GEMMs and attention
  double memory_bound_s = 0.0;   // elementwise kernels
  double gemm_s = 0.0;           // the GEMMs alone (part of compute_bound_s)
  double duration_s = 0.0;       // the pass on the compute stream; below the kernels' time: theirs
};

/// Communication beside a pass: how long it runs, the bus bandwidth it reaches, the SMs it holds
/// (negative: the profile's NCCL kernel's) and whether it runs only under the GEMMs.
struct BesideTraffic {
  double seconds = 0.0;
  double bus_bytes_per_s = 0.0;
  double sms_held = -1.0;
  bool under_gemms_only = false;
};

/// Seconds the pass's compute grows by, on `gpu` with the profile's SM count and overlap constants.
double interference_s(const PassCompute& pass, std::span<const BesideTraffic> traffic, const GpuSpec& gpu,
                      const ComputeProfile& profile);

}  // namespace clustersim::models
