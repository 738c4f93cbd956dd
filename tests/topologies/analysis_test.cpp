#include "topologies/analysis.hpp"

#include <doctest/doctest.h>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"
#include "tests/topologies/topology_fixtures.hpp"

using namespace clustersim::topologies;
using namespace clustersim::topologies::test;

namespace {
const LinkSpec hdr_link{.link_class = LinkClass::infiniband_hdr};

// Max-flow on the built graph next to the spec's closed form.
void check_bisection(const TopologySpec& spec, double expected) {
  const Network net = build_network(spec);
  CHECK(closed_form_bisection_bytes_per_s(spec) == doctest::Approx(expected));
  CHECK(bisection_bytes_per_s(net) == doctest::Approx(expected));
}
}  // namespace

TEST_CASE("topologies: max-flow bisection equals the closed form for full and 2:1 fat trees") {
  // Full bisection, k = 4, two tiers, 8 hosts: N/2 x b = 4 x 50 GB/s = 200 GB/s.
  check_bisection(FatTreeSpec{.node = one_gpu_server(), .nodes = 8, .switch_radix = 4}, 4 * ndr);
  // k = 4, three tiers, 16 hosts: N/2 x b = 400 GB/s; host, edge-uplink and agg-uplink cuts all 8 b.
  check_bisection(FatTreeSpec{.node = one_gpu_server(), .nodes = 16, .tiers = 3, .switch_radix = 4}, 8 * ndr);
  // 2:1 leaves, k = 6, 16 hosts on 4 leaves of 4 down + 2 up: the first two leaves' 4 uplinks carry
  // N/2 x b / 2 = 200 GB/s.
  check_bisection(FatTreeSpec{.node = one_gpu_server(), .nodes = 16, .switch_radix = 6,
                              .leaf_oversubscription = 2.0},
                  4 * ndr);
  // 2:1 at the edge of a k = 4 three-tier tree (1 up, 2 down): 8 leaves, 4 of them in the first
  // half with one uplink each: 200 GB/s.
  check_bisection(FatTreeSpec{.node = one_gpu_server(), .nodes = 16, .tiers = 3, .switch_radix = 4,
                              .leaf_oversubscription = 2.0},
                  4 * ndr);
  // HGX servers on a 1:1 two-tier tree: 32 nodes x 8 NICs, half of them sending: 128 x 50 GB/s.
  check_bisection(FatTreeSpec{.nodes = 32}, 128 * ndr);
}

TEST_CASE("topologies: max-flow bisection equals the closed form for rail-optimized clusters") {
  // One SU of 4 HGX nodes: the halves meet on the rail leaves; 2 nodes x 8 NICs x 50 GB/s.
  check_bisection(RailOptimizedSpec{.nodes = 4, .su_nodes = 4, .switch_radix = 8}, 16 * ndr);
  // 4 SUs of 4 nodes at 2:1: leaves have 4 down + 2 up, 32 leaves, the first 16 send 16 x 2 x 50.
  check_bisection(RailOptimizedSpec{.nodes = 16, .su_nodes = 4, .switch_radix = 32, .leaf_oversubscription = 2.0},
                  32 * ndr);
  // 16 SuperPOD SUs (512 nodes, three tiers, 1:1): 2,048 NICs x 50 GB/s.
  check_bisection(RailOptimizedSpec{.nodes = 512}, 2048 * ndr);
}

TEST_CASE("topologies: max-flow bisection equals the closed form for a torus, a ring, a node, a dragonfly") {
  // 4x4 torus of HDR links: 2 k^(n-1) = 8 cables cross the middle: 8 x 25 GB/s (injection 8 x 50
  // does not bind).
  check_bisection(TorusSpec{.node = one_gpu_server(), .dims = {4, 4}, .link = hdr_link},
                  8 * hdr);
  // 4x4x4: 2 x 16 = 32 cables.
  check_bisection(TorusSpec{.node = one_gpu_server(), .dims = {4, 4, 4}, .link = hdr_link},
                  32 * hdr);
  // Ring of 8: two cables cross any halving.
  check_bisection(RingSpec{.node = one_gpu_server(), .nodes = 8, .link = hdr_link},
                  2 * hdr);
  // HGX node: 4 GPUs send over NVLink to the other 4: 4 x 450 GB/s.
  check_bisection(NodeSpec{}, 4 * 450e9);
  // Dragonfly p = 2, a = 4, h = 2, g = 8 (one cable per group pair): (g/2)^2 = 16 global cables
  // cross between groups 0-3 and 4-7, below the 32 x 50 GB/s the terminals inject.
  check_bisection(DragonflySpec{.node = one_gpu_server(), .terminals_per_router = 2, .routers_per_group = 4,
                                .global_per_router = 2, .groups = 8},
                  16 * ndr);
}

