#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>

#include "topologies/rail_optimized.hpp"
#include "topologies/routing.hpp"
#include "tests/topologies/topology_fixtures.hpp"

using namespace clustersim::topologies;
using Clock = std::chrono::steady_clock;

namespace {
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
}  // namespace

TEST_CASE("topologies: a 16,384-GPU SuperPOD builds and routes a 1,024-rank ring quickly") {
  // 64 SUs x 32 HGX nodes: 512 leaves, 512 spines, 256 cores and 16,384 cables per fabric tier
  // (B200 RA, reference 2.1). Then both directions of a ring over ranks 0..1023 (128 nodes, 4
  // SUs): 2,048 routes, 256 of them across nodes. Budget: well under a second in a Release build;
  // the bound here is loose so that sanitizer builds pass too, and the timings are printed.
  const auto start = Clock::now();
  const Network net = build_rail_optimized({.nodes = 2048});
  const double build_s = seconds_since(start);
  CHECK(net.gpus().size() == 16384);
  CHECK(net.count(NodeKind::leaf) == 512);
  CHECK(net.count(NodeKind::spine) == 512);
  CHECK(net.count(NodeKind::core) == 256);
  CHECK(net.cable_count(LinkTier::host) == 16384);
  CHECK(net.cable_count(LinkTier::leaf_spine) == 16384);
  CHECK(net.cable_count(LinkTier::spine_core) == 16384);

  const auto route_start = Clock::now();
  Router router(net);
  std::size_t links = 0;
  constexpr std::size_t ranks = 1024;
  for (std::size_t r = 0; r < ranks; ++r) {
    links += router.route_ranks(r, (r + 1) % ranks).size();
    links += router.route_ranks((r + 1) % ranks, r).size();
  }
  const double route_s = seconds_since(route_start);
  CHECK(router.cached_routes() == 2 * ranks);
  // Ranks 0..1023 are 128 nodes = 4 SUs = one pod. 1,792 routes stay on NVLink (2 links); the
  // 256 between GPU 7 of a node and GPU 0 of the next (the wrap included) cross rails inside the
  // pod: GPU-NIC-leaf-spine-leaf-NIC-GPU, 6 links.
  CHECK(links == 2 * (ranks - 128) * 2 + 2 * 128 * 6);
  MESSAGE("16,384-GPU rail-optimized build " << build_s * 1e3 << " ms; 2,048 ring routes " << route_s * 1e3
                                              << " ms");
  CHECK(build_s + route_s < 5.0);
}
