#include "topologies/topology.hpp"

#include <type_traits>

namespace clustersim::topologies {

Network build_network(const TopologySpec& spec) {
  return std::visit(
      [](const auto& s) -> Network {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, NodeSpec>) return build_node(s);
        else if constexpr (std::is_same_v<S, FatTreeSpec>) return build_fat_tree(s);
        else if constexpr (std::is_same_v<S, RailOptimizedSpec>) return build_rail_optimized(s);
        else if constexpr (std::is_same_v<S, DragonflySpec>) return build_dragonfly(s);
        else if constexpr (std::is_same_v<S, TorusSpec>) return build_torus(s);
        else {
          static_assert(std::is_same_v<S, RingSpec>, "every TopologySpec alternative needs a builder");
          return build_ring(s);
        }
      },
      spec);
}

double closed_form_bisection_bytes_per_s(const TopologySpec& spec) {
  return std::visit([](const auto& s) { return closed_form_bisection_bytes_per_s(s); }, spec);
}

}  // namespace clustersim::topologies
