#include "models/comm/collectives.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

using test::h100_cluster;

}  // namespace

TEST_CASE("collective latency: a ring over n ranks on N nodes pays n - 1 hops, N - 1 of them across the network") {
  const ClusterSpec cluster = h100_cluster(32);
  const CommProfile profile = default_comm_profile(cluster);
  // 32 ranks on 4 nodes: 31 ring neighbours, 3 of them on another node.
  const LatencySteps gather = latency_steps(CollectiveOp::all_gather, {.ranks = 32, .ranks_per_node = 8}, cluster, profile);
  CHECK(gather.nvlink == 28.0);
  CHECK(gather.network == 3.0);
  // One rank per node: a ring (the tree's extra hop buys nothing), reduce-scatter then all-gather.
  const LatencySteps ring = latency_steps(CollectiveOp::all_reduce, {.ranks = 4, .ranks_per_node = 1}, cluster, profile);
  CHECK(ring.nvlink == 0.0);
  CHECK(ring.network == 6.0);
  // Inside one node: 7 hops per pass.
  const LatencySteps node = latency_steps(CollectiveOp::all_reduce, {.ranks = 8, .ranks_per_node = 8}, cluster, profile);
  CHECK(node.nvlink == 14.0);
  CHECK(node.network == 0.0);
}

TEST_CASE("collective latency: an all-reduce across NVLS nodes keeps NCCL's tree") {
  const ClusterSpec cluster = h100_cluster(64);
  const CommProfile profile = default_comm_profile(cluster);
  const CommGroup group{.ranks = 64, .ranks_per_node = 8};
  REQUIRE(all_reduce_uses_tree(group, cluster, profile));
  const LatencySteps tree = latency_steps(CollectiveOp::all_reduce, group, cluster, profile);
  CHECK(tree.nvlink == 14.0);  // 2 x (8 - 1): the node's reduce and broadcast
  CHECK(tree.network == 6.0);  // 2 x log2(8) tree levels
  const LatencySteps p2p = latency_steps(CollectiveOp::send_recv, {.ranks = 2, .ranks_per_node = 1}, cluster, profile);
  CHECK(p2p.network == 1.0);
  CHECK(p2p.nvlink == 0.0);
}

TEST_CASE("collective latency: NCCL's tuner takes LL for small rings, LL128 for mid sizes, Simple for bulk") {
  // 8 H100 in one node, all-gather: 7 NVLink hops, bus bandwidth 0.82 x 450 = 369 GB/s.
  // LL: 8 + 7 x 0.4 = 10.8 us at 369/3 GB/s; LL128: + 6.4 + 7 x 1.43 = 27.21 us at 0.92 x 369;
  // Simple: + 4.8 + 7 x 2.93 = 36.11 us at 369 GB/s (NCCL v2.8.4 tuning.cc's differences).
  const ClusterSpec cluster = h100_cluster(8);
  const CommProfile profile = default_comm_profile(cluster);
  const CommGroup node{.ranks = 8, .ranks_per_node = 8};
  auto protocol = [&](double bytes) { return collective_protocol(CollectiveOp::all_gather, bytes, node, cluster, profile); };
  // 64 KiB: 7/8 x 65536 B = 57344 B; LL 10.8 + 0.466 us beats LL128's 27.38 us.
  CHECK(protocol(65536).latency_s == doctest::Approx(10.8e-6));
  CHECK(protocol(65536).bandwidth_fraction == doctest::Approx(1.0 / 3.0));
  // 16 MiB: 14.68 MB; LL 10.8 + 119.4 us, LL128 27.21 + 43.3 us, Simple 36.11 + 39.8 us: LL128.
  CHECK(protocol(16 * 1048576.0).latency_s == doctest::Approx(27.21e-6));
  CHECK(protocol(16 * 1048576.0).bandwidth_fraction == doctest::Approx(0.92));
  // 1 GiB: Simple's full bandwidth wins (2546 us of bandwidth term; LL128 adds 221 us).
  CHECK(protocol(1073741824.0).latency_s == doctest::Approx(36.11e-6));
  CHECK(protocol(1073741824.0).bandwidth_fraction == 1.0);
  CHECK(collective_time_s(CollectiveOp::all_gather, 1073741824.0, node, cluster, profile) ==
        doctest::Approx(36.11e-6 + 939524096.0 / 369e9));
}

TEST_CASE("collective latency: a ring across many nodes pays LL128's or Simple's latency at every hop") {
  // 1,536 A100 on 192 nodes of 8 x 200 Gb/s HDR: 1,344 NVLink and 191 network ring steps; bus
  // bandwidth 8 x 25 GB/s x 0.94 = 188 GB/s. LL line: 8 + 1344 x 0.4 + 191 x 5.5 = 1596.1 us.
  // LL128 adds 6.4 + 1344 x 1.43 + 191 x 1.3 = 2176.6 us: 3772.7 us; Simple adds 4.8 + 1344 x
  // 2.93 + 191 x 6.9 = 5260.6 us: 6856.7 us (NCCL's own tuner: 8.4 + 1344 x 3.4 + 191 x 9.6 = 6411 us).
  const ClusterSpec cluster{.gpu = test::a100(), .num_gpus = 1536, .gpus_per_node = 8, .nic_bytes_per_s = 25e9, .nics_per_node = 8};
  const CommProfile profile = default_comm_profile(cluster);
  const CommGroup all{.ranks = 1536, .ranks_per_node = 8};
  // 2.4 GB (a 175B layer's fused QKV, 16-bit): 12.76 ms of bandwidth term; LL128's 8 % lower rate
  // costs 1.11 ms, less than Simple's 3.08 ms more latency.
  const Protocol mid = collective_protocol(CollectiveOp::all_gather, 2.4e9, all, cluster, profile);
  CHECK(mid.latency_s == doctest::Approx(3772.7e-6));
  CHECK(mid.bandwidth_fraction == doctest::Approx(0.92));
  // 16 GB: 85 ms of bandwidth term; LL128's rate would cost 7.4 ms: Simple.
  const Protocol bulk = collective_protocol(CollectiveOp::all_gather, 16e9, all, cluster, profile);
  CHECK(bulk.latency_s == doctest::Approx(6856.7e-6));
  CHECK(bulk.bandwidth_fraction == 1.0);
  // Send/receive keeps the line, and across nodes adds the network proxy's round trips (16.4 us)
  // and runs at 0.958 of a ring's rate (CommProfile::p2p_network_*).
  const Protocol send =
      collective_protocol(CollectiveOp::send_recv, 2.4e9, {.ranks = 2, .ranks_per_node = 1}, cluster, profile);
  CHECK(send.latency_s == doctest::Approx(8e-6 + 5.5e-6 + 16.4e-6));
  CHECK(send.bandwidth_fraction == doctest::Approx(0.958));
  CHECK(collective_protocol(CollectiveOp::send_recv, 2.4e9, {.ranks = 2, .ranks_per_node = 2}, cluster, profile)
            .latency_s == doctest::Approx(8e-6 + 0.4e-6));
}
