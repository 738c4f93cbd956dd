#include "models/spec/cluster_spec.hpp"

#include <fmt/format.h>

namespace clustersim::models {

std::string_view fabric_name(Fabric fabric) { return kFabricNames.at(static_cast<std::size_t>(fabric)); }

std::optional<Fabric> fabric_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kFabricNames.size(); ++i) {
    if (kFabricNames[i] == name) return static_cast<Fabric>(i);
  }
  return std::nullopt;
}

std::string node_layout_text(const ClusterSpec& c) {
  const std::int64_t nodes = c.num_gpus / c.gpus_per_node;
  if (nvlink_domain(c) <= c.gpus_per_node) return fmt::format("{} nodes of {}", nodes, c.gpus_per_node);
  return fmt::format("{} nodes of {} in {} NVLink domain{} of {}", nodes, c.gpus_per_node,
                     c.num_gpus / nvlink_domain(c), c.num_gpus / nvlink_domain(c) == 1 ? "" : "s", nvlink_domain(c));
}

}  // namespace clustersim::models
