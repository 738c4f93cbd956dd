#include "models/comm/flow_collectives.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace clustersim::models {

namespace {

/// The group's ranks per node, nodes in order of first appearance.
std::vector<std::vector<std::int64_t>> by_node(const FlowNetwork& network, std::span<const std::int64_t> ranks) {
  std::vector<std::vector<std::int64_t>> nodes;
  std::unordered_map<std::int32_t, std::size_t> index;
  for (const std::int64_t r : ranks) {
    const auto [it, added] = index.try_emplace(network.server_of(r), nodes.size());
    if (added) nodes.emplace_back();
    nodes[it->second].push_back(r);
  }
  return nodes;
}

bool uniform(const std::vector<std::vector<std::int64_t>>& nodes) {
  return std::all_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n.size() == nodes.front().size(); });
}

void append_cycle(const FlowNetwork& network, std::span<const std::int64_t> order, double bytes, std::uint32_t channel,
                  std::vector<Transfer>& out) {
  const std::size_t n = order.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t src = order[i], dst = order[(i + 1) % n];
    // Inside a node the route is unique: drop the channel so that channels merge into flow classes.
    const bool same_node = network.server_of(src) == network.server_of(dst);
    out.push_back({.src = src, .dst = dst, .bytes = bytes, .weight = 1.0, .channel = same_node ? 0u : channel});
  }
}

std::int64_t ceil_log2(std::int64_t n) {
  return static_cast<std::int64_t>(std::ceil(std::log2(static_cast<double>(n))));
}

}  // namespace

FlowSpan FlowLowering::add(sim::TaskGraph& graph, std::vector<Transfer> transfers, double latency_s,
                           sim::TaskLabel label) {
  // Flow classes: identical transfers (same ends, channel, route part, size and cap) become one
  // weighted task.
  const auto key = [](const Transfer& t) { return std::tie(t.src, t.dst, t.channel, t.part, t.bytes, t.cap_bytes_per_s); };
  std::sort(transfers.begin(), transfers.end(), [&](const Transfer& a, const Transfer& b) { return key(a) < key(b); });
  std::size_t kept = 0;
  for (const Transfer& t : transfers) {
    if (t.src == t.dst || !(t.bytes > 0.0)) continue;
    if (kept > 0 && key(transfers[kept - 1]) == key(t)) {
      transfers[kept - 1].weight += t.weight;
      continue;
    }
    transfers[kept++] = t;
  }
  transfers.resize(kept);

  sim::TaskLabel start_label = label;
  start_label.rank = transfers.empty() ? label.rank : static_cast<std::int32_t>(transfers.front().src);
  const sim::TaskId start = graph.add_task({.latency = sim::Time::from_seconds(latency_s), .label = start_label});
  sim::TaskLabel end_label = label;
  end_label.rank = -1;
  std::vector<sim::TaskId> sent;
  sent.reserve(transfers.size());
  for (const Transfer& t : transfers) {
    scratch_.clear();
    std::span<const topologies::LinkId> route = network_.route(t.src, t.dst, t.channel);
    if (t.part == RoutePart::first) route = route.first(1);
    if (t.part == RoutePart::last) route = route.last(1);
    for (const topologies::LinkId link : route) scratch_.push_back(first_link_ + link);
    sim::TaskLabel flow_label = label;
    flow_label.rank = static_cast<std::int32_t>(t.part == RoutePart::last ? t.dst : t.src);
    sent.push_back(graph.add_task(
        {.work = t.bytes, .rate_cap_per_s = t.cap_bytes_per_s, .weight = t.weight, .label = flow_label}, scratch_,
        std::span<const sim::TaskId>(&start, 1)));
  }
  const sim::TaskId end = graph.add_task({.label = end_label}, {}, sent.empty() ? std::span<const sim::TaskId>(&start, 1)
                                                                                 : std::span<const sim::TaskId>(sent));
  return {start, end};
}

void append_ring(const FlowNetwork& network, std::span<const std::int64_t> ranks, double bytes_per_rank,
                 std::vector<Transfer>& out) {
  if (ranks.size() < 2) return;
  const auto nodes = by_node(network, ranks);
  const std::size_t k = nodes.front().size();
  if (nodes.size() == 1 || k == 1 || !uniform(nodes)) {
    std::vector<std::int64_t> order;
    for (const auto& node : nodes) order.insert(order.end(), node.begin(), node.end());
    append_cycle(network, order, bytes_per_rank, 0, out);
    return;
  }
  std::vector<std::int64_t> order;
  order.reserve(ranks.size());
  for (std::size_t c = 0; c < k; ++c) {
    order.clear();
    for (std::size_t j = 0; j < nodes.size(); ++j)
      for (std::size_t i = 0; i < k; ++i)
        order.push_back(j % 2 == 0 ? nodes[j][(c + i) % k] : nodes[j][(c + 2 * k - 1 - i) % k]);
    append_cycle(network, order, bytes_per_rank / static_cast<double>(k), static_cast<std::uint32_t>(c), out);
  }
}

