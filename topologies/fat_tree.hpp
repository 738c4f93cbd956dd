#pragma once
/// Two- and three-tier fat trees (folded Clos) of switches with `switch_radix` ports, servers
/// attached to leaves in order (server 0's NICs first, so a server's NICs share a leaf when the
/// leaf has room). Each tier's oversubscription is its switches' downlinks : uplinks.
/// Two tiers: leaves and spines, at most radix leaves (k^2/2 NICs at 1:1).
/// Three tiers (k-ary fat tree): pods of `down` leaves and `leaf uplinks` spines, plus cores; at
/// most radix pods (k^3/4 NICs at 1:1; k = 4 gives 16 hosts and 20 switches).
/// Units: bytes/s per direction, seconds, ports.
/// Limitations: no rail alignment (see rail_optimized.hpp); uneven divisions leave ports unused.
/// Source: Al-Fares, Loukissas, Vahdat, SIGCOMM 2008; counts and the oversubscription rule
/// (bisection = N/2 x b / r) from costs-topology-failures.md section 2.4.

#include <cstdint>

#include "topologies/link_class.hpp"
#include "topologies/network.hpp"
#include "topologies/node_domain.hpp"

namespace clustersim::topologies {

struct FatTreeSpec {
  NodeSpec node = {};
  std::int64_t nodes = 32;
  int tiers = 2;                         // 2: leaf-spine; 3: leaf-spine-core
  std::int64_t switch_radix = 64;        // ports per switch (Quantum-2 QM9700: 64 x 400G)
  double leaf_oversubscription = 1.0;    // leaf downlinks : uplinks (2.0 = 2:1)
  double spine_oversubscription = 1.0;   // spine downlinks : uplinks, three tiers only
  LinkSpec fabric = {.link_class = LinkClass::infiniband_ndr};  // switch <-> switch

  friend bool operator==(const FatTreeSpec&, const FatTreeSpec&) = default;
};

/// Throws std::invalid_argument naming the broken rule.
Network build_fat_tree(const FatTreeSpec& spec);

/// Closed form, assuming the rank halves split at leaf (three tiers: pod) boundaries:
/// min(N/2 x injection, first-half leaf uplinks, first-half spine uplinks) x link rate.
double closed_form_bisection_bytes_per_s(const FatTreeSpec& spec);

}  // namespace clustersim::topologies
