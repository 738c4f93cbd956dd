#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "topologies/analysis.hpp"
#include "topologies/topology.hpp"
#include "tests/topologies/topology_fixtures.hpp"

using namespace clustersim::topologies;
using clustersim::topologies::test::one_gpu_server;

TEST_CASE("topologies: a k=4 three-tier fat tree has 16 hosts and 20 switches") {
  // Al-Fares k-ary fat tree, k = 4: k pods of k/2 edge + k/2 aggregation switches = 16, plus
  // (k/2)^2 = 4 cores: 20 switches for k^3/4 = 16 hosts. Cables: 16 host, 16 edge-agg, 16 agg-core
  // (3N), plus one PCIe cable per one-GPU server.
  const Network net = build_fat_tree({.node = one_gpu_server(), .nodes = 16, .tiers = 3, .switch_radix = 4});
  const NetworkCounts c = count_elements(net);
  CHECK(c.of(NodeKind::gpu) == 16);
  CHECK(c.of(NodeKind::nic) == 16);
  CHECK(c.of(NodeKind::nvswitch) == 0);
  CHECK(c.of(NodeKind::leaf) == 8);
  CHECK(c.of(NodeKind::spine) == 8);
  CHECK(c.of(NodeKind::core) == 4);
  CHECK(c.switches == 20);
  CHECK(c.cables_of(LinkTier::host) == 16);
  CHECK(c.cables_of(LinkTier::leaf_spine) == 16);
  CHECK(c.cables_of(LinkTier::spine_core) == 16);
  CHECK(c.cables_of(LinkTier::pcie) == 16);
  CHECK(c.links_of(LinkTier::spine_core) == 32);
  // Every switch uses exactly its 4 ports.
  for (NodeId id = 0; id < net.node_count(); ++id) {
    if (is_switch(net.node(id).kind)) CHECK(net.out_links(id).size() == 4);
  }
}

TEST_CASE("topologies: two-tier fat trees size leaves and spines from radix and oversubscription") {
  // k = 4, 1:1: leaves have 2 down + 2 up, 8 hosts -> 4 leaves, 4*2/4 = 2 spines (k^2/2 = 8 hosts).
  const Network full = build_fat_tree({.node = one_gpu_server(), .nodes = 8, .switch_radix = 4});
  CHECK(full.count(NodeKind::leaf) == 4);
  CHECK(full.count(NodeKind::spine) == 2);
  CHECK(full.cable_count(LinkTier::leaf_spine) == 8);
  // k = 6, 2:1: up = floor(6/3) = 2, down = 4; 16 hosts -> 4 leaves, 8 uplinks -> ceil(8/6) = 2 spines.
  const Network over = build_fat_tree(
      {.node = one_gpu_server(), .nodes = 16, .switch_radix = 6, .leaf_oversubscription = 2.0});
  CHECK(over.count(NodeKind::leaf) == 4);
  CHECK(over.count(NodeKind::spine) == 2);
  CHECK(over.cable_count(LinkTier::host) == 16);
  CHECK(over.cable_count(LinkTier::leaf_spine) == 8);
  // Reference 2.4: two tiers of k = 64 hold k^2/2 = 2,048 endpoints in 3N/k = 96 switches.
  const Network big = build_fat_tree({.nodes = 256});
  CHECK(big.nic_count() == 2048);
  CHECK(big.count(NodeKind::leaf) == 64);
  CHECK(big.count(NodeKind::spine) == 32);
  CHECK(big.count(NodeKind::leaf) + big.count(NodeKind::spine) == 3 * 2048 / 64);
  // One more server needs a 65th leaf: too many for two tiers.
  CHECK_THROWS_WITH_AS(build_fat_tree({.nodes = 257}), doctest::Contains("use three tiers"), std::invalid_argument);
  CHECK_THROWS_AS(build_fat_tree({.tiers = 4}), std::invalid_argument);
}

