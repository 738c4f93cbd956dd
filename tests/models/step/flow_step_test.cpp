#include "models/step/flow_step.hpp"

#include <doctest/doctest.h>

#include <string>

#include "models/step/step_labels.hpp"
#include "models/step/step_model.hpp"
#include "sim/engine.hpp"
#include "tests/models/model_fixtures.hpp"

using namespace clustersim;
using namespace clustersim::models;

namespace {

using test::h100_cluster;
using test::relative;

struct Lowered {
  double seconds = 0.0;
  std::size_t tasks = 0;
};

/// One communication task of a step, lowered alone on an idle network.
Lowered lower_alone(const ClusterSpec& cluster, const ParallelismSpec& p, CommScope scope, std::int32_t stage,
                    const Traffic& traffic) {
  const CommProfile profile = default_comm_profile(cluster);
  FlowNetwork network(cluster, profile);
  FlowLowering lowering(network, 0);
  FlowStep flow(p, cluster, profile, lowering);
  sim::TaskGraph graph;
  flow.lower(graph, scope, traffic, {.stage = stage});
  return {sim::Engine(network.resources()).run(graph).makespan.seconds(), graph.size()};
}

StepInputs llama8b(std::int64_t gpus, const ParallelismSpec& p, CommFidelity fidelity) {
  StepInputs in;
  in.model = test::llama3_8b();
  in.parallelism = p;
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 64};
  in.cluster = h100_cluster(gpus);
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  in.fidelity = fidelity;
  return in;
}

