#pragma once
/// The names of the network topologies as the scenario format and `clustersim plan` spell them.

#include <array>
#include <optional>
#include <string_view>

#include "models/spec/cluster_spec.hpp"

namespace clustersim::planning {

inline constexpr std::array<models::TopologyKind, 4> kTopologyKinds{
    models::TopologyKind::rail_optimized, models::TopologyKind::fat_tree, models::TopologyKind::dragonfly,
    models::TopologyKind::torus};

constexpr std::string_view topology_name(models::TopologyKind kind) {
  switch (kind) {
    case models::TopologyKind::rail_optimized: return "rail_optimized";
    case models::TopologyKind::fat_tree: return "fat_tree";
    case models::TopologyKind::dragonfly: return "dragonfly";
    case models::TopologyKind::torus: return "torus";
  }
  return "?";
}

/// nullopt for a name that is none of kTopologyKinds'.
constexpr std::optional<models::TopologyKind> topology_from_name(std::string_view name) {
  for (const auto kind : kTopologyKinds) {
    if (topology_name(kind) == name) return kind;
  }
  return std::nullopt;
}

}  // namespace clustersim::planning
