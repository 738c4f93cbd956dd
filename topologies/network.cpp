#include "topologies/network.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace clustersim::topologies {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::gpu: return "gpu";
    case NodeKind::nvswitch: return "nvswitch";
    case NodeKind::nic: return "nic";
    case NodeKind::leaf: return "leaf";
    case NodeKind::spine: return "spine";
    case NodeKind::core: return "core";
    case NodeKind::router: return "router";
  }
  return "?";
}

std::string_view to_string(LinkTier tier) {
  switch (tier) {
    case LinkTier::nvlink: return "nvlink";
    case LinkTier::pcie: return "pcie";
    case LinkTier::host: return "host";
    case LinkTier::leaf_spine: return "leaf_spine";
    case LinkTier::spine_core: return "spine_core";
    case LinkTier::local: return "local";
    case LinkTier::global: return "global";
    case LinkTier::torus: return "torus";
  }
  return "?";
}

std::string_view to_string(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::single_node: return "single_node";
    case TopologyKind::fat_tree: return "fat_tree";
    case TopologyKind::rail_optimized: return "rail_optimized";
    case TopologyKind::dragonfly: return "dragonfly";
    case TopologyKind::torus: return "torus";
    case TopologyKind::ring: return "ring";
    case TopologyKind::custom: return "custom";
  }
  return "?";
}

NodeId Network::add_node(NodeKind kind, std::string name, std::int32_t server, std::int32_t group) {
  const auto k = static_cast<std::size_t>(kind);
  nodes_.push_back({.kind = kind, .index = next_index_[k]++, .server = server, .group = group,
                    .name = std::move(name)});
  ++node_counts_[k];
  node_failed_.push_back(0);
  if (group >= 0) group_count_ = std::max(group_count_, static_cast<std::size_t>(group) + 1);
  finalized_ = false;
  return static_cast<NodeId>(nodes_.size() - 1);
}

LinkId Network::add_link(NodeId from, NodeId to, const LinkSpec& spec, LinkTier tier) {
  if (from >= nodes_.size() || to >= nodes_.size() || from == to) {
    throw std::invalid_argument("add_link: bad endpoints " + std::to_string(from) + " -> " +
                                std::to_string(to));
  }
  links_.push_back({.from = from, .to = to, .reverse = no_link, .tier = tier,
                    .link_class = spec.link_class, .bytes_per_s = spec.resolved_bytes_per_s(),
                    .latency_s = spec.resolved_latency_s()});
  link_failed_.push_back(0);
  finalized_ = false;
  return static_cast<LinkId>(links_.size() - 1);
}

LinkId Network::add_cable(NodeId a, NodeId b, const LinkSpec& spec, LinkTier tier) {
  const LinkId forward = add_link(a, b, spec, tier);
  const LinkId backward = add_link(b, a, spec, tier);
  links_[forward].reverse = backward;
  links_[backward].reverse = forward;
  return forward;
}

void Network::set_rank_order(std::vector<NodeId> gpus) {
  rank_gpus_ = std::move(gpus);
  rank_order_set_ = true;
  finalized_ = false;
}

void Network::finalize() {
  const std::size_t n = nodes_.size();
  if (!rank_order_set_) {
    rank_gpus_.clear();
    for (NodeId id = 0; id < n; ++id) {
      if (nodes_[id].kind == NodeKind::gpu) rank_gpus_.push_back(id);
    }
  } else {
    std::vector<std::uint8_t> seen(n, 0);
    for (const NodeId id : rank_gpus_) {
      if (id >= n || nodes_[id].kind != NodeKind::gpu || seen[id] != 0) {
        throw std::invalid_argument("rank order: node " + std::to_string(id) +
                                    " is not a GPU or appears twice");
      }
      seen[id] = 1;
    }
  }
  // Counting sort by endpoint keeps each node's links in ascending id order, which routing relies
  // on for platform-independent ECMP choices.
  auto build = [&](std::vector<std::uint32_t>& begin, std::vector<LinkId>& ids, bool by_from) {
    begin.assign(n + 1, 0);
    for (const Link& l : links_) ++begin[(by_from ? l.from : l.to) + 1];
    for (std::size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
    ids.resize(links_.size());
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
    for (LinkId id = 0; id < links_.size(); ++id) {
      ids[fill[by_from ? links_[id].from : links_[id].to]++] = id;
    }
  };
  build(out_begin_, out_ids_, true);
  build(in_begin_, in_ids_, false);
  out_far_.resize(links_.size());
  in_far_.resize(links_.size());
  for (std::size_t k = 0; k < links_.size(); ++k) {
    out_far_[k] = links_[out_ids_[k]].to;
    in_far_[k] = links_[in_ids_[k]].from;
  }
  finalized_ = true;
}

std::size_t Network::switch_count() const {
  std::size_t total = 0;
  for (std::size_t k = 0; k < node_kind_count; ++k) {
    if (is_switch(static_cast<NodeKind>(k))) total += node_counts_[k];
  }
  return total;
}

std::size_t Network::link_count(LinkTier tier) const {
  return static_cast<std::size_t>(
      std::count_if(links_.begin(), links_.end(), [&](const Link& l) { return l.tier == tier; }));
}

std::size_t Network::cable_count(LinkTier tier) const {
  std::size_t cables = 0;
  for (LinkId id = 0; id < links_.size(); ++id) {
    const Link& l = links_[id];
    if (l.tier == tier && l.reverse != no_link && l.reverse > id) ++cables;
  }
  return cables;
}

void Network::fail_link(LinkId id) {
  link_failed_.at(id) = 1;
  ++failure_epoch_;
}

void Network::fail_cable(LinkId id) {
  link_failed_.at(id) = 1;
  if (links_[id].reverse != no_link) link_failed_[links_[id].reverse] = 1;
  ++failure_epoch_;
}

void Network::fail_node(NodeId id) {
  node_failed_.at(id) = 1;
  ++failure_epoch_;
}

void Network::restore_all() {
  std::fill(link_failed_.begin(), link_failed_.end(), std::uint8_t{0});
  std::fill(node_failed_.begin(), node_failed_.end(), std::uint8_t{0});
  ++failure_epoch_;
}

}  // namespace clustersim::topologies
