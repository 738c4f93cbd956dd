#pragma once
// Small topologies for the topologies/ tests. One-GPU, one-NIC servers make the textbook host
// counts of the fat-tree, dragonfly and torus literature come out directly.

#include <set>
#include <vector>

#include "topologies/network.hpp"
#include "topologies/node_domain.hpp"

namespace clustersim::topologies::test {

inline constexpr double ndr = 50e9;  // InfiniBand NDR, bytes/s per direction
inline constexpr double hdr = 25e9;  // InfiniBand HDR

inline NodeSpec one_gpu_server() { return {.gpus_per_node = 1, .nics_per_node = 1}; }

/// Switch-side endpoints (leaf, spine, core, router) visited by a route, in order.
inline std::vector<NodeId> switches_on(const Network& network, std::span<const LinkId> route) {
  std::vector<NodeId> out;
  for (const LinkId l : route) {
    const NodeId to = network.link(l).to;
    const NodeKind kind = network.node(to).kind;
    if (kind == NodeKind::leaf || kind == NodeKind::spine || kind == NodeKind::core || kind == NodeKind::router) {
      out.push_back(to);
    }
  }
  return out;
}

/// Links of a route in the given tiers.
inline int count_tiers(const Network& network, std::span<const LinkId> route, std::set<LinkTier> tiers) {
  int n = 0;
  for (const LinkId l : route) n += tiers.contains(network.link(l).tier) ? 1 : 0;
  return n;
}

/// True when consecutive links join up from src to dst and none is failed.
inline bool is_path(const Network& network, std::span<const LinkId> route, NodeId src, NodeId dst) {
  NodeId at = src;
  for (const LinkId l : route) {
    if (network.link(l).from != at || !network.usable(l)) return false;
    at = network.link(l).to;
  }
  return at == dst;
}

}  // namespace clustersim::topologies::test
