#include "topologies/rail_optimized.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "topologies/clos.hpp"

namespace clustersim::topologies {

namespace {

struct RailPlan {
  std::int64_t rails = 0;
  std::int64_t sus = 0;
  std::int64_t leaves_per_su = 0;
  std::int64_t leaves = 0;
  clos::PortSplit leaf, spine;
  std::int64_t leaves_per_pod = 0;  // 0 for two tiers
  clos::UpperPlan upper;
};

RailPlan plan(const RailOptimizedSpec& spec) {
  const std::string who = "rail_optimized";
  validate_node(spec.node, "rail_optimized", true);
  if (spec.nodes < 1 || spec.su_nodes < 1) {
    throw std::invalid_argument(who + ": nodes and su_nodes must be >= 1");
  }
  if (spec.rails_per_leaf < 1 || spec.node.nics_per_node % spec.rails_per_leaf != 0) {
    throw std::invalid_argument(who + ": rails_per_leaf = " + std::to_string(spec.rails_per_leaf) +
                                " must be >= 1 and divide nics_per_node = " + std::to_string(spec.node.nics_per_node));
  }
  if (!(spec.leaf_oversubscription > 0.0)) {
    throw std::invalid_argument(who + ": leaf_oversubscription must be > 0");
  }
  RailPlan p;
  p.rails = spec.node.nics_per_node;
  p.sus = (spec.nodes + spec.su_nodes - 1) / spec.su_nodes;
  p.leaves_per_su = p.rails / spec.rails_per_leaf;
  p.leaves = p.sus * p.leaves_per_su;
  p.leaf.down = spec.su_nodes * spec.rails_per_leaf;
  p.leaf.up = std::max<std::int64_t>(
      1, std::llround(static_cast<double>(p.leaf.down) / spec.leaf_oversubscription));
  if (p.leaf.down + p.leaf.up > spec.switch_radix) {
    throw std::invalid_argument(who + ": a leaf needs " + std::to_string(p.leaf.down) + " down + " +
                                std::to_string(p.leaf.up) + " up ports, more than switch_radix = " +
                                std::to_string(spec.switch_radix));
  }
  if (p.leaves > spec.switch_radix) {
    p.spine = clos::split_ports(spec.switch_radix, spec.spine_oversubscription, who + ": spine");
    const std::int64_t sus_per_pod = p.spine.down / p.leaves_per_su;
    if (sus_per_pod < 1) {
      throw std::invalid_argument(who + ": a spine's " + std::to_string(p.spine.down) +
                                  " downlinks cannot hold one SU's " + std::to_string(p.leaves_per_su) + " leaves");
    }
    p.leaves_per_pod = sus_per_pod * p.leaves_per_su;
  }
  p.upper = clos::plan_upper(p.leaves, p.leaf.up, p.leaves_per_pod, p.spine.up, spec.switch_radix, who);
  return p;
}

}  // namespace

Network build_rail_optimized(const RailOptimizedSpec& spec) {
  const RailPlan p = plan(spec);
  Network network(TopologyKind::rail_optimized);
  std::vector<NodeId> leaves;
  leaves.reserve(static_cast<std::size_t>(p.leaves));
  for (std::int64_t su = 0; su < p.sus; ++su) {
    for (std::int64_t leaf = 0; leaf < p.leaves_per_su; ++leaf) {
      leaves.push_back(network.add_node(NodeKind::leaf,
                                        "su" + std::to_string(su) + ".leaf" + std::to_string(leaf), -1,
                                        static_cast<std::int32_t>(su)));
    }
  }
  for (std::int64_t n = 0; n < spec.nodes; ++n) {
    const std::int64_t su = n / spec.su_nodes;
    const ServerIds ids = add_server(network, spec.node, static_cast<std::int32_t>(n), static_cast<std::int32_t>(su));
    for (std::int64_t rail = 0; rail < p.rails; ++rail) {
      network.add_cable(ids.first_nic + static_cast<NodeId>(rail),
                        leaves[static_cast<std::size_t>(su * p.leaves_per_su + rail / spec.rails_per_leaf)],
                        spec.node.nic, LinkTier::host);
    }
  }
  clos::add_upper(network, leaves, p.leaf.up, p.leaves_per_pod, p.spine.up, p.upper, spec.fabric);
  network.finalize();
  return network;
}

double closed_form_bisection_bytes_per_s(const RailOptimizedSpec& spec) {
  const RailPlan p = plan(spec);
  // Within one scalable unit every rail's leaf holds a NIC of every server, so the halves meet
  // at the leaves; with two units or more they sit on different leaves.
  return clos::bisection_bytes_per_s(static_cast<double>(spec.nodes) * server_injection_bytes_per_s(spec.node),
                                     p.sus >= 2, p.leaves, p.leaf.up, p.upper, p.spine.up,
                                     spec.fabric.resolved_bytes_per_s());
}

}  // namespace clustersim::topologies
