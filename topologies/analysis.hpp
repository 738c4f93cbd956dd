#pragma once
/// Properties computed on the network graph, failures included: bisection bandwidth by max-flow
/// (bytes/s, one direction: the first half of the ranks sending to the second half through a
/// super-source and super-sink), hop statistics between GPU pairs (hops = directed links on a
/// shortest route that transits no GPU), and element counts per switch kind and link tier.
/// Compare the max-flow bisection with closed_form_bisection_bytes_per_s (topology.hpp).
/// Limitations: max-flow lets traffic split over every path (an upper bound on what static ECMP
/// achieves); above `exact_up_to_gpus` GPUs hop statistics use a deterministic sample of sources
/// (every destination from each), so the diameter is then a lower bound.
/// Source: max-flow min-cut (push-relabel, Goldberg & Tarjan 1988, as in Boost.Graph).

#include <array>
#include <cstdint>
#include <span>

#include "topologies/network.hpp"

namespace clustersim::topologies {

/// Max-flow from all `sources` to all `sinks` over usable links, in bytes/s. As in routing, GPUs
/// do not forward: a GPU only sends if it is a source and only receives if it is a sink. Throws
/// std::invalid_argument when a node is in both sets.
double max_flow_bytes_per_s(const Network& network, std::span<const NodeId> sources, std::span<const NodeId> sinks);

/// Max-flow from ranks [0, n/2) to ranks [n/2, n); 0 with fewer than two GPUs.
double bisection_bytes_per_s(const Network& network);

struct HopStatsOptions {
  std::size_t exact_up_to_gpus = 2048;  // all sources up to this many GPUs, else a sample
  std::size_t sampled_sources = 256;    // sample size (sources; each to every other GPU)
  std::uint64_t seed = 0;               // sample choice
};

struct HopStats {
  std::uint32_t diameter = 0;          // most hops over the measured pairs
  double mean_hops = 0.0;              // over measured reachable ordered pairs of distinct GPUs
  std::size_t sources = 0;             // GPUs used as sources (all, or the sample)
  std::size_t pairs = 0;               // reachable ordered pairs measured
  std::size_t unreachable_pairs = 0;   // measured pairs that failures disconnect
  bool sampled = false;
};

HopStats hop_stats(const Network& network, const HopStatsOptions& options = {});

struct NetworkCounts {
  std::array<std::size_t, node_kind_count> nodes{};   // by NodeKind
  std::array<std::size_t, link_tier_count> links{};   // directed links by LinkTier
  std::array<std::size_t, link_tier_count> cables{};  // cables by LinkTier
  std::size_t switches = 0;                           // NVSwitches, leaves, spines, cores, routers

  std::size_t of(NodeKind kind) const { return nodes[static_cast<std::size_t>(kind)]; }
  std::size_t links_of(LinkTier tier) const { return links[static_cast<std::size_t>(tier)]; }
  std::size_t cables_of(LinkTier tier) const { return cables[static_cast<std::size_t>(tier)]; }
};

NetworkCounts count_elements(const Network& network);

}  // namespace clustersim::topologies
