#pragma once
/// The network's directed links as simulation resources, index for index: resource i is link i,
/// so a route's link ids are its resource ids (plus whatever offset the caller places them at).
/// Units: capacity in bytes/s per direction, the line rate or, if asked, line rate x efficiency.
/// Limitations: failed links keep their capacity here; routes simply never use them.

#include <vector>

#include "sim/task_graph.hpp"
#include "topologies/network.hpp"

namespace clustersim::topologies {

/// One resource per directed link, named "from->to".
std::vector<sim::Resource> link_resources(const Network& network, bool apply_efficiency = false);

}  // namespace clustersim::topologies
