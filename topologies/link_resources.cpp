#include "topologies/link_resources.hpp"

namespace clustersim::topologies {

std::vector<sim::Resource> link_resources(const Network& network, bool apply_efficiency) {
  std::vector<sim::Resource> resources;
  resources.reserve(network.link_count());
  for (const Link& l : network.links()) {
    resources.push_back({.name = network.node(l.from).name + "->" + network.node(l.to).name,
                         .capacity_per_s = apply_efficiency ? l.bytes_per_s * l.efficiency() : l.bytes_per_s});
  }
  return resources;
}

}  // namespace clustersim::topologies
