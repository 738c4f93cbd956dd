#include "topologies/routing.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/link_failures.hpp"
#include "topologies/rail_optimized.hpp"
#include "topologies/torus.hpp"
#include "tests/topologies/topology_fixtures.hpp"

using namespace clustersim::topologies;
using namespace clustersim::topologies::test;

namespace {
std::vector<LinkId> copy(std::span<const LinkId> route) { return {route.begin(), route.end()}; }
}  // namespace

TEST_CASE("topologies: routes inside a node, on a rail and across rails") {
  // Rail-optimized, 4 HGX nodes in one SU of 4 (radix 8):
  //   rank 0 -> 1 (same node): GPU -> NVSwitch -> GPU, 2 links;
  //   rank 0 -> 8 (node 1, same rail 0): GPU -> NIC0 -> leaf0 -> NIC0 -> GPU, 4 links, no spine;
  //   rank 0 -> 9 (node 1, rail 1): GPU -> NIC0 -> leaf0 -> spine -> leaf1 -> NIC1 -> GPU, 6 links.
  const Network net = build_rail_optimized({.nodes = 4, .su_nodes = 4, .switch_radix = 8});
  Router router(net);
  const auto nvlink = router.route_ranks(0, 1);
  CHECK(nvlink.size() == 2);
  CHECK(count_tiers(net, nvlink, {LinkTier::nvlink}) == 2);
  const auto rail = router.route_ranks(0, 8);
  CHECK(rail.size() == 4);
  CHECK(switches_on(net, rail).size() == 1);
  const auto cross = router.route_ranks(0, 9);
  REQUIRE(cross.size() == 6);
  CHECK(net.node(net.link(cross[2]).to).kind == NodeKind::spine);
  CHECK(is_path(net, cross, net.gpu_of_rank(0), net.gpu_of_rank(9)));
  // No route transits a GPU (no PXN): only the last link ends at a GPU.
  for (std::size_t i = 0; i + 1 < cross.size(); ++i) CHECK(net.node(net.link(cross[i]).to).kind != NodeKind::gpu);
  CHECK(router.route_ranks(3, 3).empty());
  // Cross-rail: 2 PCIe links at 0.5 us, 4 NDR links at 0.3 us; NDR (50 GB/s) is the bottleneck.
  CHECK(route_latency_s(net, cross) == doctest::Approx(2 * 0.5e-6 + 4 * 0.3e-6));
  CHECK(route_bottleneck_bytes_per_s(net, cross) == ndr);
  CHECK(route_bottleneck_bytes_per_s(net, nvlink) == 450e9);
}

TEST_CASE("topologies: ECMP spreads flows over spines, the same way every time") {
  // Two-tier k = 4 fat tree, 8 hosts on 4 leaves, 2 spines. Rank 0 (leaf 0) -> rank 4 (leaf 2)
  // has two equal-cost routes, one per spine. 64 flows hashed over them use both spines, roughly
  // evenly, and a second router (fresh caches) picks exactly the same routes.
  const Network net = build_fat_tree({.node = one_gpu_server(), .nodes = 8, .switch_radix = 4});
  Router first(net), second(net);
  std::map<NodeId, int> per_spine;
  for (std::uint32_t flow = 0; flow < 64; ++flow) {
    const auto a = copy(first.route_ranks(0, 4, flow));
    CHECK(a == copy(second.route_ranks(0, 4, flow)));
    CHECK(a == copy(first.route_ranks(0, 4, flow)));  // cached
    REQUIRE(a.size() == 6);
    ++per_spine[net.link(a[2]).to];
  }
  CHECK(per_spine.size() == 2);
  for (const auto& [spine, flows] : per_spine) {
    CHECK(net.node(spine).kind == NodeKind::spine);
    CHECK(flows >= 16);  // a fair coin gives < 16 of 64 with probability ~1e-5
  }
  CHECK(first.cached_routes() == 64);
  // A different seed is a different hash: some flow changes spine.
  Router reseeded(net, {.seed = 1});
  int moved = 0;
  for (std::uint32_t flow = 0; flow < 64; ++flow) {
    moved += copy(reseeded.route_ranks(0, 4, flow)) != copy(first.route_ranks(0, 4, flow)) ? 1 : 0;
  }
  CHECK(moved > 0);
}

TEST_CASE("topologies: ECMP in a three-tier fat tree reaches every core") {
  // k = 8: 128 hosts, 16 cores. Between pods a route climbs leaf -> one of 4 spines -> one of
  // that spine's 4 cores, so 256 flows between two pods should use all 16 cores.
  const Network net = build_fat_tree({.node = one_gpu_server(), .nodes = 128, .tiers = 3, .switch_radix = 8});
  CHECK(net.count(NodeKind::core) == 16);
  Router router(net);
  std::set<NodeId> cores;
  for (std::uint32_t flow = 0; flow < 256; ++flow) {
    const auto route = router.route_ranks(0, 127, flow);
    CHECK(route.size() == 8);  // GPU-NIC-leaf-spine-core-spine-leaf-NIC-GPU
    for (const NodeId s : switches_on(net, route)) {
      if (net.node(s).kind == NodeKind::core) cores.insert(s);
    }
  }
  CHECK(cores.size() == 16);
}

