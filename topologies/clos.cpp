#include "topologies/clos.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace clustersim::topologies::clos {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

PortSplit split_ports(std::int64_t radix, double oversubscription, const std::string& who) {
  if (!(oversubscription > 0.0)) {
    throw std::invalid_argument(who + ": oversubscription must be > 0");
  }
  PortSplit split;
  split.up = static_cast<std::int64_t>(std::floor(static_cast<double>(radix) / (1.0 + oversubscription)));
  split.down = std::min(radix - split.up,
                        static_cast<std::int64_t>(std::llround(static_cast<double>(split.up) * oversubscription)));
  if (split.up < 1 || split.down < 1) {
    throw std::invalid_argument(who + ": radix " + std::to_string(radix) + " at oversubscription " +
                                std::to_string(oversubscription) + " leaves no up- or downlink");
  }
  return split;
}

UpperPlan plan_upper(std::int64_t leaves, std::int64_t leaf_uplinks, std::int64_t leaves_per_pod,
                     std::int64_t spine_uplinks, std::int64_t radix, const std::string& who) {
  UpperPlan plan;
  if (leaves_per_pod == 0) {
    plan.spines = ceil_div(leaves * leaf_uplinks, radix);
    // A leaf must reach every spine for leaf-spine-leaf paths between all leaf pairs.
    if (plan.spines > leaf_uplinks) {
      throw std::invalid_argument(who + ": " + std::to_string(leaves) + " leaves exceed what two tiers of radix " +
                                  std::to_string(radix) + " connect (at most " + std::to_string(radix) +
                                  " leaves); use three tiers");
    }
    return plan;
  }
  plan.pods = ceil_div(leaves, leaves_per_pod);
  plan.spines = plan.pods * leaf_uplinks;
  plan.cores = ceil_div(plan.spines * spine_uplinks, radix);
  // Every pod's spines together must reach every core.
  if (leaf_uplinks * spine_uplinks < plan.cores) {
    throw std::invalid_argument(who + ": " + std::to_string(plan.pods) + " pods exceed what three tiers of radix " +
                                std::to_string(radix) + " connect (at most " + std::to_string(radix) +
                                " pods); a fourth tier is not modelled");
  }
  return plan;
}

double bisection_bytes_per_s(double server_injection_total, bool halves_on_different_leaves,
                             std::int64_t leaves, std::int64_t leaf_uplinks, const UpperPlan& plan,
                             std::int64_t spine_uplinks, double fabric_bytes_per_s) {
  double cut = server_injection_total / 2.0;
  if (halves_on_different_leaves) {
    cut = std::min(cut, static_cast<double>(leaves) / 2.0 * static_cast<double>(leaf_uplinks) * fabric_bytes_per_s);
  }
  if (plan.pods >= 2) {
    cut = std::min(cut, static_cast<double>(plan.spines) / 2.0 * static_cast<double>(spine_uplinks) * fabric_bytes_per_s);
  }
  return cut;
}

void add_upper(Network& network, std::span<const NodeId> leaves, std::int64_t leaf_uplinks,
               std::int64_t leaves_per_pod, std::int64_t spine_uplinks, const UpperPlan& plan,
               const LinkSpec& fabric) {
  const auto leaf_count = static_cast<std::int64_t>(leaves.size());
  if (plan.pods == 0) {
    std::vector<NodeId> spines;
    for (std::int64_t s = 0; s < plan.spines; ++s) {
      spines.push_back(network.add_node(NodeKind::spine, "spine" + std::to_string(s)));
    }
    for (std::int64_t i = 0; i < leaf_count; ++i) {
      for (std::int64_t p = 0; p < leaf_uplinks; ++p) {
        const auto s = static_cast<std::size_t>((i * leaf_uplinks + p) % plan.spines);
        network.add_cable(leaves[static_cast<std::size_t>(i)], spines[s], fabric, LinkTier::leaf_spine);
      }
    }
    return;
  }
  std::vector<NodeId> spines;
  for (std::int64_t pod = 0; pod < plan.pods; ++pod) {
    for (std::int64_t j = 0; j < leaf_uplinks; ++j) {
      spines.push_back(network.add_node(NodeKind::spine,
                                        "pod" + std::to_string(pod) + ".spine" + std::to_string(j), -1,
                                        static_cast<std::int32_t>(pod)));
    }
  }
  std::vector<NodeId> cores;
  for (std::int64_t c = 0; c < plan.cores; ++c) {
    cores.push_back(network.add_node(NodeKind::core, "core" + std::to_string(c)));
  }
  for (std::int64_t i = 0; i < leaf_count; ++i) {
    const std::int64_t pod = i / leaves_per_pod;
    for (std::int64_t j = 0; j < leaf_uplinks; ++j) {
      network.add_cable(leaves[static_cast<std::size_t>(i)],
                        spines[static_cast<std::size_t>(pod * leaf_uplinks + j)], fabric, LinkTier::leaf_spine);
    }
  }
  for (std::int64_t s = 0; s < plan.spines; ++s) {
    for (std::int64_t q = 0; q < spine_uplinks; ++q) {
      const auto c = static_cast<std::size_t>((s * spine_uplinks + q) % plan.cores);
      network.add_cable(spines[static_cast<std::size_t>(s)], cores[c], fabric, LinkTier::spine_core);
    }
  }
}

}  // namespace clustersim::topologies::clos
