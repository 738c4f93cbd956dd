#include "models/spec/cluster_spec.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace clustersim::models {

namespace {
constexpr std::array<std::pair<Fabric, std::string_view>, 3> kFabricNames{
    {{Fabric::infiniband, "infiniband"}, {Fabric::roce, "roce"}, {Fabric::omnipath, "omnipath"}}};
}  // namespace

std::string_view fabric_name(Fabric fabric) {
  for (const auto& [f, name] : kFabricNames) {
    if (f == fabric) return name;
  }
  return "infiniband";
}

std::optional<Fabric> fabric_from_name(std::string_view name) {
  for (const auto& [f, n] : kFabricNames) {
    if (n == name) return f;
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