TEST_CASE("topologies: a failed cable is routed around, a cut-off pair names both ends") {
  // Two-tier k = 4 fat tree, 8 hosts. Fail the leaf-0 uplink that flow 0 of rank 0 -> 4 uses:
  // the route moves to the other spine and stays 6 links long. Failing leaf 0's other uplink too
  // cuts hosts 0 and 1 off from the rest, but 0 -> 1 (same leaf) still works.
  Network net = build_fat_tree({.node = one_gpu_server(), .nodes = 8, .switch_radix = 4});
  Router router(net);
  const auto before = copy(router.route_ranks(0, 4));
  REQUIRE(before.size() == 6);
  const LinkId uplink = before[2];
  CHECK(net.link(uplink).tier == LinkTier::leaf_spine);
  net.fail_cable(uplink);
  const auto after = copy(router.route_ranks(0, 4));  // the failure epoch drops the cache
  CHECK(after.size() == 6);
  CHECK(after != before);
  CHECK(is_path(net, after, net.gpu_of_rank(0), net.gpu_of_rank(4)));
  net.fail_cable(after[2]);
  CHECK_THROWS_WITH_AS(router.route_ranks(0, 4), doctest::Contains("from n0.gpu0 to n4.gpu0"), RoutingError);
  CHECK(router.route_ranks(0, 1).size() == 4);
  net.restore_all();
  CHECK(copy(router.route_ranks(0, 4)) == before);
}

TEST_CASE("topologies: a failed spine is avoided by every route") {
  // Rail-optimized 4 nodes, 4 spines: fail spine 0; all cross-rail routes use spines 1..3.
  Network net = build_rail_optimized({.nodes = 4, .su_nodes = 4, .switch_radix = 8});
  NodeId spine0 = 0;
  while (net.node(spine0).kind != NodeKind::spine) ++spine0;
  net.fail_node(spine0);
  Router router(net);
  for (std::size_t r = 0; r < 32; ++r) {
    for (std::uint32_t flow = 0; flow < 4; ++flow) {
      const auto route = router.route_ranks(r, (r + 9) % 32, flow);
      for (const NodeId s : switches_on(net, route)) CHECK(s != spine0);
    }
  }
}

TEST_CASE("topologies: random link failures are deterministic per seed") {
  // Same seed, same 5 leaf-spine cables; another seed, another set; each failure takes both
  // directions; asking for more cables than the tier has is an error.
  Network a = build_fat_tree({.nodes = 64});
  Network b = build_fat_tree({.nodes = 64});
  const auto fa = fail_random_links(a, LinkTier::leaf_spine, 5, 42);
  const auto fb = fail_random_links(b, LinkTier::leaf_spine, 5, 42);
  CHECK(fa == fb);
  CHECK(std::set<LinkId>(fa.begin(), fa.end()).size() == 5);
  for (const LinkId l : fa) {
    CHECK(a.link(l).tier == LinkTier::leaf_spine);
    CHECK(a.link_failed(l));
    CHECK(a.link_failed(a.link(l).reverse));
  }
  Network c = build_fat_tree({.nodes = 64});
  CHECK(fail_random_links(c, LinkTier::leaf_spine, 5, 43) != fa);
  // 64 nodes x 8 NICs = 512 NICs on 16 leaves with 32 uplinks each: 512 cables, 5 already failed.
  CHECK_THROWS_AS(fail_random_links(a, LinkTier::leaf_spine, 508, 1), std::invalid_argument);
  CHECK(fail_random_links(a, LinkTier::leaf_spine, 507, 1).size() == 507);
}

