#include "models/comm/cluster_topology.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"
#include "topologies/analysis.hpp"

using namespace clustersim;

namespace {

models::ClusterSpec cluster(models::TopologyKind kind, std::int64_t gpus) {
  return {.gpu = models::test::h100(), .num_gpus = gpus, .gpus_per_node = 8, .nic_bytes_per_s = 50e9,
          .nics_per_node = 8, .topology = kind};
}

}  // namespace

TEST_CASE("cluster topology: 256 H100 rail-optimized is one SuperPOD unit at full bisection") {
  // 32 nodes x 8 rails = 256 NICs of 50 GB/s: half the GPUs send to the other half at
  // 128 x 50 GB/s = 6.4 TB/s through a non-blocking fabric.
  const auto spec = models::topology_spec(cluster(models::TopologyKind::rail_optimized, 256));
  const auto network = topologies::build_network(spec);
  CHECK(network.gpus().size() == 256);
  CHECK(topologies::bisection_bytes_per_s(network) == doctest::Approx(6.4e12));
  CHECK(topologies::closed_form_bisection_bytes_per_s(spec) == doctest::Approx(6.4e12));
}

TEST_CASE("cluster topology: a 2:1 oversubscribed fat-tree about halves the bisection") {
  // 64-port leaves split 2:1 as 42 down, 21 up. Ranks 0-127 fill leaves 0-2 (126 NICs) and 2 ports
  // of leaf 3. Leaves 0-2 send through their 3 x 21 uplinks of 50 GB/s = 3.15 TB/s; the 2 NICs
  // on leaf 3 reach second-half NICs on the same leaf, 2 x 50 GB/s more: 3.25 TB/s.
  auto c = cluster(models::TopologyKind::fat_tree, 256);
  c.oversubscription = 2.0;
  const auto network = topologies::build_network(models::topology_spec(c));
  CHECK(topologies::bisection_bytes_per_s(network) == doctest::Approx(3.25e12));
}

TEST_CASE("cluster topology: a dragonfly is sized to the smallest balanced group that fits") {
  // 256 NICs: p = 4 gives groups of a p = 8 x 4 = 32 NIC ports, 8 groups (at most 2p^2 + 1 = 33).
  const auto spec = models::topology_spec(cluster(models::TopologyKind::dragonfly, 256));
  const auto& dragonfly = std::get<topologies::DragonflySpec>(spec);
  CHECK(dragonfly.terminals_per_router == 4);
  CHECK(dragonfly.routers_per_group == 8);
  CHECK(dragonfly.groups == 8);
  // 264 GPUs = 33 nodes do not fill whole groups of 4 nodes.
  CHECK_THROWS_AS(models::topology_spec(cluster(models::TopologyKind::dragonfly, 264)), std::invalid_argument);
}

TEST_CASE("cluster topology: a dragonfly of NVL72 racks counts every tray's NICs of a rack") {
  // Two GB200 NVL72 racks: a rack is one server of 18 trays x 4 NICs = 72 NIC ports. The smallest
  // balanced group holding whole racks is p = 6 (a p = 12 x 6 = 72 ports): one rack a group, 2 groups.
  auto c = models::test::gb200_cluster(144);
  c.topology = models::TopologyKind::dragonfly;
  const auto spec = models::topology_spec(c);
  const auto& dragonfly = std::get<topologies::DragonflySpec>(spec);
  CHECK(dragonfly.node.nics_per_node == 72);
  CHECK(dragonfly.terminals_per_router == 6);
  CHECK(dragonfly.routers_per_group == 12);
  CHECK(dragonfly.groups == 2);
  const auto network = topologies::build_network(spec);
  CHECK(network.gpus().size() == 144);
}

TEST_CASE("cluster topology: a fat tree of NVL72 racks counts every tray's NICs toward its tiers") {
  // 32 GB200 racks x 72 NICs = 2,304 ports, past the 32 x 64 = 2,048 two tiers of 64-port switches
  // at 1:1 reach (36,864 GPUs would be needed at 4 NICs a rack).
  auto c = models::test::gb200_cluster(2304);
  c.topology = models::TopologyKind::fat_tree;
  const auto spec = models::topology_spec(c);
  CHECK(std::get<topologies::FatTreeSpec>(spec).tiers == 3);
  CHECK(topologies::build_network(spec).gpus().size() == 2304);
  c.num_gpus = 1872;  // 26 racks, 1,872 ports: two tiers hold them
  CHECK(std::get<topologies::FatTreeSpec>(models::topology_spec(c)).tiers == 2);
}

TEST_CASE("cluster topology: a torus of 32 nodes is 4 x 8") {
  const auto spec = models::topology_spec(cluster(models::TopologyKind::torus, 256));
  CHECK(std::get<topologies::TorusSpec>(spec).dims == std::vector<std::int64_t>{4, 8});
}
