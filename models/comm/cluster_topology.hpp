#pragma once
/// The scale-out network a ClusterSpec describes, as a topology spec the builders of topologies/
/// turn into a graph: its server is one NVLink domain (a node, or a GB200 NVL72 rack of 18 trays
/// with their 4 NICs each), its fabric's link class at the NIC's rate, and the shape chosen for
/// `cluster.topology`:
/// - rail_optimized: DGX SuperPOD scalable units of 32 nodes, one leaf per rail (H100/B200 RA), or
///   of 8 NVL72 racks (GB200 RA), each leaf taking as many rails as its 32 downlinks hold (4: a
///   tray's NICs of all 8 racks, 18 leaves per unit);
/// - fat_tree: two tiers of 64-port switches where they suffice, else three;
/// - dragonfly: balanced groups (a = 2p = 2h routers, p NIC ports per router), the smallest p whose
///   2p^2 + 1 groups hold the cluster; the cluster must fill whole groups;
/// - torus: the most nearly square 2D torus of nodes.
/// Limitations: 64-port (Quantum-2) switches throughout; oversubscription applies to leaves only.

#include <stdexcept>

#include "models/spec/cluster_spec.hpp"
#include "topologies/topology.hpp"

namespace clustersim::models {

/// Throws std::invalid_argument when the cluster cannot take that shape (a dragonfly it does not
/// fill, more NICs than GPUs per node), naming the rule.
topologies::TopologySpec topology_spec(const ClusterSpec& cluster);

}  // namespace clustersim::models
