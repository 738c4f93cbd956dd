#include "topologies/dragonfly.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace clustersim::topologies {

namespace {

void validate(const DragonflySpec& spec) {
  const std::string who = "dragonfly";
  validate_node(spec.node, "dragonfly", true);
  const std::int64_t p = spec.terminals_per_router, a = spec.routers_per_group, h = spec.global_per_router,
                     g = spec.groups;
  if (p < 1 || a < 1 || g < 1 || h < 0) {
    throw std::invalid_argument(who + ": p, a, g must be >= 1 and h >= 0");
  }
  if (g > 1 && (h < 1 || g > a * h + 1)) {
    throw std::invalid_argument(who + ": g = " + std::to_string(g) + " groups need g <= a h + 1 = " +
                                std::to_string(a * h + 1) + " so that every group pair has a global link");
  }
  // Whole servers per group keep each GPU in the group its NICs attach to, which routing uses.
  if ((a * p) % spec.node.nics_per_node != 0) {
    throw std::invalid_argument(who + ": a group's a p = " + std::to_string(a * p) +
                                " terminals do not divide into servers of " +
                                std::to_string(spec.node.nics_per_node) + " NICs");
  }
}

}  // namespace

std::int64_t dragonfly_cables_per_group_pair(const DragonflySpec& spec) {
  return spec.groups > 1 ? spec.routers_per_group * spec.global_per_router / (spec.groups - 1) : 0;
}

Network build_dragonfly(const DragonflySpec& spec) {
  validate(spec);
  const std::int64_t p = spec.terminals_per_router, a = spec.routers_per_group, h = spec.global_per_router,
                     g = spec.groups;
  Network network(TopologyKind::dragonfly);
  std::vector<NodeId> routers;
  routers.reserve(static_cast<std::size_t>(a * g));
  for (std::int64_t group = 0; group < g; ++group) {
    for (std::int64_t r = 0; r < a; ++r) {
      routers.push_back(network.add_node(NodeKind::router, "g" + std::to_string(group) + ".r" + std::to_string(r),
                                         -1, static_cast<std::int32_t>(group)));
    }
  }
  auto router = [&](std::int64_t group, std::int64_t r) { return routers[static_cast<std::size_t>(group * a + r)]; };
  const std::int64_t nics = spec.node.nics_per_node;
  const std::int64_t servers = a * p * g / nics;
  for (std::int64_t n = 0; n < servers; ++n) {
    const std::int64_t first_router = n * nics / p;
    const ServerIds ids = add_server(network, spec.node, static_cast<std::int32_t>(n),
                                     static_cast<std::int32_t>(first_router / a));
    for (std::int64_t j = 0; j < nics; ++j) {
      network.add_cable(ids.first_nic + static_cast<NodeId>(j), routers[static_cast<std::size_t>((n * nics + j) / p)],
                        spec.node.nic, LinkTier::host);
    }
  }
  for (std::int64_t group = 0; group < g; ++group) {
    for (std::int64_t r = 0; r < a; ++r) {
      for (std::int64_t s = r + 1; s < a; ++s) {
        network.add_cable(router(group, r), router(group, s), spec.local, LinkTier::local);
      }
    }
  }
  // Round by round, one cable per group pair, each on the next free global port of either group.
  std::vector<std::int64_t> next_port(static_cast<std::size_t>(g), 0);
  const std::int64_t rounds = dragonfly_cables_per_group_pair(spec);
  for (std::int64_t round = 0; round < rounds; ++round) {
    for (std::int64_t i = 0; i < g; ++i) {
      for (std::int64_t j = i + 1; j < g; ++j) {
        const std::int64_t qi = next_port[static_cast<std::size_t>(i)]++;
        const std::int64_t qj = next_port[static_cast<std::size_t>(j)]++;
        network.add_cable(router(i, qi / h), router(j, qj / h), spec.global, LinkTier::global);
      }
    }
  }
  network.finalize();
  return network;
}

double closed_form_bisection_bytes_per_s(const DragonflySpec& spec) {
  validate(spec);
  const double servers = static_cast<double>(spec.routers_per_group * spec.terminals_per_router * spec.groups) /
                         static_cast<double>(spec.node.nics_per_node);
  const double injection = servers / 2.0 * server_injection_bytes_per_s(spec.node);
  if (spec.groups < 2) return injection;  // one group: only local links, not modelled here
  const double half_groups = static_cast<double>(spec.groups) / 2.0;
  return std::min(injection,
                  half_groups * half_groups * static_cast<double>(dragonfly_cables_per_group_pair(spec)) *
                      spec.global.resolved_bytes_per_s());
}

}  // namespace clustersim::topologies