TEST_CASE("topologies: a rail-optimized 4-node cluster puts NIC i of every node on leaf i") {
  // 4 HGX nodes, one SU of 4, radix 8: 8 rail leaves with 4 down + 4 up; 8 <= radix leaves, so
  // two tiers with 8*4/8 = 4 spines. 32 GPUs, 4 NVSwitches, 32 NICs; switches 4 + 8 + 4 = 16.
  // Cables: 32 NVLink, 32 PCIe, 32 NIC-leaf, 32 leaf-spine (each leaf one cable to each spine).
  const Network net = build_rail_optimized({.nodes = 4, .su_nodes = 4, .switch_radix = 8});
  const NetworkCounts c = count_elements(net);
  CHECK(c.of(NodeKind::gpu) == 32);
  CHECK(c.of(NodeKind::nvswitch) == 4);
  CHECK(c.of(NodeKind::nic) == 32);
  CHECK(c.of(NodeKind::leaf) == 8);
  CHECK(c.of(NodeKind::spine) == 4);
  CHECK(c.switches == 16);
  CHECK(c.cables_of(LinkTier::nvlink) == 32);
  CHECK(c.cables_of(LinkTier::pcie) == 32);
  CHECK(c.cables_of(LinkTier::host) == 32);
  CHECK(c.cables_of(LinkTier::leaf_spine) == 32);
  for (const Link& l : net.links()) {
    if (l.tier != LinkTier::host || net.node(l.from).kind != NodeKind::nic) continue;
    CHECK(net.node(l.to).name == "su0.leaf" + std::to_string(net.node(l.from).index % 8));
  }
  // Ranks: TP inside a node first.
  CHECK(net.node(net.gpu_of_rank(0)).name == "n0.gpu0");
  CHECK(net.node(net.gpu_of_rank(9)).name == "n1.gpu1");
}

TEST_CASE("topologies: rail-optimized switch counts match the DGX SuperPOD tables") {
  // B200 RA (reference 2.1): 4 SUs = 128 nodes: 32 leaves, 16 spines, 1,024 node-leaf and 1,024
  // leaf-spine cables. 16 SUs = 512 nodes: 128 leaves, 128 spines, 64 cores, 4,096 cables per tier.
  const Network four = build_rail_optimized({.nodes = 128});
  CHECK(four.count(NodeKind::leaf) == 32);
  CHECK(four.count(NodeKind::spine) == 16);
  CHECK(four.count(NodeKind::core) == 0);
  CHECK(four.cable_count(LinkTier::host) == 1024);
  CHECK(four.cable_count(LinkTier::leaf_spine) == 1024);
  const Network sixteen = build_rail_optimized({.nodes = 512});
  CHECK(sixteen.count(NodeKind::leaf) == 128);
  CHECK(sixteen.count(NodeKind::spine) == 128);
  CHECK(sixteen.count(NodeKind::core) == 64);
  CHECK(sixteen.cable_count(LinkTier::host) == 4096);
  CHECK(sixteen.cable_count(LinkTier::leaf_spine) == 4096);
  CHECK(sixteen.cable_count(LinkTier::spine_core) == 4096);
  // H100 RA SU1: 31 nodes still get 8 leaves and 4 spines with 256 leaf-spine cables.
  const Network su1 = build_rail_optimized({.nodes = 31});
  CHECK(su1.count(NodeKind::leaf) == 8);
  CHECK(su1.count(NodeKind::spine) == 4);
  CHECK(su1.cable_count(LinkTier::leaf_spine) == 256);
  CHECK(su1.cable_count(LinkTier::host) == 248);
  // A 2:1 leaf halves the uplinks: 4 SUs -> 32 leaves x 16 up = 512 cables on 8 spines.
  const Network half = build_rail_optimized({.nodes = 128, .leaf_oversubscription = 2.0});
  CHECK(half.count(NodeKind::spine) == 8);
  CHECK(half.cable_count(LinkTier::leaf_spine) == 512);
  CHECK_THROWS_AS(build_rail_optimized({.su_nodes = 40}), std::invalid_argument);  // 40 + 40 > 64 ports
}

