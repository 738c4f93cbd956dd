#include "topologies/torus.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace clustersim::topologies {

namespace {

std::int64_t vertex_count(const TorusSpec& spec) {
  if (spec.dims.empty() || spec.dims.size() > 3) {
    throw std::invalid_argument("torus: dims must have 1 to 3 sizes");
  }
  std::int64_t count = 1;
  for (const std::int64_t k : spec.dims) {
    if (k < 1) throw std::invalid_argument("torus: every dimension must be >= 1");
    count *= k;
  }
  return count;
}

Network build(const TorusSpec& spec, TopologyKind kind) {
  validate_node(spec.node, kind == TopologyKind::ring ? "ring" : "torus", true);
  const std::int64_t vertices = vertex_count(spec);
  Network network(kind);
  std::vector<NodeId> routers;
  routers.reserve(static_cast<std::size_t>(vertices));
  for (std::int64_t v = 0; v < vertices; ++v) {
    std::string name = "router(";
    std::int64_t rest = v;
    for (std::size_t d = 0; d < spec.dims.size(); ++d) {
      name += (d > 0 ? "," : "") + std::to_string(rest % spec.dims[d]);
      rest /= spec.dims[d];
    }
    routers.push_back(network.add_node(NodeKind::router, name + ")"));
  }
  for (std::int64_t v = 0; v < vertices; ++v) {
    const ServerIds ids = add_server(network, spec.node, static_cast<std::int32_t>(v));
    for (std::int64_t j = 0; j < spec.node.nics_per_node; ++j) {
      network.add_cable(ids.first_nic + static_cast<NodeId>(j), routers[static_cast<std::size_t>(v)], spec.node.nic,
                        LinkTier::host);
    }
  }
  std::int64_t stride = 1;
  for (const std::int64_t k : spec.dims) {
    for (std::int64_t v = 0; k >= 2 && v < vertices; ++v) {
      const std::int64_t x = (v / stride) % k;
      const std::int64_t neighbour = v + (((x + 1) % k) - x) * stride;
      network.add_cable(routers[static_cast<std::size_t>(v)], routers[static_cast<std::size_t>(neighbour)], spec.link,
                        LinkTier::torus);
    }
    stride *= k;
  }
  network.finalize();
  return network;
}

TorusSpec as_torus(const RingSpec& spec) { return {.node = spec.node, .dims = {spec.nodes}, .link = spec.link}; }

}  // namespace

Network build_torus(const TorusSpec& spec) { return build(spec, TopologyKind::torus); }
Network build_ring(const RingSpec& spec) { return build(as_torus(spec), TopologyKind::ring); }

double closed_form_bisection_bytes_per_s(const TorusSpec& spec) {
  const std::int64_t vertices = vertex_count(spec);
  const double injection = static_cast<double>(vertices) / 2.0 * server_injection_bytes_per_s(spec.node);
  // The rank halves split across the last dimension longer than 1.
  std::int64_t k = 1;
  for (const std::int64_t size : spec.dims) k = size > 1 ? size : k;
  if (k < 2) return 0.0;
  const double cut = 2.0 * static_cast<double>(vertices / k) * spec.link.resolved_bytes_per_s();
  return std::min(injection, cut);
}

double closed_form_bisection_bytes_per_s(const RingSpec& spec) {
  return closed_form_bisection_bytes_per_s(as_torus(spec));
}

}  // namespace clustersim::topologies
