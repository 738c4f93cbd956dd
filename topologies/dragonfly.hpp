#pragma once
/// Dragonfly: g groups of a routers; each router has p terminals (NICs), a - 1 local links (all-to-
/// all inside its group) and h global links. Global links are spread evenly: group pairs are
/// connected round by round (one cable per pair per round), floor(a h / (g - 1)) rounds; ports
/// left over by an uneven division stay unused. Global port q of a group sits on router q / h.
/// Servers fill terminals in order (server n's NIC j is terminal n x nics + j, on router
/// terminal / p), so ranks fill groups one after another.
/// Minimal routes take at most 3 router-to-router hops (local, global, local) when every group pair
/// is connected (g <= a h + 1); Valiant routes (routing.hpp) at most 5.
/// Units: bytes/s per direction, seconds, ports.
/// Limitations: no adaptive (UGAL) routing; one link spec per tier.
/// Source: Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology",
/// ISCA 2008 (costs-topology-failures.md section 2.4).

#include <cstdint>

#include "topologies/link_class.hpp"
#include "topologies/network.hpp"
#include "topologies/node_domain.hpp"

namespace clustersim::topologies {

struct DragonflySpec {
  NodeSpec node = {};  // servers = a p g / nics_per_node; nics_per_node must divide a p
  std::int64_t terminals_per_router = 4;  // p
  std::int64_t routers_per_group = 8;     // a (balanced: a = 2p = 2h)
  std::int64_t global_per_router = 4;     // h
  std::int64_t groups = 33;               // g <= a h + 1
  LinkSpec local = {.link_class = LinkClass::infiniband_ndr};
  LinkSpec global = {.link_class = LinkClass::infiniband_ndr};

  friend bool operator==(const DragonflySpec&, const DragonflySpec&) = default;
};

/// Throws std::invalid_argument naming the broken rule.
Network build_dragonfly(const DragonflySpec& spec);

/// Cables between each pair of groups: floor(a h / (g - 1)).
std::int64_t dragonfly_cables_per_group_pair(const DragonflySpec& spec);

/// Closed form for even g, ranks split at the middle group: min(N/2 x injection,
/// (g/2)^2 x cables per pair x global rate). Local links are assumed not to bind.
double closed_form_bisection_bytes_per_s(const DragonflySpec& spec);

}  // namespace clustersim::topologies
