// NCCL's double binary tree across nodes: what its busiest node moves through the network, and the
// all-reduce rate that follows from it.
#include "models/comm/collectives.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

TEST_CASE("tree traffic: the busiest node of NCCL's double binary tree moves the buffer once on 2 nodes, twice from 4") {
  // Each tree carries half the buffer S: up to the root (reduce), then down (broadcast). A node
  // with a parent and c children sends S/2 up and c x S/2 down. NCCL's trees (src/graph/trees.cc):
  // - 2 nodes: 0 -> 1, mirrored 1 -> 0: each node a root in one tree (sends S/2 down), a leaf in
  //   the other (S/2 up): S;
  // - 3 nodes: 0 -> 2 -> 1, shifted by one 1 -> 0 -> 2: node 2 sends S (one child, a parent) and S/2
  //   as a leaf: 3/2 S;
  // - 4 nodes: 0 -> 2 -> {1, 3}, mirrored 3 -> 1 -> {2, 0}: node 2 sends S/2 + 2 x S/2 in the
  //   first and S/2 as a leaf of the second: 2 S, as node 1 does.
  CHECK(tree_network_bytes_per_byte(2) == 1.0);
  CHECK(tree_network_bytes_per_byte(3) == 1.5);
  CHECK(tree_network_bytes_per_byte(4) == 2.0);
  // The trees grow deeper, never wider: no node gets a third child, so 2 S at any larger count.
  CHECK(tree_network_bytes_per_byte(64) == 2.0);
  CHECK(tree_network_bytes_per_byte(1) == 0.0);
}

TEST_CASE("tree traffic: NVLSTree's rate stays flat from 4 to 64 nodes, as measured on B200") {
  // Together AI's tuned B200 cluster (calibration/published/b200_allreduce_together-flapping-
  // airplanes-scaling.jsonl): 388.4 GB/s busbw on 4 nodes, 389.7 on 64 (0.3 % more), 719.7 on 2.
  // The tree's algbw no longer shrinks with the node count, so busbw only follows the bus factor,
  // 2 (n-1)/n: 1.9375 on 4 nodes, 1.998 on 64 (3.1 % more).
  const CommProfile profile = default_comm_profile(test::h100_cluster(8));
  const auto algbw = [&](std::int64_t nodes) {
    const ClusterSpec cluster = test::h100_cluster(8 * nodes);
    return all_reduce_bus_bandwidth({.ranks = 8 * nodes, .ranks_per_node = 8}, cluster, profile) /
           bus_factor(CollectiveOp::all_reduce, 8 * nodes);
  };
  CHECK(algbw(64) == doctest::Approx(algbw(4)));
  CHECK(algbw(8) == doctest::Approx(algbw(4)));
  const double measured_ratio = 389.72 / 388.4;
  CHECK(algbw(64) * bus_factor(CollectiveOp::all_reduce, 512) / (algbw(4) * bus_factor(CollectiveOp::all_reduce, 32)) ==
        doctest::Approx(measured_ratio).epsilon(0.03));
  // 2 nodes move half as much each: faster, though held by the pipeline with NVLS inside.
  CHECK(algbw(2) > 1.2 * algbw(4));
}
