#pragma once
/// Failure injection: fail k distinct random cables of one tier, chosen by a seeded splitmix64
/// sequence, so a seed names the same failure set on every platform and run. A cable fails in
/// both directions, as a broken cable, port or transceiver does.
/// Limitations: uniform over the tier's working cables; no correlated failures (a whole switch
/// is Network::fail_node).
/// Source: per-link failure rates to drive this (e.g. 0.057 % of NIC-ToR links per month, Alibaba
/// HPN) are in costs-topology-failures.md section 2.4.

#include <cstdint>
#include <vector>

#include "topologies/network.hpp"

namespace clustersim::topologies {

/// The tier whose cables carry traffic between nodes, where a failure costs bisection: global
/// links of a dragonfly, torus links, leaf-spine cables of a fat tree.
LinkTier inter_node_tier(const Network& network);

/// Fails k cables of `tier` not yet failed; returns the forward link id of each, in the order
/// chosen. Throws std::invalid_argument when the tier has fewer than k working cables.
std::vector<LinkId> fail_random_links(Network& network, LinkTier tier, std::size_t k, std::uint64_t seed);

}  // namespace clustersim::topologies
