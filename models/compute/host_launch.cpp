#include "models/compute/host_launch.hpp"

#include <algorithm>
#include <cmath>

namespace clustersim::models {

namespace {

// apex / Transformer Engine multi_tensor_apply: chunk_size 2048 x 32 elements, one chunk per block,
// depth_to_max_blocks = 320 blocks a launch (csrc/multi_tensor_apply.cuh).
constexpr double kAdamChunkElements = 2048.0 * 32.0;
constexpr double kAdamBlocksPerLaunch = 320.0;

Sourced<double> graph_launch() {
  return {10e-6,
          "assumption: cudaGraphLaunch costs the CPU a few microseconds whatever the graph's size (CUDA "
          "Programming Guide 4.2: launch set-up is paid once at instantiation), plus the framework's "
          "Python replay wrapper (copying the inputs into the graph's static buffers)"};
}

}  // namespace

HostIssueCosts builtin_host_issue_costs() {
  return {
      .eager_pytorch = {.per_kernel_s = {6e-6,
                                         "pytorch/pytorch#82793: about 4 us per op on CUDA for a dispatch-bound "
                                         "model (PyTorch 1.12, A100), plus about 2 us of autograd recording per op "
                                         "(pytorch/pytorch#41383: 6.8 us with requires_grad, 5 us without)"},
                        .per_graph_launch_s = graph_launch()},
      .framework_modules = {.per_kernel_s = {8e-6,
                                             "assumption: each Megatron-Core / Transformer Engine module wraps one to "
                                             "three kernels in a Python autograd Function with its own checks and "
                                             "fp8 bookkeeping, so a kernel costs the host at least an eager op's 6 us; "
                                             "HolisticTraceAnalysis (cuda_kernel_launch_stats) reports 5-20 us of CPU "
                                             "launch time per kernel in PyTorch traces"},
                            .per_graph_launch_s = graph_launch()},
  };
}

const HostIssueCost& host_issue_cost(const HostIssueCosts& costs, KernelIssuer issuer) {
  return issuer == KernelIssuer::eager_pytorch ? costs.eager_pytorch : costs.framework_modules;
}

KernelIssuer kernel_issuer(const TrainingSpec& training) {
  return training.elementwise == ElementwiseKernels::eager ? KernelIssuer::eager_pytorch
                                                           : KernelIssuer::framework_modules;
}

Sourced<double> gpu_launch_gap() {
  return {1e-6,
          "NVIDIA Technical Blog, Getting Started with CUDA Graphs (2019, V100): a 2.9 us kernel takes 3.8 us "
          "a kernel when launched back to back without synchronisation (queue full), 3.4 us in a graph: "
          "about 1 us of GPU-side gap per kernel"};
}

Sourced<double> eager_untracked_op() {
  return {5e-6, "pytorch/pytorch#41383: 5 us an op without requires_grad, 6.8 us with (autograd recording)"};
}

HostLaunch host_launch(const HostIssueCosts& costs, const TrainingSpec& training) {
  const HostIssueCost& cost = host_issue_cost(costs, kernel_issuer(training));
  return {.per_kernel_s = cost.per_kernel_s.value,
          .per_graph_launch_s = cost.per_graph_launch_s.value,
          .cuda_graphs = training.cuda_graphs};
}

double host_issue_s(std::int64_t kernels, const HostLaunch& host, bool captured) {
  if (kernels <= 0) return 0.0;
  if (captured && host.cuda_graphs) return host.per_graph_launch_s;
  return static_cast<double>(kernels) * host.per_kernel_s;
}

double issued_stretch_s(double gpu_s, std::int64_t kernels, const HostLaunch& host, bool captured) {
  return std::max(gpu_s, host_issue_s(kernels, host, captured));
}

std::int64_t kernel_count(std::span<const OpCost> ops) {
  std::int64_t n = 0;
  for (const OpCost& op : ops) n += op.kernels;
  return n;
}

std::int64_t adam_launches(double elements) {
  const double launches = std::ceil(elements / (kAdamChunkElements * kAdamBlocksPerLaunch));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(launches));
}

}  // namespace clustersim::models
