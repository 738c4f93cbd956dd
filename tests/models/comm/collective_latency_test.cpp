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
