#pragma once
/// A cluster network as a plain value: typed nodes (GPUs, NVSwitches, NICs, switches, routers),
/// directed links with a bandwidth per direction (bytes/s) and a latency (s), out- and in-link
/// adjacency in CSR form for routing, the GPUs in rank-placement order, and the set of failed
/// links and nodes. A cable (a physical bidirectional connection) is a pair of directed links
/// created together; each knows the other as its `reverse`.
/// Limitations: a link is a fluid pipe (no buffers, credits or packets); an NVSwitch domain is
/// one logical switch; GPUs are endpoints only (routes never transit a GPU, i.e. no PXN).
/// Source: structure as in NVIDIA DGX SuperPOD reference architectures and the fat-tree,
/// dragonfly and torus literature cited by the builders (costs-topology-failures.md section 2).

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topologies/link_class.hpp"

namespace clustersim::topologies {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr LinkId no_link = std::numeric_limits<LinkId>::max();

enum class NodeKind : std::uint8_t { gpu, nvswitch, nic, leaf, spine, core, router };
inline constexpr std::size_t node_kind_count = 7;

/// What a link connects, for counting, failure injection and reports.
enum class LinkTier : std::uint8_t {
  nvlink,      // GPU <-> NVSwitch
  pcie,        // GPU <-> NIC
  host,        // NIC <-> its first switch or router
  leaf_spine,  // leaf <-> spine
  spine_core,  // spine <-> core
  local,       // dragonfly router <-> router inside a group
  global,      // dragonfly router <-> router across groups
  torus,       // torus or ring router <-> neighbour router
};
inline constexpr std::size_t link_tier_count = 8;

enum class TopologyKind : std::uint8_t { single_node, fat_tree, rail_optimized, dragonfly, torus, ring, custom };

std::string_view to_string(NodeKind kind);
std::string_view to_string(LinkTier tier);
std::string_view to_string(TopologyKind kind);
constexpr bool is_switch(NodeKind kind) { return kind != NodeKind::gpu && kind != NodeKind::nic; }

struct Node {
  NodeKind kind = NodeKind::gpu;
  std::uint32_t index = 0;  // ordinal among nodes of the same kind, in creation order
  std::int32_t server = -1;  // compute node (server) holding a GPU, NVSwitch or NIC; -1 for fabric
  std::int32_t group = -1;   // dragonfly group, fat-tree pod or scalable unit; -1 where none
  std::string name;
};

struct Link {
  NodeId from = 0;
  NodeId to = 0;
  LinkId reverse = no_link;  // the other direction of the same cable, if any
  LinkTier tier = LinkTier::host;
  LinkClass link_class = LinkClass::infiniband_ndr;
  double bytes_per_s = 0.0;  // per direction
  double latency_s = 0.0;

  double efficiency() const { return link_class_info(link_class).efficiency; }
};

class Network {
 public:
  Network() = default;
  explicit Network(TopologyKind kind) : kind_(kind) {}

  // Construction. Call finalize() after the last add_* and before routing or analysis.
  NodeId add_node(NodeKind kind, std::string name, std::int32_t server = -1, std::int32_t group = -1);
  LinkId add_link(NodeId from, NodeId to, const LinkSpec& spec, LinkTier tier);
  /// Adds a -> b and b -> a; returns the a -> b id (b -> a is that id + 1).
  LinkId add_cable(NodeId a, NodeId b, const LinkSpec& spec, LinkTier tier);
  /// Ranks in placement order; by default the GPUs in creation order.
  void set_rank_order(std::vector<NodeId> gpus);
  /// Builds the CSR adjacency. Throws std::invalid_argument for a bad rank order.
  void finalize();
  bool finalized() const { return finalized_; }

  // Structure.
  TopologyKind kind() const { return kind_; }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t link_count() const { return links_.size(); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const Link& link(LinkId id) const { return links_[id]; }
  std::span<const Node> nodes() const { return nodes_; }
  std::span<const Link> links() const { return links_; }
  std::span<const LinkId> out_links(NodeId id) const {
    return {out_ids_.data() + out_begin_[id], out_ids_.data() + out_begin_[id + 1]};
  }
  std::span<const LinkId> in_links(NodeId id) const {
    return {in_ids_.data() + in_begin_[id], in_ids_.data() + in_begin_[id + 1]};
  }
  /// The far ends of out_links(id) / near ends of in_links(id), index for index: a compact copy
  /// that lets searches skip loading whole Link records.
  std::span<const NodeId> out_neighbors(NodeId id) const {
    return {out_far_.data() + out_begin_[id], out_far_.data() + out_begin_[id + 1]};
  }
  std::span<const NodeId> in_neighbors(NodeId id) const {
    return {in_far_.data() + in_begin_[id], in_far_.data() + in_begin_[id + 1]};
  }
  /// GPU node ids by rank: TP-adjacent ranks share a server (ranks 0..7 on server 0, ...).
  std::span<const NodeId> gpus() const { return rank_gpus_; }
  NodeId gpu_of_rank(std::size_t rank) const { return rank_gpus_.at(rank); }
  /// Number of groups (max group + 1 over all nodes); 0 when nodes carry no group.
  std::size_t group_count() const { return group_count_; }

  // Counts.
  std::size_t count(NodeKind kind) const { return node_counts_[static_cast<std::size_t>(kind)]; }
  std::size_t switch_count() const;
  std::size_t nic_count() const { return count(NodeKind::nic); }
  /// Directed links of a tier.
  std::size_t link_count(LinkTier tier) const;
  /// Cables of a tier: pairs of directed links created by add_cable.
  std::size_t cable_count(LinkTier tier) const;

  // Failures. A failed link or node carries nothing; routing and analysis skip it.
  void fail_link(LinkId id);
  /// Fails both directions, as a broken cable or port does.
  void fail_cable(LinkId id);
  void fail_node(NodeId id);
  void restore_all();
  bool link_failed(LinkId id) const { return link_failed_[id] != 0; }
  bool node_failed(NodeId id) const { return node_failed_[id] != 0; }
  /// True when the link and both its ends are up.
  bool usable(LinkId id) const {
    const Link& l = links_[id];
    return link_failed_[id] == 0 && node_failed_[l.from] == 0 && node_failed_[l.to] == 0;
  }
  /// Changes whenever the failure set changes, so that caches (routes) know to drop stale data.
  std::uint64_t failure_epoch() const { return failure_epoch_; }

 private:
  TopologyKind kind_ = TopologyKind::custom;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<NodeId> rank_gpus_;
  bool rank_order_set_ = false;
  bool finalized_ = false;
  std::size_t group_count_ = 0;
  std::array<std::size_t, node_kind_count> node_counts_{};
  std::array<std::uint32_t, node_kind_count> next_index_{};

  std::vector<std::uint32_t> out_begin_, in_begin_;  // CSR offsets, node_count + 1 entries
  std::vector<LinkId> out_ids_, in_ids_;              // link ids grouped by node, ascending
  std::vector<NodeId> out_far_, in_far_;              // the other end of each of those links

  std::vector<std::uint8_t> link_failed_, node_failed_;
  std::uint64_t failure_epoch_ = 0;
};

}  // namespace clustersim::topologies
