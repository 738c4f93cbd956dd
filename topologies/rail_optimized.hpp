#pragma once
/// Rail-optimized fat tree in the DGX SuperPOD style: servers grouped in scalable units (SUs) of
/// `su_nodes`; one leaf per rail per SU, NIC i of every server in the SU on leaf i, so same-rail
/// traffic inside an SU is one switch hop and everything else crosses the spines. A server with
/// more NICs than a leaf has ports for one rail each (a GB200 NVL72 rack: 72 NICs, SUs of 8 racks)
/// puts `rails_per_leaf` consecutive rails on one leaf. Leaves have su_nodes x rails_per_leaf
/// downlinks and as many / oversubscription uplinks. Two tiers while there are at most
/// radix leaves; beyond that, pods of whole SUs under a core tier (as the SuperPOD B200 tables
/// from 16 SUs on). Units: bytes/s per direction, seconds, ports.
/// Limitations: leaves are provisioned for a full SU even when the last SU is partial; no UFM or
/// storage ports; no rail-only variant (drop the spines) yet.
/// Source: DGX SuperPOD H100 RA (RA-11333-001) table 4 and B200 RA tables: 4 SUs = 32 leaves,
/// 16 spines, 1,024 leaf-spine cables; 64 SUs = 512 leaves, 512 spines, 256 cores
/// (costs-topology-failures.md section 2.1).

#include <cstdint>

#include "topologies/link_class.hpp"
#include "topologies/network.hpp"
#include "topologies/node_domain.hpp"

namespace clustersim::topologies {

struct RailOptimizedSpec {
  NodeSpec node = {};
  std::int64_t nodes = 32;
  std::int64_t su_nodes = 32;            // servers per scalable unit (SuperPOD: 32)
  std::int64_t rails_per_leaf = 1;       // consecutive rails sharing a leaf; divides the NICs per server
  std::int64_t switch_radix = 64;        // Quantum-2 QM9700: 64 x 400G
  double leaf_oversubscription = 1.0;    // leaf downlinks : uplinks (2.0 = 2:1)
  double spine_oversubscription = 1.0;   // spine downlinks : uplinks, when a core tier is needed
  LinkSpec fabric = {.link_class = LinkClass::infiniband_ndr};  // switch <-> switch

  friend bool operator==(const RailOptimizedSpec&, const RailOptimizedSpec&) = default;
};

/// Throws std::invalid_argument naming the broken rule.
Network build_rail_optimized(const RailOptimizedSpec& spec);

/// Closed form, assuming the rank halves split at SU (with cores: pod) boundaries:
/// min(N/2 x injection, first-half leaf uplinks, first-half spine uplinks) x link rate.
double closed_form_bisection_bytes_per_s(const RailOptimizedSpec& spec);

}  // namespace clustersim::topologies
