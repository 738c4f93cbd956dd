#include "topologies/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "sim/hashing.hpp"

namespace clustersim::topologies {

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, std::int64_t,
                    boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

// Integer capacities in bytes/s keep push-relabel exact; 16k links of 1 TB/s still fit in int64.
void add_arc(FlowGraph& g, std::size_t from, std::size_t to, std::int64_t capacity) {
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  const auto forward = boost::add_edge(from, to, g).first;
  const auto backward = boost::add_edge(to, from, g).first;
  cap[forward] = capacity;
  cap[backward] = 0;
  rev[forward] = backward;
  rev[backward] = forward;
}

void require_finalized(const Network& network, const char* who) {
  if (!network.finalized()) throw std::logic_error(std::string(who) + ": the network is not finalized");
}

}  // namespace

double max_flow_bytes_per_s(const Network& network, std::span<const NodeId> sources, std::span<const NodeId> sinks) {
  require_finalized(network, "max_flow");
  const std::size_t n = network.node_count();
  std::vector<std::uint8_t> side(n, 0);
  for (const NodeId s : sources) side.at(s) = 1;
  for (const NodeId t : sinks) {
    if (side.at(t) == 1) {
      throw std::invalid_argument("max_flow: node " + network.node(t).name + " is source and sink");
    }
    side[t] = 2;
  }
  FlowGraph g(n + 2);
  const std::size_t super_source = n, super_sink = n + 1;
  std::int64_t total = 1;
  auto is_gpu = [&](NodeId id) { return network.node(id).kind == NodeKind::gpu; };
  for (LinkId id = 0; id < network.link_count(); ++id) {
    if (!network.usable(id)) continue;
    const Link& l = network.link(id);
    // GPUs never forward (as in routing): only sources send and only sinks receive.
    if ((is_gpu(l.from) && side[l.from] != 1) || (is_gpu(l.to) && side[l.to] != 2)) continue;
    const std::int64_t capacity = std::llround(l.bytes_per_s);
    add_arc(g, l.from, l.to, capacity);
    total += capacity;
  }
  // Terminal arcs larger than every link together never bind.
  for (const NodeId s : sources) {
    if (!network.node_failed(s)) add_arc(g, super_source, s, total);
  }
  for (const NodeId t : sinks) {
    if (!network.node_failed(t)) add_arc(g, t, super_sink, total);
  }
  return static_cast<double>(boost::push_relabel_max_flow(g, super_source, super_sink));
}

double bisection_bytes_per_s(const Network& network) {
  const auto gpus = network.gpus();
  if (gpus.size() < 2) return 0.0;
  const std::size_t half = gpus.size() / 2;
  return max_flow_bytes_per_s(network, gpus.first(half), gpus.subspan(half));
}

HopStats hop_stats(const Network& network, const HopStatsOptions& options) {
  require_finalized(network, "hop_stats");
  const auto gpus = network.gpus();
  HopStats stats;
  std::vector<NodeId> sources(gpus.begin(), gpus.end());
  if (gpus.size() > options.exact_up_to_gpus && options.sampled_sources < gpus.size()) {
    // Partial Fisher-Yates over ranks with a fixed generator: the same sample everywhere.
    sim::SplitMix64 random(options.seed);
    for (std::size_t i = 0; i < options.sampled_sources; ++i) {
      std::swap(sources[i], sources[i + static_cast<std::size_t>(random.below(sources.size() - i))]);
    }
    sources.resize(options.sampled_sources);
    stats.sampled = true;
  }
  stats.sources = sources.size();
  constexpr std::uint32_t unreached = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> dist(network.node_count());
  std::vector<std::uint8_t> is_gpu(network.node_count());
  for (NodeId id = 0; id < network.node_count(); ++id) is_gpu[id] = network.node(id).kind == NodeKind::gpu;
  std::vector<NodeId> queue;
  double total = 0.0;
  for (const NodeId src : sources) {
    std::fill(dist.begin(), dist.end(), unreached);
    queue.assign(1, src);
    dist[src] = network.node_failed(src) ? unreached : 0;
    for (std::size_t head = 0; head < queue.size() && dist[src] == 0; ++head) {
      const NodeId u = queue[head];
      const auto links = network.out_links(u);
      const auto to = network.out_neighbors(u);
      for (std::size_t i = 0; i < links.size(); ++i) {
        const NodeId v = to[i];
        if (dist[v] != unreached || !network.usable(links[i])) continue;
        dist[v] = dist[u] + 1;
        if (is_gpu[v] == 0) queue.push_back(v);  // GPUs end routes, never forward them
      }
    }
    for (const NodeId dst : gpus) {
      if (dst == src) continue;
      if (dist[dst] == unreached) {
        ++stats.unreachable_pairs;
        continue;
      }
      ++stats.pairs;
      total += dist[dst];
      stats.diameter = std::max(stats.diameter, dist[dst]);
    }
  }
  stats.mean_hops = stats.pairs > 0 ? total / static_cast<double>(stats.pairs) : 0.0;
  return stats;
}

NetworkCounts count_elements(const Network& network) {
  NetworkCounts counts;
  for (std::size_t k = 0; k < node_kind_count; ++k) counts.nodes[k] = network.count(static_cast<NodeKind>(k));
  for (LinkId id = 0; id < network.link_count(); ++id) {
    const Link& l = network.link(id);
    const auto t = static_cast<std::size_t>(l.tier);
    ++counts.links[t];
    if (l.reverse != no_link && l.reverse > id) ++counts.cables[t];
  }
  counts.switches = network.switch_count();
  return counts;
}

}  // namespace clustersim::topologies