TEST_CASE("topologies: one failed cable across the cut lowers the max-flow bisection by its rate") {
  // Full-bisection k = 4 fat tree: host cut and leaf-uplink cut are both 4 b. A failed uplink of a
  // first-half leaf leaves 3 b above the leaves: 150 GB/s.
  Network tree = build_fat_tree({.node = one_gpu_server(), .nodes = 8, .switch_radix = 4});
  Router router(tree);
  const LinkId uplink = router.route_ranks(0, 4)[2];
  tree.fail_cable(uplink);
  CHECK(bisection_bytes_per_s(tree) == doctest::Approx(3 * ndr));
  // 4x4 HDR torus: the cable from (1,1) to (1,2) crosses the middle (rank 5 -> rank 9), 8 -> 7 cables.
  Network torus = build_torus({.node = one_gpu_server(), .dims = {4, 4}, .link = hdr_link});
  Router torus_router(torus);
  const auto direct = torus_router.route_ranks(5, 9);
  REQUIRE(direct.size() == 5);
  torus.fail_cable(direct[2]);
  CHECK(bisection_bytes_per_s(torus) == doctest::Approx(7 * hdr));
  CHECK(torus_router.route_ranks(5, 9).size() == 7);  // detour: one hop sideways, across, back
  // A torus cable inside one half changes nothing: (0,0)-(1,0) between ranks 0 and 1.
  torus.restore_all();
  torus.fail_cable(torus_router.route_ranks(0, 1)[2]);
  CHECK(bisection_bytes_per_s(torus) == doctest::Approx(8 * hdr));
}

TEST_CASE("topologies: hop statistics over GPU pairs") {
  // k = 4 three-tier fat tree, from any host: 1 host on its leaf at 4 links, 2 in its pod at 6,
  // 12 in other pods at 8: mean (4 + 12 + 96) / 15 = 112 / 15, diameter 8.
  const Network tree = build_fat_tree({.node = one_gpu_server(), .nodes = 16, .tiers = 3, .switch_radix = 4});
  const HopStats exact = hop_stats(tree);
  CHECK_FALSE(exact.sampled);
  CHECK(exact.sources == 16);
  CHECK(exact.pairs == 16 * 15);
  CHECK(exact.diameter == 8);
  CHECK(exact.mean_hops == doctest::Approx(112.0 / 15.0));
  // Sampling 4 sources (forced by a low threshold) sees the same distribution on this symmetric tree.
  const HopStats sample = hop_stats(tree, {.exact_up_to_gpus = 8, .sampled_sources = 4});
  CHECK(sample.sampled);
  CHECK(sample.sources == 4);
  CHECK(sample.pairs == 4 * 15);
  CHECK(sample.mean_hops == doctest::Approx(112.0 / 15.0));
  // 4x4 torus: diameter n floor(k/2) = 4 router hops + 4 terminal links; per ring the distances
  // from a vertex are 0, 1, 2, 1, so the 15 others are 32 hops away in total: mean 4 + 32/15.
  const HopStats torus = hop_stats(build_torus({.node = one_gpu_server(), .dims = {4, 4}}));
  CHECK(torus.diameter == 8);
  CHECK(torus.mean_hops == doctest::Approx(4.0 + 32.0 / 15.0));
  // Cutting a leaf off the k = 4 fat tree: its 2 hosts lose the 14 others, both ways.
  Network cut = build_fat_tree({.node = one_gpu_server(), .nodes = 16, .tiers = 3, .switch_radix = 4});
  NodeId leaf0 = 0;
  while (cut.node(leaf0).kind != NodeKind::leaf) ++leaf0;
  for (const LinkId l : cut.out_links(leaf0)) {
    if (cut.link(l).tier == LinkTier::leaf_spine) cut.fail_cable(l);
  }
  CHECK(hop_stats(cut).unreachable_pairs == 2 * 14 * 2);
}

TEST_CASE("topologies: max-flow between explicit node sets never forwards through a GPU") {
  // Rail-optimized, 4 HGX nodes. GPU 0 of node 0 to GPU 0 of node 1: only its own NIC leads out
  // (the NVSwitch reaches other GPUs, which do not forward), so min(64 PCIe, 50 NIC) = 50 GB/s.
  // All 8 GPUs of node 0 to all 8 of node 1: 8 rails x 50 GB/s.
  const Network net = build_rail_optimized({.nodes = 4, .su_nodes = 4, .switch_radix = 8});
  const NodeId one_src[] = {net.gpu_of_rank(0)}, one_dst[] = {net.gpu_of_rank(8)};
  CHECK(max_flow_bytes_per_s(net, one_src, one_dst) == doctest::Approx(ndr));
  const auto gpus = net.gpus();
  CHECK(max_flow_bytes_per_s(net, gpus.subspan(0, 8), gpus.subspan(8, 8)) == doctest::Approx(8 * ndr));
  CHECK_THROWS_AS(max_flow_bytes_per_s(net, one_src, one_src), std::invalid_argument);
}
