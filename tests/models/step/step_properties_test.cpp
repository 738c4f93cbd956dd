// Monotonicity properties of the step model: a slower link or a slower GPU never makes a step
// faster, and a larger micro-batch never needs less memory. Small layouts (Llama 3 8B on two
// nodes) keep every point well under a second, under both communication fidelities.

#include <doctest/doctest.h>

#include <vector>

#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models::step_properties_test {
namespace {

// TP 4 inside a node, PP 2 and DP 2 across the two nodes: the step uses NVLink and the NICs.
StepInputs two_node_llama8b(CommFidelity fidelity) {
  StepInputs in;
  in.model = test::llama3_8b();
  in.parallelism = {.tp = 4, .pp = 2, .dp = 2, .sp = true, .zero = 1};
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 16};
  in.cluster = test::h100_cluster(16);
  in.compute = default_compute_profile("h100-sxm");
  in.fidelity = fidelity;
  return in;
}

// The communication constants follow the cluster's bandwidths, as calibration/step_inputs does.
double step_time_s(StepInputs in) {
  in.comm = default_comm_profile(in.cluster);
  return simulate_step(in).report.times.step_time_s;
}

// Step times along a list of settings, each from `apply(inputs, setting)`; checks they never fall
// and that the slowest setting is strictly slower than the fastest.
template <class Apply>
void check_never_faster(CommFidelity fidelity, const std::vector<double>& settings, Apply apply) {
  double previous = 0.0, first = 0.0;
  for (const double setting : settings) {
    StepInputs in = two_node_llama8b(fidelity);
    apply(in, setting);
    const double t = step_time_s(in);
    CAPTURE(setting);
    CAPTURE(t);
    CHECK(t >= previous);
    if (previous == 0.0) first = t;
    previous = t;
  }
  CHECK(previous > first);
}

constexpr CommFidelity fidelities[] = {CommFidelity::analytic, CommFidelity::flow};

TEST_CASE("step properties: a slower NIC never makes the step faster") {
  for (const CommFidelity fidelity : fidelities) {
    CAPTURE(static_cast<int>(fidelity));
    // 400, 200, 100, 25, 5 Gb/s per NIC.
    check_never_faster(fidelity, {50e9, 25e9, 12.5e9, 3.125e9, 0.625e9},
                       [](StepInputs& in, double bytes_per_s) { in.cluster.nic_bytes_per_s = bytes_per_s; });
  }
}

TEST_CASE("step properties: a slower NIC never makes a sharded mixture-of-experts step faster") {
  // Mixtral 8x7B on two nodes of 8 A100, TP 4 x DP 4 x EP 2, ZeRO-3: each pass's prefetched
  // gathers mix the dense units' gathers across the nodes with the experts' gathers among the
  // ranks holding the same experts, and from 500 Gb/s on they end within the pass. The HBM they
  // take from the compute follows their bytes: a faster NIC moves the same bytes sooner and
  // cannot slow the compute it overlaps (1600 down to 400 Gb/s per NIC). Under the flow fidelity
  // a pass that ends sooner starts its successors' flows sooner, beside others on shared links,
  // and the max-min shares may then finish the step a little later (a scheduling anomaly of
  // shared links, as on a real fabric): there the step may gain up to 0.1 %.
  for (const CommFidelity fidelity : fidelities) {
    CAPTURE(static_cast<int>(fidelity));
    const double tolerance = fidelity == CommFidelity::flow ? 1e-3 : 0.0;
    double previous = 0.0;
    for (const double gbit : {1600.0, 800.0, 600.0, 500.0, 400.0}) {
      StepInputs in;
      in.model = test::mixtral_8x7b();
      in.parallelism = {.tp = 4, .pp = 1, .dp = 4, .sp = true, .zero = 3, .ep = 2};
      in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 64};
      in.cluster = {.gpu = test::a100(), .num_gpus = 16, .gpus_per_node = 8, .nic_bytes_per_s = gbit * 1e9 / 8.0};
      in.compute = default_compute_profile("a100-80gb");
      in.fidelity = fidelity;
      const double t = step_time_s(in);
      CAPTURE(gbit);
      CAPTURE(t);
      CHECK(t >= previous * (1.0 - tolerance));
      previous = t;
    }
  }
}

TEST_CASE("step properties: slower NVLink never makes the step faster") {
  for (const CommFidelity fidelity : fidelities) {
    CAPTURE(static_cast<int>(fidelity));
    check_never_faster(fidelity, {900e9, 450e9, 150e9, 50e9, 10e9},
                       [](StepInputs& in, double bytes_per_s) { in.cluster.gpu.nvlink_bytes_per_s = bytes_per_s; });
  }
}

TEST_CASE("step properties: a lower GPU peak never makes the step faster") {
  for (const CommFidelity fidelity : fidelities) {
    CAPTURE(static_cast<int>(fidelity));
    check_never_faster(fidelity, {989e12, 700e12, 400e12, 100e12},
                       [](StepInputs& in, double flops) { in.cluster.gpu.bf16_flops_per_s = flops; });
  }
}

TEST_CASE("step properties: memory per GPU never falls as the micro-batch grows") {
  // Global batch 64 over dp 2: micro-batches of 1 to 32 sequences (m = 32 down to 1), under both
  // activation policies that keep activations.
  for (const Recompute recompute : {Recompute::none, Recompute::selective}) {
    CAPTURE(static_cast<int>(recompute));
    double previous = 0.0;
    for (const std::int64_t b : {1, 2, 4, 8, 16, 32}) {
      StepInputs in = two_node_llama8b(CommFidelity::analytic);
      in.training.global_batch = 64;
      in.training.micro_batch = b;
      in.training.recompute = recompute;
      in.comm = default_comm_profile(in.cluster);
      const StepReport report = simulate_step(in).report;
      const double peak = report.memory_per_stage[static_cast<std::size_t>(report.peak_memory_stage)].total_bytes;
      CAPTURE(b);
      CHECK(peak > previous);
      previous = peak;
    }
  }
}

}  // namespace
}  // namespace clustersim::models::step_properties_test
