#pragma once
/// What a communication transfer running beside compute takes from it: the slowdown of overlapped
/// compute (issue 18, "overlap that costs").
/// - An NCCL collective is a kernel of one CTA per channel, each CTA resident on one SM for the
///   whole collective (640 or 512 threads and its shared memory: no GEMM CTA fits beside it). While
///   it runs, compute-bound work has sm_count - sms_held SMs: it loses sms_held / sm_count of its
///   throughput, and a GEMM whose tiles filled whole waves on every SM also pays a wave tail
///   (overlapped_gemm_efficiency).
/// - Every byte a collective puts on the bus is read from and written to HBM on its way: memory-
///   bound work loses hbm_bytes_per_bus_byte x busbw / HBM bandwidth of its throughput.
/// - A copy-engine transfer (cudaMemcpyAsync) holds no SM; it costs memory-bound work its HBM
///   traffic, copy_hbm_bytes_per_byte x copy rate / HBM bandwidth.
/// Units: SMs, bytes per byte, bytes/s; losses are fractions of throughput in [0, 1].
/// Limitations: one CTA count per GPU (NCCL picks 16 CTAs for NVLS all-reduce on Hopper, 24 ring
/// channels on 8-GPU NVSwitch nodes, fewer for small messages: ncclTopoGetAlgoInfo shrinks the
/// channels below nChannels x threads x threshold bytes); L2 and NVLink-port contention, power and
/// clock effects are not modelled; compute-bound and memory-bound losses are separate (a kernel is
/// one or the other, not a blend).
/// Sources: each constant's source string; NCCL src/transport/nvls.cc (NVLS CTAs), src/device/
/// all_reduce.h (ring data movement); published GEMM slowdowns are compared in
/// tests/models/compute/overlap_interference_test.cpp.

#include <string_view>

#include "models/compute/sourced.hpp"
#include "models/spec/gpu_spec.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

struct ComputeProfile;

/// Who moves the bytes: an SM kernel (NCCL's collectives) or the GPU's copy engines.
enum class CommEngine { sm_kernel, copy_engine };

struct OverlapInterference {
  Sourced<double> sms_held;                // SMs one NCCL collective kernel holds while it runs
  Sourced<double> hbm_bytes_per_bus_byte;  // HBM bytes read + written per byte of bus traffic (busbw x t)
  Sourced<double> copy_hbm_bytes_per_byte; // HBM bytes per byte a copy engine moves device to device
};

/// Fractions of throughput that overlapped work loses, by the kind of work.
struct InterferenceShare {
  double compute_bound = 0.0;  // SMs taken / sm_count
  double memory_bound = 0.0;   // the transfer's HBM bytes/s / the GPU's HBM bandwidth, at most 1
  double sms_taken = 0.0;      // SMs the transfer holds (0 for the copy engines)
};

/// Built-in constants of a GPU preset ("a100-80gb", "h100-sxm", "h200-sxm", and the Blackwell ones);
/// for any other name, zeros whose sources say that nothing is modelled.
OverlapInterference default_overlap_interference(std::string_view gpu);

/// `sm_count`: the GPU's SMs (ComputeProfile::sm_count). `comm_bytes_per_s`: for sm_kernel the
/// collective's bus bandwidth (busbw) on this GPU; for copy_engine the rate the copy moves bytes
/// device to device (a device-host copy touches HBM once per byte: pass half its rate). Negative
/// rates count as 0.
InterferenceShare overlap_slowdown(const GpuSpec& gpu, int sm_count, const OverlapInterference& interference,
                                   CommEngine engine, double comm_bytes_per_s);

/// Fraction of the whole GPU's dense peak of `precision` that GEMM C[m x n] = A[m x k] B[k x n]
/// sustains while `sms_taken` SMs are held by a communication kernel: the wave model of
/// gemm_efficiency on the SMs left (so a GEMM of exactly one full wave needs two), scaled by the
/// share of SMs left. sms_taken is rounded to whole SMs; 0 gives gemm_efficiency.
double overlapped_gemm_efficiency(const ComputeProfile& profile, double sms_taken, Precision precision,
                                  int m, int n, int k);

}  // namespace clustersim::models
