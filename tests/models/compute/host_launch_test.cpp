#include "models/compute/host_launch.hpp"

#include <doctest/doctest.h>

namespace clustersim::models {
namespace {

TEST_CASE("host launch: every built-in host cost names its source") {
  const HostIssueCosts costs = builtin_host_issue_costs();
  for (const HostIssueCost* c : {&costs.eager_pytorch, &costs.framework_modules}) {
    CHECK_FALSE(c->per_kernel_s.source.empty());
    CHECK_FALSE(c->per_graph_launch_s.source.empty());
    CHECK(c->per_kernel_s.value > 0.0);
    CHECK(c->per_kernel_s.value < 100e-6);
  }
  CHECK_FALSE(gpu_launch_gap().source.empty());
  CHECK(gpu_launch_gap().value < costs.eager_pytorch.per_kernel_s.value);
}

TEST_CASE("host launch: the issuing style follows training.elementwise") {
  TrainingSpec t;
  CHECK(kernel_issuer(t) == KernelIssuer::framework_modules);
  t.elementwise = ElementwiseKernels::eager;
  CHECK(kernel_issuer(t) == KernelIssuer::eager_pytorch);
  const HostIssueCosts costs = builtin_host_issue_costs();
  CHECK(host_launch(costs, t).per_kernel_s == costs.eager_pytorch.per_kernel_s.value);
  CHECK_FALSE(host_launch(costs, t).cuda_graphs);
  t.cuda_graphs = true;
  CHECK(host_launch(costs, t).cuda_graphs);
}

TEST_CASE("host launch: a stretch costs the longer of its GPU time and its issue") {
  const HostLaunch host{.per_kernel_s = 8e-6, .per_graph_launch_s = 10e-6, .cuda_graphs = false};
  // 10 kernels of 40 us GPU time in all: the CPU needs 80 us to issue them, the GPU waits 40.
  CHECK(host_issue_s(10, host, true) == doctest::Approx(80e-6));
  CHECK(issued_stretch_s(40e-6, 10, host, true) == doctest::Approx(80e-6));
  // 10 kernels of 2 ms: the issue hides under the GPU time.
  CHECK(issued_stretch_s(2e-3, 10, host, true) == 2e-3);
  CHECK(host_issue_s(0, host, false) == 0.0);

  // Graphs: a captured stretch costs the host one replay, an uncaptured one each kernel.
  const HostLaunch graphs{.per_kernel_s = 8e-6, .per_graph_launch_s = 10e-6, .cuda_graphs = true};
  CHECK(issued_stretch_s(40e-6, 10, graphs, true) == 40e-6);
  CHECK(issued_stretch_s(5e-6, 10, graphs, true) == doctest::Approx(10e-6));
  CHECK(issued_stretch_s(40e-6, 10, graphs, false) == doctest::Approx(80e-6));
}

TEST_CASE("host launch: multi-tensor Adam launches one kernel per 320 chunks of 65,536 elements") {
  constexpr double per_launch = 320.0 * 65536.0;  // 20,971,520 elements
  CHECK(adam_launches(0.0) == 1);
  CHECK(adam_launches(per_launch) == 1);
  CHECK(adam_launches(per_launch + 1.0) == 2);
  CHECK(adam_launches(1e9) == 48);  // ceil(1e9 / 20,971,520) = ceil(47.68)
}

TEST_CASE("host launch: kernel_count sums the kernels the ops stand for") {
  const OpCost ops[] = {{.name = "a", .kernels = 5}, {.name = "b", .kernels = 1}, {.name = "c", .kernels = 2}};
  CHECK(kernel_count(ops) == 8);
}

}  // namespace
}  // namespace clustersim::models
