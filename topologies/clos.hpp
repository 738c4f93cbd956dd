#pragma once
/// Clos switch tiers above a row of leaves, shared by the fat-tree and rail-optimized builders.
/// Two tiers: each leaf spreads its uplinks round-robin over all spines, so any two leaves meet
/// at every spine (leaf-spine-leaf). Three tiers: leaves form pods; a pod has one spine per leaf
/// uplink and each leaf one cable to each spine of its pod; spine uplinks spread round-robin over
/// all cores, so every pod reaches every core (leaf-spine-core-spine-leaf).
/// Units: switch radix in ports; oversubscription = downlinks / uplinks (2.0 means 2:1).
/// Limitations: one link spec for all switch-switch cables; uneven divisions leave ports unused.
/// Source: k-ary fat tree of Al-Fares, Loukissas, Vahdat (SIGCOMM 2008); leaf/spine/core counts
/// checked against the DGX SuperPOD tables (costs-topology-failures.md sections 2.1 and 2.4).

#include <cstdint>
#include <span>
#include <string>

#include "topologies/network.hpp"

namespace clustersim::topologies::clos {

struct PortSplit {
  std::int64_t down = 0;
  std::int64_t up = 0;
};

/// up = floor(radix / (1 + r)), down = round(up x r), so down + up <= radix and down / up ~ r.
/// Throws std::invalid_argument (naming `who`) when no uplink fits.
PortSplit split_ports(std::int64_t radix, double oversubscription, const std::string& who);

/// Switch counts above the leaves.
struct UpperPlan {
  std::int64_t pods = 0;    // 0 for two tiers
  std::int64_t spines = 0;  // all pods together
  std::int64_t cores = 0;   // 0 for two tiers
};

/// Plans two tiers (leaves_per_pod == 0) or three. Throws std::invalid_argument when the radix
/// cannot connect every leaf pair in that many tiers.
UpperPlan plan_upper(std::int64_t leaves, std::int64_t leaf_uplinks, std::int64_t leaves_per_pod,
                     std::int64_t spine_uplinks, std::int64_t radix, const std::string& who);

/// The closed-form bisection (bytes/s, one direction) of servers under a Clos: the least of the
/// servers' own injection (half of `server_injection_total`, every server's NICs together), the
/// uplinks of half the leaves when the two halves of the servers sit on different leaves
/// (`halves_on_different_leaves`), and the uplinks of half the spines when there are two pods or
/// more. `fabric_bytes_per_s` is one switch-switch cable's bandwidth.
double bisection_bytes_per_s(double server_injection_total, bool halves_on_different_leaves,
                             std::int64_t leaves, std::int64_t leaf_uplinks, const UpperPlan& plan,
                             std::int64_t spine_uplinks, double fabric_bytes_per_s);

/// Adds the planned spines and cores above `leaves` (leaf i of pod p is leaves[p * per_pod + i]).
void add_upper(Network& network, std::span<const NodeId> leaves, std::int64_t leaf_uplinks,
               std::int64_t leaves_per_pod, std::int64_t spine_uplinks, const UpperPlan& plan,
               const LinkSpec& fabric);

}  // namespace clustersim::topologies::clos