std::string layout_error(const StepInputs& in) {
  try {
    simulate_step(in);
  } catch (const LayoutError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("flow step: a stage's gradient reduction runs the rings of all its tensor ranks") {
  // TP 8 x DP 2 on 2 nodes: 8 data-parallel groups of 2 ranks, rank t of node 0 with rank t of
  // node 1, each on its own rail. Each rank sends 100 MB to its peer: 16 transfers (+ start, end),
  // each alone on its NIC at 47 GB/s: 2.128 ms after the 10 us latency.
  const ParallelismSpec p{.tp = 8, .pp = 1, .dp = 2};
  const Lowered lowered = lower_alone(h100_cluster(16), p, CommScope::dp, 0, {.ring_bytes = 100e6, .latency_s = 10e-6});
  CHECK(lowered.tasks == 18);
  CHECK(lowered.seconds == relative(10e-6 + 100e6 / 47e9).epsilon(1e-6));
}

TEST_CASE("flow step: pipeline sends run for every replica and tensor rank") {
  // TP 8 x DP 2 x PP 2 on 4 nodes: stage 0 = nodes 0-1, stage 1 = nodes 2-3. Forward sends: 16
  // transfers, rank r -> r + 16, rail-aligned, one per NIC: 40 MB at 47 GB/s after 13.5 us.
  const ParallelismSpec p{.tp = 8, .pp = 2, .dp = 2};
  const Lowered forward = lower_alone(h100_cluster(32), p, CommScope::pp_next, 0, {.ring_bytes = 40e6, .latency_s = 13.5e-6});
  CHECK(forward.tasks == 18);
  CHECK(forward.seconds == relative(13.5e-6 + 40e6 / 47e9).epsilon(1e-6));
  // Tensor-parallel ring of stage 1, a whole node, so replica 0's only (ranks 16-23 on node 2):
  // 8 NVLink transfers.
  const Lowered tp = lower_alone(h100_cluster(32), p, CommScope::tp, 1, {.ring_bytes = 369e6, .latency_s = 0.0});
  CHECK(tp.tasks == 10);
  CHECK(tp.seconds == relative(369e6 / (450e9 * 0.82)).epsilon(1e-6));
  // TP 4: two groups per node, whose replicas share the node with other traffic, so every
  // replica's ring runs: 4 replicas x 4 transfers (+ start, end), each GPU's own NVLink links.
  const ParallelismSpec half{.tp = 4, .pp = 1, .dp = 4};
  const Lowered tp4 = lower_alone(h100_cluster(16), half, CommScope::tp, 0, {.ring_bytes = 369e6, .latency_s = 0.0});
  CHECK(tp4.tasks == 18);
  CHECK(tp4.seconds == relative(369e6 / (450e9 * 0.82)).epsilon(1e-6));
}

TEST_CASE("flow step: where nothing contends, the flow step time is the analytic one within 3 %") {
  // Llama 3 8B, TP 8 x DP 2 on 2 nodes, plain DP (ZeRO-0): TP rings on NVLink, 8 rail-aligned
  // gradient all-reduce rings on separate NICs. The fidelities share the CommProfile, so they
  // differ only where bucketed reductions overlap one another.
  const ParallelismSpec p{.tp = 8, .pp = 1, .dp = 2, .sp = true, .zero = 0};
  const StepSimulation analytic = simulate_step(llama8b(16, p, CommFidelity::analytic));
  const StepSimulation flow = simulate_step(llama8b(16, p, CommFidelity::flow));
  CHECK(flow.report.times.step_time_s == relative(analytic.report.times.step_time_s).epsilon(0.03));
  CHECK(flow.report.times.stages[0].dp_comm_s > 0.0);
  CHECK(flow.step.link_count > 0);
  // And with pipelining: TP 8 x PP 2 x DP 2 on 4 nodes, ZeRO-1 (reduce-scatter + all-gather).
  const ParallelismSpec pp{.tp = 8, .pp = 2, .dp = 2, .sp = true, .zero = 1};
  const double analytic_pp = simulate_step(llama8b(32, pp, CommFidelity::analytic)).report.times.step_time_s;
  const double flow_pp = simulate_step(llama8b(32, pp, CommFidelity::flow)).report.times.step_time_s;
  CHECK(flow_pp == relative(analytic_pp).epsilon(0.03));
}

TEST_CASE("flow step: context-parallel rings pair the ranks of each replica and tensor rank") {
  // TP 8 x CP 2 x DP 2 on 4 nodes: context rank c of replica d is node 2d + c, so each of the 16
  // rings (2 replicas x 8 tensor ranks) joins rank t of two nodes over rail t, one transfer each
  // way: 32 transfers (+ start, end), each alone on its NIC direction at 47 GB/s.
  const ParallelismSpec p{.tp = 8, .pp = 1, .dp = 2, .cp = 2};
  const Lowered cp = lower_alone(h100_cluster(32), p, CommScope::cp, 0, {.ring_bytes = 100e6, .latency_s = 10e-6});
  CHECK(cp.tasks == 34);
  CHECK(cp.seconds == relative(10e-6 + 100e6 / 47e9).epsilon(1e-6));
  // The data-parallel group spans dp x cp = 4 nodes per tensor rank: 8 rings of 4 ranks, 32
  // transfers, each rank sending to the next node on its own rail.
  const Lowered dp = lower_alone(h100_cluster(32), p, CommScope::dp, 0, {.ring_bytes = 100e6, .latency_s = 10e-6});
  CHECK(dp.tasks == 34);
  CHECK(dp.seconds == relative(10e-6 + 100e6 / 47e9).epsilon(1e-6));
}

TEST_CASE("flow step: context parallelism and ZeRO-3 agree with the analytic step within 3 % where nothing contends") {
  // Llama 3 8B, TP 8 on 4 nodes of rails: CP 2 x DP 2 (K/V blocks on rails, overlapped with the
  // compute), then ZeRO-3 over DP 4 with its gathers and reduce-scatters blocking the compute, so
  // that they are on the critical path.
  StepInputs cp = llama8b(32, {.tp = 8, .pp = 1, .dp = 2, .cp = 2, .sp = true, .zero = 1}, CommFidelity::analytic);
  cp.training.overlap_param_gather = false;
  const double analytic_cp = simulate_step(cp).report.times.step_time_s;
  cp.fidelity = CommFidelity::flow;
  const StepSimulation flow_cp = simulate_step(cp);
  CHECK(flow_cp.report.times.step_time_s == relative(analytic_cp).epsilon(0.03));
  // Each of the 64 passes (32 micro-batches each way) sends its K/V blocks as the 32 transfers of
  // the 16 rings (+ start, end), twice: a hop between nodes outlasts a ring step's attention, so
  // the share that attention hides runs beside the compute and the rest before the pass.
  CHECK(plan_step(cp).layer.cp_kv_hidden_forward < 1.0);
  std::size_t overlap_tasks = 0;
  for (sim::TaskId t = 0; t < flow_cp.step.graph.size(); ++t)
    overlap_tasks += flow_cp.step.graph.label(t).kind == static_cast<std::uint8_t>(TaskKind::cp_comm);
  CHECK(overlap_tasks == 2 * 64 * 34);
  StepInputs zero3 = llama8b(32, {.tp = 8, .pp = 1, .dp = 4, .sp = true, .zero = 3}, CommFidelity::analytic);
  zero3.training.overlap_param_gather = false;
  zero3.training.overlap_grad_reduce = false;
  const StepSimulation analytic_zero3 = simulate_step(zero3);
  zero3.fidelity = CommFidelity::flow;
  const StepSimulation flow_zero3 = simulate_step(zero3);
  CHECK(analytic_zero3.report.times.stages[0].dp_comm_s > 0.05 * analytic_zero3.report.times.step_time_s);
  CHECK(flow_zero3.report.times.step_time_s == relative(analytic_zero3.report.times.step_time_s).epsilon(0.03));
}

TEST_CASE("flow step: an oversubscribed fat tree slows the data-parallel rings that cross it") {
  // Llama 3 8B, TP 8 x DP 8 on 8 nodes of a two-tier fat tree, plain DP reduced after the backward
  // (no overlap), so the all-reduce rings between nodes are exposed. At 4:1 a leaf has 48 NIC ports
  // and 12 uplinks: nodes 0-5 share leaf 0 and the rings' hops that leave it crowd onto 12 cables.
  // The analytic model does not see the leaf; the flow step must be slower than at 1:1.
  const ParallelismSpec p{.tp = 8, .pp = 1, .dp = 8, .sp = true, .zero = 0};
  auto step_s = [&](double oversubscription, CommFidelity fidelity) {
    StepInputs in = llama8b(64, p, fidelity);
    in.training.overlap_grad_reduce = false;
    in.cluster.topology = TopologyKind::fat_tree;
    in.cluster.oversubscription = oversubscription;
    return simulate_step(in).report.times.step_time_s;
  };
  CHECK(step_s(4.0, CommFidelity::analytic) == step_s(1.0, CommFidelity::analytic));
  CHECK(step_s(4.0, CommFidelity::flow) > step_s(1.0, CommFidelity::flow) * 1.01);
}

TEST_CASE("flow step: layouts and networks it cannot lower are errors naming the field") {
  StepInputs in = llama8b(16, {.tp = 8, .pp = 1, .dp = 2}, CommFidelity::flow);
  in.cluster.failed_link_names = "n0.nic0->su0.leaf0, spine99->su0.leaf0";
  CHECK(layout_error(in).starts_with("cluster.failed_link_names: no link 'spine99->su0.leaf0'"));
  // The first name exists: failing it cuts GPU 0 off the network (no PXN through another GPU).
  in.cluster.failed_link_names = "n0.nic0->su0.leaf0";
  CHECK(layout_error(in).starts_with("cluster.failed_links: the failed links disconnect ranks 0 and 8"));
  // 10 nodes are too many for 9 groups of p = 2 and do not fill groups of p = 4 (4 nodes each).
  in = llama8b(80, {.tp = 8, .pp = 1, .dp = 10}, CommFidelity::flow);
  in.training.global_batch = 80;
  in.cluster.topology = TopologyKind::dragonfly;
  CHECK(layout_error(in).starts_with("cluster.topology: the flow fidelity needs the network built"));
  in.fidelity = CommFidelity::analytic;  // the analytic model never builds it
  CHECK(layout_error(in).empty());
}
