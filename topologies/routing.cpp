#include "topologies/routing.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "sim/hashing.hpp"

namespace clustersim::topologies {

namespace {

constexpr std::size_t chunk_entries = std::size_t{1} << 16;
constexpr std::uint64_t valiant_salt = 0x76616c69616e7400ULL;  // "valiant"

std::uint64_t pair_key(NodeId src, NodeId dst) { return (std::uint64_t{src} << 32) | dst; }

const Network& require_finalized(const Network& network) {
  if (!network.finalized()) throw std::logic_error("Router: the network is not finalized");
  return network;
}

}  // namespace

double route_latency_s(const Network& network, std::span<const LinkId> route) {
  double total = 0.0;
  for (const LinkId l : route) total += network.link(l).latency_s;
  return total;
}

double route_bottleneck_bytes_per_s(const Network& network, std::span<const LinkId> route) {
  double slowest = std::numeric_limits<double>::infinity();
  for (const LinkId l : route) slowest = std::min(slowest, network.link(l).bytes_per_s);
  return slowest;
}

Router::Router(const Network& network, RouterOptions options)
    : network_(require_finalized(network)),
      options_(options),
      epoch_(network.failure_epoch()),
      search_(network, options.distance_fields) {
  table_.resize(64);
}

void Router::clear() {
  std::fill(table_.begin(), table_.end(), Slot{});
  cached_ = 0;
  chunk_ = 0;
  chunk_used_ = 0;
  search_.clear();
}

void Router::sync_with_failures() {
  if (network_.failure_epoch() != epoch_) {
    clear();
    epoch_ = network_.failure_epoch();
  }
}

SearchTarget Router::target_of(NodeId dst) const {
  // On a dragonfly a minimal route enters the destination's group by its one global link.
  const bool dragonfly = network_.kind() == TopologyKind::dragonfly;
  return {.id = dst, .is_group = false, .entry_group = dragonfly ? network_.node(dst).group : -1};
}

void Router::unreachable(NodeId src, NodeId dst) const {
  throw RoutingError("no route from " + network_.node(src).name + " to " + network_.node(dst).name +
                     ": failed links or nodes disconnect them");
}

void Router::route_minimal(NodeId src, NodeId dst, std::uint32_t flow) {
  const std::uint64_t base = sim::hash_combine(sim::hash_combine(sim::hash_combine(options_.seed, src), dst), flow);
  SearchTarget target = target_of(dst);
  NodeId end = search_.find(src, target, base, scratch_);
  if (end == PathSearch::no_node && target.entry_group >= 0) {
    target.entry_group = -1;  // failures left no single-global-link route: take any shortest one
    end = search_.find(src, target, base, scratch_);
  }
  if (end == PathSearch::no_node) unreachable(src, dst);
}

bool Router::route_valiant(NodeId src, NodeId dst, std::uint32_t flow) {
  const std::int32_t gs = network_.node(src).group, gd = network_.node(dst).group;
  const auto groups = static_cast<std::int64_t>(network_.group_count());
  const std::int64_t choices = groups - (gs == gd ? 1 : 2);
  if (network_.kind() != TopologyKind::dragonfly || gs < 0 || gd < 0 || choices < 1) return false;
  const std::uint64_t base = sim::hash_combine(sim::hash_combine(sim::hash_combine(options_.seed ^ valiant_salt, src), dst), flow);
  auto intermediate = static_cast<std::int64_t>(sim::hash_combine(base, 0) % static_cast<std::uint64_t>(choices));
  for (std::int64_t g = 0; g <= intermediate; ++g) {
    if (g == gs || g == gd) ++intermediate;  // skip the source and destination groups
  }
  const SearchTarget via{.id = static_cast<std::uint32_t>(intermediate), .is_group = true,
                         .entry_group = static_cast<std::int32_t>(intermediate)};
  const NodeId middle = search_.find(src, via, sim::hash_combine(base, 1), scratch_);
  if (middle == PathSearch::no_node) return false;
  if (search_.find(middle, target_of(dst), sim::hash_combine(base, 2), scratch_) == PathSearch::no_node) {
    scratch_.clear();
    return false;
  }
  return true;
}

std::span<const LinkId> Router::route(NodeId src, NodeId dst, std::uint32_t flow) {
  if (src >= network_.node_count() || dst >= network_.node_count()) {
    throw std::out_of_range("route: node id out of range");
  }
  sync_with_failures();
  if (src == dst) return {};
  const std::uint64_t pair = pair_key(src, dst);
  Slot* slot = find_slot(pair, flow);
  if (slot->used) return {slot->links, slot->length};

  scratch_.clear();
  // Valiant falls back to minimal where it does not apply or failures block its detour.
  if (options_.policy != RoutingPolicy::valiant || !route_valiant(src, dst, flow)) {
    route_minimal(src, dst, flow);
  }
  if ((cached_ + 1) * 2 > table_.size()) {
    grow_table();
    slot = find_slot(pair, flow);
  }
  *slot = {.pair = pair, .flow = flow, .length = static_cast<std::uint32_t>(scratch_.size()),
           .links = store(scratch_), .used = true};
  ++cached_;
  return {slot->links, slot->length};
}

std::span<const LinkId> Router::route_ranks(std::size_t src_rank, std::size_t dst_rank, std::uint32_t flow) {
  return route(network_.gpu_of_rank(src_rank), network_.gpu_of_rank(dst_rank), flow);
}

const LinkId* Router::store(std::span<const LinkId> links) {
  if (chunks_.empty() || chunk_used_ + links.size() > chunk_sizes_[chunk_]) {
    // Move to the next chunk that fits, reusing chunks kept by clear().
    std::size_t next = chunks_.empty() ? 0 : chunk_ + 1;
    while (next < chunks_.size() && chunk_sizes_[next] < links.size()) ++next;
    if (next == chunks_.size()) {
      const std::size_t size = std::max(chunk_entries, links.size());
      chunks_.push_back(std::make_unique<LinkId[]>(size));
      chunk_sizes_.push_back(size);
    }
    chunk_ = next;
    chunk_used_ = 0;
  }
  LinkId* out = chunks_[chunk_].get() + chunk_used_;
  std::copy(links.begin(), links.end(), out);
  chunk_used_ += links.size();
  return out;
}

Router::Slot* Router::find_slot(std::uint64_t pair, std::uint32_t flow) {
  const std::size_t mask = table_.size() - 1;
  std::size_t i = static_cast<std::size_t>(sim::hash_combine(pair, flow)) & mask;
  while (table_[i].used && (table_[i].pair != pair || table_[i].flow != flow)) i = (i + 1) & mask;
  return &table_[i];
}

void Router::grow_table() {
  std::vector<Slot> old(table_.size() * 2);
  old.swap(table_);
  for (const Slot& s : old) {
    if (s.used) *find_slot(s.pair, s.flow) = s;
  }
}

}  // namespace clustersim::topologies
