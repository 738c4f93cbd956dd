#pragma once
/// Torus (k-ary n-cube, n = 1..3) and ring of servers. Each torus vertex is one server plus a
/// router standing for its in-network forwarding (a TPU-style chip router or a NIC-integrated
/// switch); the server's NICs attach to that router and routers link to their +-1 neighbours in
/// each dimension with wrap-around (a dimension of 2 gets two parallel cables, a dimension of 1
/// none). Vertex ranks run dimension 0 fastest, so the rank halves split across the last
/// dimension. Units: bytes/s per direction, seconds.
/// Limitations: shortest-path ECMP routing, not dimension-order routing; no twisted tori or
/// optical reconfiguration (TPU v4 OCS).
/// Source: Dally & Towles, "Principles and Practices of Interconnection Networks": degree 2n,
/// diameter n floor(k/2), bisection 2 k^(n-1) links for even k (costs-topology-failures.md 2.4).

#include <cstdint>
#include <vector>

#include "topologies/link_class.hpp"
#include "topologies/network.hpp"
#include "topologies/node_domain.hpp"

namespace clustersim::topologies {

struct TorusSpec {
  NodeSpec node = {};
  std::vector<std::int64_t> dims = {4, 4};  // 1 to 3 sizes; servers = their product
  LinkSpec link = {.link_class = LinkClass::infiniband_ndr};  // router <-> neighbour router

  friend bool operator==(const TorusSpec&, const TorusSpec&) = default;
};

struct RingSpec {
  NodeSpec node = {};
  std::int64_t nodes = 8;
  LinkSpec link = {.link_class = LinkClass::infiniband_ndr};

  friend bool operator==(const RingSpec&, const RingSpec&) = default;
};

/// Throws std::invalid_argument naming the broken rule.
Network build_torus(const TorusSpec& spec);
Network build_ring(const RingSpec& spec);

/// Closed form for an even last dimension of size k: min(N/2 x injection, 2 (N / k) x link rate).
double closed_form_bisection_bytes_per_s(const TorusSpec& spec);
/// Two links cross any cut of a ring into halves: min(N/2 x injection, 2 x link rate).
double closed_form_bisection_bytes_per_s(const RingSpec& spec);

}  // namespace clustersim::topologies
