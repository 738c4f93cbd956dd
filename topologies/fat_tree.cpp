#include "topologies/fat_tree.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "topologies/clos.hpp"

namespace clustersim::topologies {

namespace {

struct FatTreePlan {
  clos::PortSplit leaf, spine;
  std::int64_t nics = 0;
  std::int64_t leaves = 0;
  std::int64_t leaves_per_pod = 0;  // 0 for two tiers
  clos::UpperPlan upper;
};

FatTreePlan plan(const FatTreeSpec& spec) {
  const std::string who = "fat_tree";
  validate_node(spec.node, "fat_tree", true);
  if (spec.nodes < 1) throw std::invalid_argument(who + ": nodes must be >= 1");
  if (spec.tiers != 2 && spec.tiers != 3) throw std::invalid_argument(who + ": tiers must be 2 or 3");
  if (spec.switch_radix < 2) throw std::invalid_argument(who + ": switch_radix must be >= 2");
  FatTreePlan p;
  p.leaf = clos::split_ports(spec.switch_radix, spec.leaf_oversubscription, who + ": leaf");
  p.nics = spec.nodes * spec.node.nics_per_node;
  p.leaves = (p.nics + p.leaf.down - 1) / p.leaf.down;
  if (spec.tiers == 3) {
    p.spine = clos::split_ports(spec.switch_radix, spec.spine_oversubscription, who + ": spine");
    p.leaves_per_pod = p.spine.down;
  }
  p.upper = clos::plan_upper(p.leaves, p.leaf.up, p.leaves_per_pod, p.spine.up, spec.switch_radix, who);
  return p;
}

}  // namespace

Network build_fat_tree(const FatTreeSpec& spec) {
  const FatTreePlan p = plan(spec);
  Network network(TopologyKind::fat_tree);
  auto pod_of_leaf = [&](std::int64_t leaf) {
    return p.leaves_per_pod > 0 ? static_cast<std::int32_t>(leaf / p.leaves_per_pod) : -1;
  };
  std::vector<NodeId> leaves;
  for (std::int64_t l = 0; l < p.leaves; ++l) {
    leaves.push_back(network.add_node(NodeKind::leaf, "leaf" + std::to_string(l), -1, pod_of_leaf(l)));
  }
  const std::int64_t nics = spec.node.nics_per_node;
  for (std::int64_t n = 0; n < spec.nodes; ++n) {
    const ServerIds ids = add_server(network, spec.node, static_cast<std::int32_t>(n),
                                     pod_of_leaf(n * nics / p.leaf.down));
    for (std::int64_t j = 0; j < nics; ++j) {
      const auto leaf = static_cast<std::size_t>((n * nics + j) / p.leaf.down);
      network.add_cable(ids.first_nic + static_cast<NodeId>(j), leaves[leaf], spec.node.nic, LinkTier::host);
    }
  }
  clos::add_upper(network, leaves, p.leaf.up, p.leaves_per_pod, p.spine.up, p.upper, spec.fabric);
  network.finalize();
  return network;
}

double closed_form_bisection_bytes_per_s(const FatTreeSpec& spec) {
  const FatTreePlan p = plan(spec);
  // With two leaves or more, the halves of the servers fill different leaves.
  return clos::bisection_bytes_per_s(static_cast<double>(spec.nodes) * server_injection_bytes_per_s(spec.node),
                                     p.leaves >= 2, p.leaves, p.leaf.up, p.upper, p.spine.up,
                                     spec.fabric.resolved_bytes_per_s());
}

}  // namespace clustersim::topologies