CommGroup comm_group_of(const FlowNetwork& network, std::span<const std::int64_t> ranks) {
  std::size_t most = 0;
  for (const auto& node : by_node(network, ranks)) most = std::max(most, node.size());
  return {.ranks = static_cast<std::int64_t>(ranks.size()), .ranks_per_node = static_cast<std::int64_t>(most)};
}

void append_all_reduce(const FlowNetwork& network, std::span<const std::int64_t> ranks, double bytes,
                       FlowAlgorithm algorithm, const ClusterSpec& cluster, const CommProfile& profile,
                       std::vector<Transfer>& out) {
  if (ranks.size() < 2) return;
  const auto nodes = by_node(network, ranks);
  const std::size_t k = nodes.front().size();
  const double kd = static_cast<double>(k);
  // NVLS pays off where the switch's reduction outruns a ring's 2(k-1)/k x S per GPU.
  const double nvls_rate = cluster.gpu.nvlink_bytes_per_s * profile.nvls_algbw_efficiency;
  const double ring_algbw = cluster.gpu.nvlink_bytes_per_s * profile.nvlink_efficiency / (2.0 * (kd - 1.0) / kd);
  const bool nvls_better = k > 1 && nvls_rate > ring_algbw;
  if (algorithm == FlowAlgorithm::automatic)
    algorithm = nodes.size() > 1 && uniform(nodes) &&
                        all_reduce_uses_tree({.ranks = static_cast<std::int64_t>(ranks.size()),
                                              .ranks_per_node = static_cast<std::int64_t>(k)},
                                             cluster, profile)
                    ? FlowAlgorithm::tree
                : nodes.size() == 1 && nvls_better ? FlowAlgorithm::nvls
                                                   : FlowAlgorithm::ring;
  auto inside = [&](const std::vector<std::int64_t>& node, bool nvls) {
    if (node.size() < 2) return;
    if (!nvls) {
      append_ring(network, node, 2.0 * (kd - 1.0) / kd * bytes, out);
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::int64_t peer = node[(i + 1) % node.size()];
      out.push_back({.src = node[i], .dst = peer, .bytes = bytes, .cap_bytes_per_s = nvls_rate, .part = RoutePart::first});
      out.push_back({.src = peer, .dst = node[i], .bytes = bytes, .cap_bytes_per_s = nvls_rate, .part = RoutePart::last});
    }
  };
  switch (algorithm) {
    case FlowAlgorithm::ring:
    case FlowAlgorithm::automatic:
      append_ring(network, ranks, bus_factor(CollectiveOp::all_reduce, static_cast<std::int64_t>(ranks.size())) * bytes,
                  out);
      return;
    case FlowAlgorithm::nvls:
      if (nodes.size() != 1 || !(nvls_rate > 0.0))
        throw std::invalid_argument("nvls: an all-reduce inside one node whose NVSwitch reduces (NVLink 4 or later)");
      inside(nodes.front(), true);
      return;
    case FlowAlgorithm::tree: {
      if (nodes.size() < 2 || !uniform(nodes))
        throw std::invalid_argument("tree: an all-reduce over the same number of ranks on each of several nodes");
      for (const auto& node : nodes) inside(node, nvls_better);
      // Between nodes, pipelined with the above: the busiest node's tree traffic, S/k x
      // tree_network_bytes_per_byte, through each rail's NIC, at the share of the NIC's tree rate
      // that the pipeline with the node's stage leaves it.
      const double per_byte = tree_network_bytes_per_byte(static_cast<std::int64_t>(nodes.size()));
      const double nic_per_gpu = node_nic_line_rate({.ranks = 2, .ranks_per_node = 1}, cluster);
      const CommGroup group{.ranks = static_cast<std::int64_t>(ranks.size()), .ranks_per_node = static_cast<std::int64_t>(k)};
      const double cap = nic_per_gpu * profile.network_efficiency * profile.tree_efficiency *
                         tree_network_share(group, cluster, profile);
      const std::size_t first = out.size();
      for (std::size_t rail = 0; rail < k; ++rail) {
        std::vector<std::int64_t> ring;
        for (const auto& node : nodes) ring.push_back(node[rail]);
        append_ring(network, ring, per_byte * bytes / kd, out);
      }
      for (std::size_t i = first; i < out.size(); ++i) out[i].cap_bytes_per_s = cap;
      return;
    }
    default: throw std::invalid_argument("all-reduce: ring, nvls, tree or hierarchical");
  }
}