TEST_CASE("topologies: dragonfly minimal routes take at most 3 router hops, Valiant at most 5") {
  // p = 2, a = 4, h = 2, g = 9: every group pair has one global cable, so a minimal route is at
  // most local-global-local between routers, plus GPU->NIC->router and router->NIC->GPU. Valiant
  // goes through a third group: at most local-global to reach it, local-global-local to leave.
  const Network net = build_dragonfly({.node = one_gpu_server(), .terminals_per_router = 2,
                                       .routers_per_group = 4, .global_per_router = 2, .groups = 9});
  Router minimal(net);
  Router valiant(net, {.policy = RoutingPolicy::valiant, .seed = 7});
  const auto gpus = net.gpus();
  int max_minimal = 0, max_valiant = 0, third_group = 0, pairs = 0;
  for (std::size_t s = 0; s < gpus.size(); ++s) {
    for (std::size_t d = 0; d < gpus.size(); ++d) {
      if (s == d) continue;
      const auto m = minimal.route(gpus[s], gpus[d]);
      const auto v = valiant.route(gpus[s], gpus[d], static_cast<std::uint32_t>(s));
      CHECK(is_path(net, m, gpus[s], gpus[d]));
      CHECK(is_path(net, v, gpus[s], gpus[d]));
      const int mh = count_tiers(net, m, {LinkTier::local, LinkTier::global});
      const int vh = count_tiers(net, v, {LinkTier::local, LinkTier::global});
      max_minimal = std::max(max_minimal, mh);
      max_valiant = std::max(max_valiant, vh);
      CHECK(mh <= 3);
      CHECK(vh <= 5);
      CHECK(count_tiers(net, v, {LinkTier::global}) <= 2);
      CHECK(count_tiers(net, m, {LinkTier::host, LinkTier::pcie}) == 4);
      std::set<std::int32_t> groups;
      for (const NodeId r : switches_on(net, v)) groups.insert(net.node(r).group);
      const std::int32_t gs = net.node(gpus[s]).group, gd = net.node(gpus[d]).group;
      third_group += std::any_of(groups.begin(), groups.end(), [&](std::int32_t g) { return g != gs && g != gd; });
      ++pairs;
    }
  }
  CHECK(max_minimal == 3);
  CHECK(max_valiant == 5);
  CHECK(third_group == pairs);  // every Valiant route visits an intermediate group
}

TEST_CASE("topologies: torus routes take the shorter way round each ring") {
  // 4x4 torus: (0,0) -> (2,2) is 2 + 2 = 4 router hops; (0,0) -> (3,0) is 1 via wrap-around.
  // Ranks are vertices, dimension 0 fastest: rank = x + 4 y. Plus 4 terminal links.
  const Network net = build_torus({.node = one_gpu_server(), .dims = {4, 4}});
  Router router(net);
  CHECK(count_tiers(net, router.route_ranks(0, 10), {LinkTier::torus}) == 4);
  CHECK(count_tiers(net, router.route_ranks(0, 3), {LinkTier::torus}) == 1);
  CHECK(router.route_ranks(0, 3).size() == 5);
}

TEST_CASE("topologies: a dragonfly routes around its failed global cable through a third group") {
  // p = 2, a = 4, h = 2, g = 9: groups 0 and 1 share one global cable. Failed, the minimal route
  // from group 0 to group 1 cannot stay local-global-local, so it takes the shortest detour,
  // through another group: two global links.
  Network net = build_dragonfly({.node = one_gpu_server(), .terminals_per_router = 2, .routers_per_group = 4,
                                 .global_per_router = 2, .groups = 9});
  Router router(net);
  // Ranks 0..7 sit in group 0, 8..15 in group 1.
  const auto direct = router.route_ranks(0, 8);
  CHECK(count_tiers(net, direct, {LinkTier::global}) == 1);
  LinkId global = no_link;
  for (const LinkId l : direct) global = net.link(l).tier == LinkTier::global ? l : global;
  net.fail_cable(global);
  const auto detour = router.route_ranks(0, 8);
  CHECK(is_path(net, detour, net.gpu_of_rank(0), net.gpu_of_rank(8)));
  CHECK(count_tiers(net, detour, {LinkTier::global}) == 2);
}

TEST_CASE("topologies: a route does not depend on what the router searched before") {
  // The router meets in the middle for a destination's first sources and keeps a reverse BFS
  // per destination once it has several; both must pick the same links. Compare a long-lived
  // router (all-to-all, so every destination gets a field) with a fresh router per route, on a
  // three-tier fat tree, a rail-optimized cluster with a failed spine and a dragonfly (Valiant).
  auto check_all_to_all = [](const Network& net, RouterOptions options) {
    Router shared(net, options);
    const auto gpus = net.gpus();
    const std::size_t step = std::max<std::size_t>(1, gpus.size() / 24);
    for (std::size_t s = 0; s < gpus.size(); s += step) {
      for (std::size_t d = 0; d < gpus.size(); d += step) {
        for (std::uint32_t flow = 0; flow < 3; ++flow) {
          Router fresh(net, options);
          CHECK(copy(shared.route(gpus[s], gpus[d], flow)) == copy(fresh.route(gpus[s], gpus[d], flow)));
        }
      }
    }
  };
  check_all_to_all(build_fat_tree({.node = one_gpu_server(), .nodes = 128, .tiers = 3, .switch_radix = 8}), {});
  Network rail = build_rail_optimized({.nodes = 16, .su_nodes = 4, .switch_radix = 16});
  fail_random_links(rail, LinkTier::leaf_spine, 3, 5);
  check_all_to_all(rail, {.seed = 3});
  check_all_to_all(build_dragonfly({.node = one_gpu_server(), .terminals_per_router = 2, .routers_per_group = 4,
                                    .global_per_router = 2, .groups = 9}),
                   {.policy = RoutingPolicy::valiant});
}
