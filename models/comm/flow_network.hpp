#pragma once
/// The cluster's network as the `flow` fidelity sees it: the graph cluster_topology.hpp describes,
/// with the scenario's failed cables, a router, and one simulation resource per directed link.
/// A link's capacity is its line rate x the CommProfile's efficiency for its class (NVLink: the
/// profile's NVLink efficiency; NIC and fabric links: its network efficiency; PCIe: the link
/// class's), so flows and the analytic model read the same constants and agree where nothing
/// contends. Units: bytes/s per direction.
/// Limitations: routes are static per (pair, channel) (ECMP by hash, no adaptive routing); a failed
/// cable is routed around, never half-working.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "models/comm/collectives.hpp"
#include "sim/task_graph.hpp"
#include "topologies/network.hpp"
#include "topologies/routing.hpp"

namespace clustersim::models {

/// Fails cluster.failed_links random inter-node cables (seeded by cluster.failed_links_seed, as
/// `clustersim topo --fail-links N --seed S` draws them) and the links named in
/// cluster.failed_link_names, each with its reverse; returns their forward link ids in that order.
/// Throws LayoutError naming the cluster field for an impossible count or an unknown name.
std::vector<topologies::LinkId> fail_cluster_links(topologies::Network& network, const ClusterSpec& cluster);

class FlowNetwork {
 public:
  /// Builds the network and fails cluster.failed_links random inter-node cables (seeded by
  /// cluster.failed_links_seed) and those named in cluster.failed_link_names. Throws LayoutError
  /// naming the cluster field when the network cannot be built or a named link does not exist.
  FlowNetwork(const ClusterSpec& cluster, const CommProfile& profile);
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  const topologies::Network& network() const { return *network_; }
  /// Forward link ids of the failed cables, in the order they were failed.
  std::span<const topologies::LinkId> failed() const { return failed_; }
  /// One resource per directed link, index for index, capacities with efficiency applied.
  std::vector<sim::Resource> resources() const;
  /// The route between two ranks' GPUs on ECMP channel `flow`. Throws LayoutError when failures
  /// disconnect the pair.
  std::span<const topologies::LinkId> route(std::int64_t src_rank, std::int64_t dst_rank, std::uint32_t flow);
  /// The compute node (server) holding a rank's GPU.
  std::int32_t server_of(std::int64_t rank) const;
  /// The rank through which NCCL's PXN sends from `src_rank` to `dst_rank` across the network: the
  /// GPU of the sender's node at the receiver's place on its own node (its rail), whose NIC the
  /// bytes leave by after crossing NVLink; none where the two share a node (an NVLink domain of
  /// several trays is one node here) or a place.
  std::optional<std::int64_t> pxn_relay(std::int64_t src_rank, std::int64_t dst_rank) const;

 private:
  std::unique_ptr<topologies::Network> network_;
  std::unique_ptr<topologies::Router> router_;
  CommProfile profile_;
  std::vector<topologies::LinkId> failed_;
  std::vector<std::int32_t> place_of_rank_;  // the GPU's order among its server's GPUs
  std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> rank_at_;  // (server, place) -> rank
};

}  // namespace clustersim::models