void append_all_to_all(const FlowNetwork& network, std::span<const std::int64_t> ranks, double bytes_per_rank,
                       std::vector<Transfer>& out) {
  const double share = bytes_per_rank / static_cast<double>(ranks.size());
  const auto nodes = by_node(network, ranks);
  if (!uniform(nodes)) {
    for (const std::int64_t src : ranks)
      for (const std::int64_t dst : ranks)
        if (src != dst) out.push_back({.src = src, .dst = dst, .bytes = share});
    return;
  }
  const std::size_t k = nodes.front().size(), count = nodes.size();
  for (std::size_t x = 0; x < count; ++x)
    for (std::size_t r = 0; r < k; ++r) {
      const std::int64_t src = nodes[x][r];
      if (k > 1) out.push_back({.src = src, .dst = nodes[x][(r + 1) % k], .bytes = static_cast<double>(k - 1) * share});
      for (std::size_t m = 1; m < count; ++m)
        out.push_back({.src = src, .dst = nodes[(x + m) % count][r], .bytes = static_cast<double>(k) * share});
    }
}

FlowSpan lower_collective(sim::TaskGraph& graph, FlowLowering& lowering, const CollectiveCall& call,
                          const ClusterSpec& cluster, const CommProfile& profile, sim::TaskLabel label) {
  const FlowNetwork& network = lowering.network();
  const std::span<const std::int64_t> ranks = call.ranks;
  const CommGroup group = comm_group_of(network, ranks);
  // The protocol's latency, and its lower rate as more bytes through the same links.
  const Protocol protocol = collective_protocol(call.op, call.bytes, group, cluster, profile);
  const double latency = protocol.latency_s;
  const double wire = 1.0 / protocol.bandwidth_fraction;
  std::vector<Transfer> transfers;
  switch (call.op) {
    case CollectiveOp::send_recv:
      if (ranks.size() != 2) throw std::invalid_argument("send_recv: needs exactly two ranks, from and to");
      if (const auto relay = network.pxn_relay(ranks[0], ranks[1])) {
        // PXN: across NVLink to the GPU on the receiver's rail, out through its NIC; the two legs
        // carry the same chunks one behind the other.
        transfers.push_back({.src = ranks[0], .dst = *relay, .bytes = wire * call.bytes});
        transfers.push_back({.src = *relay, .dst = ranks[1], .bytes = wire * call.bytes});
      } else {
        transfers.push_back({.src = ranks[0], .dst = ranks[1], .bytes = wire * call.bytes});
      }
      return lowering.add(graph, std::move(transfers), latency, label);
    case CollectiveOp::all_to_all:
      append_all_to_all(network, ranks, call.bytes, transfers);
      return lowering.add(graph, std::move(transfers), latency, label);
    default: break;
  }
  if (call.op == CollectiveOp::all_reduce && call.algorithm != FlowAlgorithm::hierarchical) {
    append_all_reduce(network, ranks, wire * call.bytes, call.algorithm, cluster, profile, transfers);
    return lowering.add(graph, std::move(transfers), latency, label);
  }
  if (call.algorithm != FlowAlgorithm::hierarchical) {
    append_ring(network, ranks, wire * bus_factor(call.op, group.ranks) * call.bytes, transfers);
    return lowering.add(graph, std::move(transfers), latency, label);
  }

  const auto nodes = by_node(network, ranks);
  if (call.op != CollectiveOp::all_reduce || nodes.size() < 2 || !uniform(nodes))
    throw std::invalid_argument("hierarchical: all-reduce only, over the same number of ranks on each of several nodes");
  // Reduce-scatter inside each node, all-reduce S/k per rail across nodes, all-gather inside each
  // node; the phases split the analytic latency (launch + 2(k-1) NVLink + 2 log2(N) network hops).
  const std::size_t k = nodes.front().size();
  const double kd = static_cast<double>(k);
  const double local_latency = static_cast<double>(k - 1) * profile.nvlink_hop_latency_s;
  const double network_latency = 2.0 * static_cast<double>(ceil_log2(static_cast<std::int64_t>(nodes.size()))) *
                                 profile.network_hop_latency_s;
  auto intra = [&](double bytes) {
    std::vector<Transfer> phase;
    for (const auto& node : nodes) append_ring(network, node, (kd - 1.0) / kd * bytes, phase);
    return phase;
  };
  const FlowSpan scatter = lowering.add(graph, intra(call.bytes), profile.launch_latency_s + local_latency, label);
  std::vector<Transfer> across;
  const double nodes_d = static_cast<double>(nodes.size());
  for (std::size_t rail = 0; rail < k; ++rail) {
    std::vector<std::int64_t> ring;
    for (const auto& node : nodes) ring.push_back(node[rail]);
    append_ring(network, ring, 2.0 * (nodes_d - 1.0) / nodes_d * call.bytes / kd, across);
  }
  const FlowSpan reduce = lowering.add(graph, std::move(across), network_latency, label);
  graph.add_dependency(scatter.last, reduce.first);
  const FlowSpan gather = lowering.add(graph, intra(call.bytes), local_latency, label);
  graph.add_dependency(reduce.last, gather.first);
  return {scatter.first, gather.last};
}

}  // namespace clustersim::models
