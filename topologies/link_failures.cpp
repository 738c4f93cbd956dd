#include "topologies/link_failures.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "sim/hashing.hpp"

namespace clustersim::topologies {

LinkTier inter_node_tier(const Network& network) {
  switch (network.kind()) {
    case TopologyKind::dragonfly: return LinkTier::global;
    case TopologyKind::torus:
    case TopologyKind::ring: return LinkTier::torus;
    default: return LinkTier::leaf_spine;
  }
}

std::vector<LinkId> fail_random_links(Network& network, LinkTier tier, std::size_t k, std::uint64_t seed) {
  std::vector<LinkId> cables;
  for (LinkId id = 0; id < network.link_count(); ++id) {
    const Link& l = network.link(id);
    if (l.tier == tier && l.reverse != no_link && l.reverse > id && !network.link_failed(id) &&
        !network.link_failed(l.reverse)) {
      cables.push_back(id);
    }
  }
  if (k > cables.size()) {
    throw std::invalid_argument("fail_random_links: " + std::to_string(k) + " requested but tier " +
                                std::string(to_string(tier)) + " has " + std::to_string(cables.size()) +
                                " working cables");
  }
  // Partial Fisher-Yates: the first k entries become a uniform sample without repetition.
  sim::SplitMix64 random(seed);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(random.below(cables.size() - i));
    std::swap(cables[i], cables[j]);
    network.fail_cable(cables[i]);
  }
  cables.resize(k);
  return cables;
}

}  // namespace clustersim::topologies