TEST_CASE("topologies: a maximal dragonfly p=2 a=4 h=2 has one global cable per group pair") {
  // g = a h + 1 = 9 groups, 36 routers of radix p + a - 1 + h = 7; terminals a p g = 72.
  // Local cables g a(a-1)/2 = 54; global cables g a h / 2 = 36 = C(9, 2).
  const DragonflySpec spec{.node = one_gpu_server(), .terminals_per_router = 2, .routers_per_group = 4,
                           .global_per_router = 2, .groups = 9};
  const Network net = build_dragonfly(spec);
  CHECK(net.count(NodeKind::router) == 36);
  CHECK(net.count(NodeKind::gpu) == 72);
  CHECK(net.cable_count(LinkTier::host) == 72);
  CHECK(net.cable_count(LinkTier::local) == 54);
  CHECK(net.cable_count(LinkTier::global) == 36);
  CHECK(net.group_count() == 9);
  CHECK(dragonfly_cables_per_group_pair(spec) == 1);
  for (NodeId id = 0; id < net.node_count(); ++id) {
    if (net.node(id).kind == NodeKind::router) CHECK(net.out_links(id).size() == 7);
  }
  CHECK_THROWS_WITH_AS(build_dragonfly({.node = one_gpu_server(), .terminals_per_router = 2, .routers_per_group = 4,
                                        .global_per_router = 2, .groups = 10}),
                       doctest::Contains("g <= a h + 1"), std::invalid_argument);
}

TEST_CASE("topologies: a 4x4 torus has degree 4 and 32 torus cables") {
  // k = 4, n = 2: 16 routers, each with 2n = 4 torus links, 16 * 4 / 2 = 32 cables.
  const Network net = build_torus({.node = one_gpu_server(), .dims = {4, 4}});
  CHECK(net.count(NodeKind::router) == 16);
  CHECK(net.count(NodeKind::gpu) == 16);
  CHECK(net.cable_count(LinkTier::torus) == 32);
  CHECK(net.cable_count(LinkTier::host) == 16);
  for (NodeId id = 0; id < net.node_count(); ++id) {
    if (net.node(id).kind == NodeKind::router) CHECK(net.out_links(id).size() == 5);  // 4 torus + 1 host
  }
  // 3-D 2x2x2: a dimension of 2 gets two parallel cables, so still 3 * 8 = 24 cables.
  CHECK(build_torus({.node = one_gpu_server(), .dims = {2, 2, 2}}).cable_count(LinkTier::torus) == 24);
  // A ring of 8: 8 cables.
  const Network ring = build_ring({.node = one_gpu_server(), .nodes = 8});
  CHECK(ring.kind() == TopologyKind::ring);
  CHECK(ring.cable_count(LinkTier::torus) == 8);
  CHECK_THROWS_AS(build_torus({.dims = {2, 2, 2, 2}}), std::invalid_argument);
}

TEST_CASE("topologies: build_network dispatches every spec alternative") {
  // One spec of each kind; the network's kind says which builder ran.
  const TopologySpec specs[] = {
      NodeSpec{}, FatTreeSpec{.nodes = 4}, RailOptimizedSpec{.nodes = 4},
      DragonflySpec{.node = one_gpu_server(), .terminals_per_router = 1, .routers_per_group = 2,
                    .global_per_router = 1, .groups = 3},
      TorusSpec{.node = one_gpu_server()}, RingSpec{.node = one_gpu_server()}};
  const TopologyKind kinds[] = {TopologyKind::single_node, TopologyKind::fat_tree, TopologyKind::rail_optimized,
                                TopologyKind::dragonfly,   TopologyKind::torus,    TopologyKind::ring};
  for (std::size_t i = 0; i < std::size(specs); ++i) {
    const Network net = build_network(specs[i]);
    CHECK(net.kind() == kinds[i]);
    CHECK(net.finalized());
    CHECK(net.gpus().size() >= 1);
  }
}
