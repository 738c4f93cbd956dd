#pragma once
/// The host side of a training step: the CPU issues every kernel, and where the GPU runs a stretch
/// of kernels faster than the CPU issues them, the GPU waits.
/// The CPU enqueues launches asynchronously and runs ahead of the GPU, so a stretch of kernels takes
///   max(GPU time: the kernels' roofline times + a launch gap per kernel (compute_time.hpp),
///       host time: kernels x the issuing software's host cost per kernel)
/// and host time hides under GPU time except where the kernels are shorter than their issue.
/// With CUDA graphs (training.cuda_graphs) a captured unit costs the host one graph launch instead.
/// Granularity (plan_step): one layer's forward, one layer's backward with its recompute, the
/// embedding and the output head each pass, and the optimizer step. The CPU is assumed to run ahead
/// across pipeline sends and receives (NCCL waits make the stream wait, not the CPU), so a pass is
/// the right unit; it cannot run ahead across a CPU-GPU synchronisation, assumed once a step before
/// the optimizer (the gradient norm or loss scale read back by .item()), after which the GPU waits
/// for the first launch. Captured units: each layer's forward and backward (Megatron-Core
/// --enable-cuda-graph captures per layer); the embedding, output head and optimizer stay eager.
/// Issuing software: eager PyTorch (one Python op per kernel: training.elementwise = eager) or a
/// framework's fused modules (Megatron-Core / Transformer Engine, torch.compile's generated code).
/// Units: seconds, kernels.
/// Limitations: one host cost per kernel whatever the op (real dispatch cost varies by op and
/// argument count); backward kernels cost the same as forward ones (the autograd engine runs the
/// backward from C++, PyTorch-level autograd Functions from Python); the CPU's lead is unbounded
/// (the real launch queue holds about a thousand launches, far more than a layer issues); a graph
/// replay's GPU gaps are taken equal to a stream's; data loading and logging are not costed.
/// Source: each constant's source string.

#include <cstdint>
#include <span>

#include "models/compute/sourced.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

/// Who issues the kernels of a layer.
enum class KernelIssuer { eager_pytorch, framework_modules };

/// What issuing costs the CPU for one issuing style.
struct HostIssueCost {
  Sourced<double> per_kernel_s;        // CPU time to issue one kernel outside a graph
  Sourced<double> per_graph_launch_s;  // CPU time to replay one captured unit (graph)
};

/// The host costs a step model reads, by issuing style; the built-ins unless a framework's
/// parameter set replaces them.
struct HostIssueCosts {
  HostIssueCost eager_pytorch;
  HostIssueCost framework_modules;
};

HostIssueCosts builtin_host_issue_costs();
const HostIssueCost& host_issue_cost(const HostIssueCosts& costs, KernelIssuer issuer);

/// Eager PyTorch where the elementwise ops run as plain PyTorch ops, else framework modules.
KernelIssuer kernel_issuer(const TrainingSpec& training);

/// The GPU-side gap between back-to-back kernels of one stream with its launch queue full: the
/// value ComputeProfile::launch_overhead_s stands for (compute_time.hpp charges it per kernel).
Sourced<double> gpu_launch_gap();

/// CPU time of one eager PyTorch op that autograd does not record (a view or a copy issued under
/// no_grad, as communication hooks do): the dispatch cost alone.
Sourced<double> eager_untracked_op();

/// Plain numbers for the hot path: host seconds per kernel and per graph launch, and whether the
/// layers are captured.
struct HostLaunch {
  double per_kernel_s = 0.0;
  double per_graph_launch_s = 0.0;
  bool cuda_graphs = false;
};

HostLaunch host_launch(const HostIssueCosts& costs, const TrainingSpec& training);

/// Host seconds to issue `kernels` kernels: one graph launch when `captured` and the layers are
/// captured, else kernels x per-kernel cost.
double host_issue_s(std::int64_t kernels, const HostLaunch& host, bool captured);

/// Seconds a stretch of `kernels` kernels of `gpu_s` GPU time takes: max(gpu_s, host issue).
double issued_stretch_s(double gpu_s, std::int64_t kernels, const HostLaunch& host, bool captured);

/// Kernel launches an op list stands for.
std::int64_t kernel_count(std::span<const OpCost> ops);

/// Kernel launches of a multi-tensor Adam step over `elements` parameters of one shard: apex's and
/// Transformer Engine's multi_tensor_apply process 65,536-element chunks, at most 320 blocks (one
/// chunk each) a launch for Adam's four tensor lists (depth_to_max_blocks and chunk_size 2048 x 32).
/// The per-launch tensor limit (36 at depth 4) is ignored: a distributed optimizer's shard holds
/// contiguous slices of a flat buffer. At least one launch.
std::int64_t adam_launches(double elements);

}  // namespace clustersim::models
