#include "models/comm/flow_collectives.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "tests/models/model_fixtures.hpp"

using namespace clustersim;
using namespace clustersim::models;

namespace {

using test::h100_cluster;
using test::relative;

std::vector<std::int64_t> iota(std::int64_t n, std::int64_t stride = 1) {
  std::vector<std::int64_t> ranks(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i * stride;
  return ranks;
}

struct Lowered {
  double seconds = 0.0;
  std::size_t tasks = 0;
};

Lowered run_flow(const ClusterSpec& cluster, const CollectiveCall& call, const CommProfile& profile) {
  FlowNetwork network(cluster, profile);
  FlowLowering lowering(network, 0);
  sim::TaskGraph graph;
  lower_collective(graph, lowering, call, cluster, profile);
  return {sim::Engine(network.resources()).run(graph).makespan.seconds(), graph.size()};
}

Lowered run_flow(const ClusterSpec& cluster, const CollectiveCall& call) {
  return run_flow(cluster, call, default_comm_profile(cluster));
}

double run_analytic(const ClusterSpec& cluster, CollectiveOp op, double bytes, const std::vector<std::int64_t>& ranks) {
  const CommProfile profile = default_comm_profile(cluster);
  const FlowNetwork network(cluster, profile);
  return collective_time_s(op, bytes, comm_group_of(network, ranks), cluster, profile);
}

struct Shape {
  std::string name;
  std::int64_t gpus;
  std::vector<std::int64_t> ranks;
};

std::vector<Shape> shapes() {
  return {{"8 ranks in one node", 8, iota(8)},
          {"16 ranks over 2 nodes", 16, iota(16)},
          {"64 ranks over 8 nodes", 64, iota(64)},
          {"8 rail-aligned ranks, one per node", 64, iota(8, 8)}};
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("flow collectives: where nothing contends, flow and analytic agree within 3 %") {
  // The standing test of DESIGN.md: one collective alone on an H100 rail-optimized network. Both
  // fidelities read the same CommProfile (link efficiency, launch and hop latencies), so any gap
  // is in how the bytes move: NIC vs NVLink bottleneck, channels, flow sharing.
  for (const Shape& shape : shapes()) {
    const ClusterSpec cluster = h100_cluster(shape.gpus);
    for (const CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather})
      for (const double bytes : {1 * kMiB, 16 * kMiB, 256 * kMiB, 1024 * kMiB}) {
        CAPTURE(shape.name);
        CAPTURE(static_cast<int>(op));
        CAPTURE(bytes);
        const double analytic = run_analytic(cluster, op, bytes, shape.ranks);
        const double flow = run_flow(cluster, {.op = op, .bytes = bytes, .ranks = shape.ranks}).seconds;
        CHECK(flow == relative(analytic).epsilon(0.03));
      }
  }
  // Send/receive inside a node (NVLink) and across nodes (one NIC), and all-to-all inside a node.
  const ClusterSpec two_nodes = h100_cluster(16);
  for (const double bytes : {1 * kMiB, 64 * kMiB, 1024 * kMiB}) {
    CAPTURE(bytes);
    for (const std::vector<std::int64_t>& pair : {std::vector<std::int64_t>{0, 1}, std::vector<std::int64_t>{3, 11}}) {
      const double analytic = run_analytic(two_nodes, CollectiveOp::send_recv, bytes, pair);
      const double flow = run_flow(two_nodes, {.op = CollectiveOp::send_recv, .bytes = bytes, .ranks = pair}).seconds;
      CHECK(flow == relative(analytic).epsilon(0.03));
    }
    const ClusterSpec node = h100_cluster(8);
    const std::vector<std::int64_t> eight = iota(8);
    const double analytic = run_analytic(node, CollectiveOp::all_to_all, bytes, eight);
    const double flow = run_flow(node, {.op = CollectiveOp::all_to_all, .bytes = bytes, .ranks = eight}).seconds;
    CHECK(flow == relative(analytic).epsilon(0.03));
  }
}

TEST_CASE("flow collectives: all-to-all across nodes is held to each GPU's NIC") {
  // 64 ranks on 8 nodes, 1 GiB: each GPU sends 56/64 of its buffer to other nodes over its own
  // 47 GB/s NIC: 56/64 x 1 GiB / 47e9 = 19.99 ms, in both fidelities.
  const ClusterSpec cluster = h100_cluster(64);
  const std::vector<std::int64_t> ranks = iota(64);
  const double bytes = 1024 * kMiB;
  const double flow = run_flow(cluster, {.op = CollectiveOp::all_to_all, .bytes = bytes, .ranks = ranks}).seconds;
  const double latency = collective_protocol(CollectiveOp::all_to_all, bytes, {.ranks = 64, .ranks_per_node = 8}, cluster,
                                              default_comm_profile(cluster)).latency_s;
  CHECK(flow == relative(latency + 56.0 / 64.0 * bytes / 47e9).epsilon(0.005));
  CHECK(flow == relative(run_analytic(cluster, CollectiveOp::all_to_all, bytes, ranks)).epsilon(0.03));
}

TEST_CASE("flow collectives: an all-to-all loads each link as its pairwise exchange, in n x N flows") {
  // 16 ranks on 2 nodes, S = 1 per rank: each rank sends S/16 to each of 15 peers, 7/16 inside
  // its node and 8/16 to the other node, all of it on its own rail (PXN).
  const ClusterSpec cluster = h100_cluster(16);
  const FlowNetwork network(cluster, default_comm_profile(cluster));
  const std::vector<std::int64_t> ranks = iota(16);
  std::vector<Transfer> transfers;
  append_all_to_all(network, ranks, 1.0, transfers);
  REQUIRE(transfers.size() == 32);  // per rank: its node's next rank, and its position on the other node
  std::vector<double> sent(16, 0.0), received_from_other_node(16, 0.0);
  for (const Transfer& t : transfers) {
    sent[static_cast<std::size_t>(t.src)] += t.bytes;
    const bool across = t.src / 8 != t.dst / 8;
    if (across) {
      CHECK(t.dst % 8 == t.src % 8);  // rail-aligned
      received_from_other_node[static_cast<std::size_t>(t.dst)] += t.bytes;
    }
  }
  for (std::size_t r = 0; r < 16; ++r) {
    CHECK(sent[r] == doctest::Approx(15.0 / 16.0));
    CHECK(received_from_other_node[r] == doctest::Approx(8.0 / 16.0));
  }
  // Nodes of unequal shares: the pairwise exchange.
  transfers.clear();
  append_all_to_all(network, std::vector<std::int64_t>{0, 1, 2, 8}, 1.0, transfers);
  CHECK(transfers.size() == 12);
}

TEST_CASE("flow collectives: a 2-node ring runs 8 rail-aligned channels in 32 flow classes") {
  // 16 ranks, 8 per node: 8 channels of S/8. Inside a node the 7 NVLink hops of each channel
  // reuse 8 (src, dst) pairs, so 8 x 7 hops merge into 8 weighted tasks per node; each channel
  // crosses between the nodes twice on its own rail: 16 + 16 transfers, plus start and end.
  // Bandwidth: a NIC carries one channel, 2 x 15/16 x S/8 at 47 GB/s; a GPU's NVLink uplink 7
  // channels at 369 GB/s shared: the NIC binds. 1 GiB: 1.875 x 2^30 / 8 / 47e9 = 5.354 ms.
  const ClusterSpec cluster = h100_cluster(16);
  const std::vector<std::int64_t> ranks = iota(16);
  const double bytes = 1024 * kMiB;
  const Lowered lowered =
      run_flow(cluster, {.op = CollectiveOp::all_reduce, .bytes = bytes, .ranks = ranks, .algorithm = FlowAlgorithm::ring});
  CHECK(lowered.tasks == 34);
  const double latency = collective_protocol(CollectiveOp::all_reduce, bytes, {.ranks = 16, .ranks_per_node = 8}, cluster,
                                              default_comm_profile(cluster)).latency_s;
  // 8 us launch + 14 NVLink hops x 0.4 us + 2 tree levels x 5.5 us.
  CHECK(latency == relative(8e-6 + 14 * 0.4e-6 + 2 * 5.5e-6));
  CHECK(lowered.seconds == relative(latency + 2.0 * 15.0 / 16.0 * bytes / 8.0 / 47e9).epsilon(1e-4));
}

TEST_CASE("flow collectives: NVLS inside a node and NCCL's tree across nodes, as the analytic model assumes") {
  // 8 H100: each GPU pushes S into the NVSwitch and takes S back at the profile's NVLS rate
  // (algbw = NVLink x nvls_algbw_efficiency), faster than a ring's 369 GB/s / 1.75.
  const double bytes = 1024 * kMiB;
  const ClusterSpec node = h100_cluster(8);
  const CommProfile p = default_comm_profile(node);
  REQUIRE(450e9 * p.nvls_algbw_efficiency > 450e9 * p.nvlink_efficiency / 1.75);
  const double nvls_s = bytes / (450e9 * p.nvls_algbw_efficiency);
  const Lowered nvls = run_flow(node, {.op = CollectiveOp::all_reduce, .bytes = bytes, .ranks = iota(8)});
  CHECK(nvls.tasks == 2 + 16);  // up and down per GPU
  CHECK(nvls.seconds == relative(8e-6 + 14 * 0.4e-6 + nvls_s).epsilon(1e-4));
  // 16 ranks on 2 nodes: NVLS inside each node while each rail moves 2 x 1/2 x S/8 between the
  // nodes at 47 GB/s x tree efficiency. The two stages are pipelined at the soft minimum of their
  // rates, (inside^-p + between^-p)^(-1/p) with the profile's exponent p; with the plain minimum
  // (p = 0) the slower of the two sets the time.
  const ClusterSpec two = h100_cluster(16);
  const double between_s = bytes / 8.0 / (47e9 * p.tree_efficiency);
  REQUIRE(p.tree_coupling_exponent == 3.0);
  const double coupled_s = std::cbrt(std::pow(nvls_s, 3.0) + std::pow(between_s, 3.0));
  const Lowered tree = run_flow(two, {.op = CollectiveOp::all_reduce, .bytes = bytes, .ranks = iota(16)});
  CHECK(tree.seconds == relative(8e-6 + 14 * 0.4e-6 + 2 * 5.5e-6 + coupled_s).epsilon(1e-4));
  CommProfile plain = p;
  plain.tree_coupling_exponent = 0.0;
  const Lowered plain_tree = run_flow(two, {.op = CollectiveOp::all_reduce, .bytes = bytes, .ranks = iota(16)}, plain);
  CHECK(plain_tree.seconds == relative(8e-6 + 14 * 0.4e-6 + 2 * 5.5e-6 + std::max(nvls_s, between_s)).epsilon(1e-4));
  CHECK_THROWS_AS(run_flow(two, {.op = CollectiveOp::all_reduce, .bytes = bytes, .ranks = iota(16),
                                 .algorithm = FlowAlgorithm::nvls}),
                  std::invalid_argument);
}

TEST_CASE("flow collectives: hierarchical all-reduce runs its three phases one after the other") {
  // 16 ranks on 2 nodes, 1 GiB. Reduce-scatter in each node: 7/8 S over NVLink at 369 GB/s;
  // all-reduce per rail on S/8 across 2 nodes: 2 x 1/2 x S/8 at 47 GB/s; all-gather: 7/8 S again.
  const ClusterSpec cluster = h100_cluster(16);
  const std::vector<std::int64_t> ranks = iota(16);
  const double bytes = 1024 * kMiB;
  const double nvlink = 450e9 * 0.82, nic = 50e9 * 0.94;
  const double expected = 8e-6 + 14 * 0.4e-6 + 2 * 5.5e-6 + 2.0 * 7.0 / 8.0 * bytes / nvlink + bytes / 8.0 / nic;
  const double flow =
      run_flow(cluster, {.op = CollectiveOp::all_reduce, .bytes = bytes, .ranks = ranks, .algorithm = FlowAlgorithm::hierarchical})
          .seconds;
  CHECK(flow == relative(expected).epsilon(1e-4));
  CHECK_THROWS_AS(run_flow(cluster, {.op = CollectiveOp::all_gather, .bytes = bytes, .ranks = ranks,
                                     .algorithm = FlowAlgorithm::hierarchical}),
                  std::invalid_argument);
}

TEST_CASE("flow collectives: two rings that share a NIC split it") {
  // Ranks 0 and 8 sit on rail 0 of nodes 0 and 1. An all-gather over them and a send 0 -> 8 run
  // at once: both move 0 -> 8 over the same rail-0 NIC, so each gets half of its 47 GB/s.
  const ClusterSpec cluster = h100_cluster(16);
  const CommProfile profile = default_comm_profile(cluster);
  FlowNetwork network(cluster, profile);
  FlowLowering lowering(network, 0);
  sim::TaskGraph graph;
  const std::vector<std::int64_t> pair{0, 8};
  const double bytes = 470e6;  // all-gather: each rank sends 1/2 x 470 MB = 235 MB; the send 235 MB
  lower_collective(graph, lowering, {.op = CollectiveOp::all_gather, .bytes = bytes, .ranks = pair}, cluster, profile);
  lower_collective(graph, lowering, {.op = CollectiveOp::send_recv, .bytes = bytes / 2.0, .ranks = pair}, cluster,
                   profile);
  const double makespan = sim::Engine(network.resources()).run(graph).makespan.seconds();
  // Both flows 0 -> 8 through the one 47 GB/s NIC: the gather's 235 MB and the send's 235 MB at
  // its 0.958 share of the rate (as 245.3 MB), 10.2 ms once the first starts, the gather (its
  // Simple protocol's 25.2 us against the send's 29.9 us through the network proxy).
  const CommGroup pair_group{.ranks = 2, .ranks_per_node = 1};
  const double send_latency = collective_protocol(CollectiveOp::send_recv, bytes / 2.0, pair_group, cluster, profile).latency_s;
  const double gather_latency = collective_protocol(CollectiveOp::all_gather, bytes, pair_group, cluster, profile).latency_s;
  CHECK(gather_latency == doctest::Approx(25.2e-6));
  CHECK(send_latency == doctest::Approx(29.9e-6));
  CHECK(makespan == relative(gather_latency + (235e6 + 235e6 / 0.958) / 47e9).epsilon(1e-3));
}

TEST_CASE("flow collectives: a send to another node's other rail goes by PXN, so a ring of sends keeps the NIC rate") {
  // sendrecv_perf's ring over 4 nodes of 8 (rank r sends to r + 1): the hops 7 -> 8, 15 -> 16, ...
  // leave rail 7 for rail 0. NCCL's PXN moves each over NVLink to the sender node's rail-0 GPU and
  // out through its NIC, so every hop stays on its rail's leaf and runs at one NIC's rate, as
  // Together AI's 2- and 4-node B200 logs measured alike (42.6 and 44.2 GB/s at 64 MiB,
  // calibration/published/b200_*_sendrecv_together.txt). Through rail 7 the four hops would cross
  // the spines to rail 0 and collide on their ECMP routes.
  // The 4 nodes of a 64-node cluster (Together's had 75), whose rail switches meet at 8 spines.
  const ClusterSpec cluster = h100_cluster(512);
  const CommProfile profile = default_comm_profile(cluster);
  FlowNetwork network(cluster, profile);
  CHECK(network.pxn_relay(7, 8) == 0);        // node 0's GPU at rank 8's place
  CHECK(network.pxn_relay(15, 24) == 8);      // node 1's, for node 3's place 0
  CHECK(!network.pxn_relay(0, 8).has_value());  // the same rail: its own NIC
  CHECK(!network.pxn_relay(0, 7).has_value());  // the same node: NVLink
  {
    // Trays of 4 in NVLink domains of 72: a send between trays of one domain stays on NVLink.
    ClusterSpec racks = h100_cluster(144);
    racks.gpus_per_node = 4;
    racks.nics_per_node = 4;
    racks.nvlink_domain_gpus = 72;
    const FlowNetwork rack_network(racks, default_comm_profile(racks));
    CHECK(!rack_network.pxn_relay(3, 4).has_value());
    // Across domains: the GPU of the sender's domain on the receiver's rail (the flow network takes
    // a domain's GPUs as one node's, one NIC each: rank 72 is its domain's place 0).
    CHECK(rack_network.pxn_relay(71, 72) == 0);
  }
  FlowLowering lowering(network, 0);
  sim::TaskGraph graph;
  const double bytes = 64.0 * 1048576.0;
  for (std::int64_t r = 0; r < 32; ++r) {
    const std::vector<std::int64_t> pair{r, (r + 1) % 32};
    lower_collective(graph, lowering, {.op = CollectiveOp::send_recv, .bytes = bytes, .ranks = pair}, cluster, profile);
  }
  const double makespan = sim::Engine(network.resources()).run(graph).makespan.seconds();
  // As one hop alone, at the analytic model's price of a send between two nodes.
  const double one_hop =
      collective_time_s(CollectiveOp::send_recv, bytes, {.ranks = 2, .ranks_per_node = 1}, cluster, profile);
  CHECK(makespan == relative(one_hop).epsilon(1e-3));
}
