#pragma once
/// The closed set of topology specs as one variant, and the one place that dispatches over it:
/// building the network and its closed-form bisection bandwidth (bytes/s, one direction).
/// Source: see each builder's header.

#include <variant>

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/network.hpp"
#include "topologies/node_domain.hpp"
#include "topologies/rail_optimized.hpp"
#include "topologies/torus.hpp"

namespace clustersim::topologies {

using TopologySpec = std::variant<NodeSpec, FatTreeSpec, RailOptimizedSpec, DragonflySpec, TorusSpec, RingSpec>;

/// Throws std::invalid_argument naming the broken rule.
Network build_network(const TopologySpec& spec);

/// The textbook bisection of the spec's topology for the rank halves (see each builder for the
/// alignment it assumes); analysis.hpp computes the same on the graph by max-flow.
double closed_form_bisection_bytes_per_s(const TopologySpec& spec);

}  // namespace clustersim::topologies
