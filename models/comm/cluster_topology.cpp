#include "models/comm/cluster_topology.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "models/comm/collectives.hpp"
#include "topologies/network.hpp"

namespace clustersim::models {

namespace {

constexpr std::int64_t kSwitchRadix = 64;  // NVIDIA Quantum-2 QM9700: 64 x 400 Gb/s ports

topologies::LinkSpec fabric_link(const ClusterSpec& c) {
  return {.link_class = fabric_topology_link(c.fabric), .bytes_per_s = c.nic_bytes_per_s};
}

// The topology's server is the NVLink domain: one node, or a rack of trays on one NVLink fabric
// (GB200 NVL72), with all its trays' NICs, each GPU on its own tray's.
topologies::NodeSpec node_spec(const ClusterSpec& c) {
  const std::int64_t trays = nvlink_domain(c) / c.gpus_per_node;
  return {.gpus_per_node = nvlink_domain(c),
          .nics_per_node = c.nics_per_node * std::max<std::int64_t>(trays, 1),
          .nvlink = {.link_class = topologies::LinkClass::nvlink, .bytes_per_s = c.gpu.nvlink_bytes_per_s},
          .pcie = {.link_class = topologies::LinkClass::pcie},
          .nic = fabric_link(c)};
}

}  // namespace

topologies::TopologySpec topology_spec(const ClusterSpec& c) {
  const std::int64_t nodes = c.num_gpus / nvlink_domain(c);
  const topologies::NodeSpec node = node_spec(c);
  switch (c.topology) {
    case TopologyKind::rail_optimized: {
      // SuperPOD scalable units: 32 HGX nodes (H100/B200 RA), or 8 NVL72 racks (GB200 RA), whose
      // NICs a leaf takes as many rails at a time as its downlinks hold.
      const bool racks = nvlink_domain(c) > c.gpus_per_node;
      const std::int64_t su_nodes = racks ? 8 : 32;
      const auto leaf_down = static_cast<std::int64_t>(
          std::floor(static_cast<double>(kSwitchRadix) / (1.0 + 1.0 / c.oversubscription)));
      std::int64_t rails_per_leaf = std::max<std::int64_t>(1, leaf_down / su_nodes);
      while (node.nics_per_node % rails_per_leaf != 0) --rails_per_leaf;
      return topologies::RailOptimizedSpec{.node = node,
                                           .nodes = nodes,
                                           .su_nodes = su_nodes,
                                           .rails_per_leaf = rails_per_leaf,
                                           .switch_radix = kSwitchRadix,
                                           .leaf_oversubscription = c.oversubscription,
                                           .fabric = fabric_link(c)};
    }
    case TopologyKind::fat_tree: {
      // Two tiers reach radix/(1 + 1/r) leaf ports x radix leaves; beyond that, a core tier.
      const double leaf_down = std::floor(static_cast<double>(kSwitchRadix) / (1.0 + 1.0 / c.oversubscription));
      const bool two_tiers = static_cast<double>(nodes * node.nics_per_node) <= leaf_down * kSwitchRadix;
      return topologies::FatTreeSpec{.node = node,
                                     .nodes = nodes,
                                     .tiers = two_tiers ? 2 : 3,
                                     .switch_radix = kSwitchRadix,
                                     .leaf_oversubscription = c.oversubscription,
                                     .fabric = fabric_link(c)};
    }
    case TopologyKind::dragonfly: {
      // A server here is the NVLink domain with all its trays' NICs (node_spec), whole in a group.
      const std::int64_t nics = nodes * node.nics_per_node;
      for (std::int64_t p = 2; p <= 32; ++p) {
        const std::int64_t per_group = 2 * p * p;  // a p NIC ports with a = 2p
        if (per_group % node.nics_per_node != 0) continue;
        const std::int64_t groups = (nics + per_group - 1) / per_group;
        if (groups > 2 * p * p + 1) continue;
        if (nics % per_group != 0)
          throw std::invalid_argument(fmt::format(
              "cluster.num_gpus: a balanced dragonfly with {} NIC ports per group needs a multiple of {} nodes, got {}",
              per_group, per_group / node.nics_per_node, nodes));
        return topologies::DragonflySpec{.node = node,
                                         .terminals_per_router = p,
                                         .routers_per_group = 2 * p,
                                         .global_per_router = p,
                                         .groups = groups,
                                         .local = fabric_link(c),
                                         .global = fabric_link(c)};
      }
      throw std::invalid_argument("cluster.num_gpus: too many nodes for a balanced dragonfly of up to 32 ports per router");
    }
    case TopologyKind::torus: {
      auto rows = static_cast<std::int64_t>(std::sqrt(static_cast<double>(nodes)));
      while (rows > 1 && nodes % rows != 0) --rows;
      return topologies::TorusSpec{.node = node, .dims = {rows, nodes / rows}, .link = fabric_link(c)};
    }
  }
  throw std::invalid_argument("cluster.topology: unknown kind");
}

}  // namespace clustersim::models
