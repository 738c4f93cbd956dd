#pragma once
/// Routes between network nodes as sequences of directed link ids.
/// Minimal: fewest links, avoiding failed links and nodes; among equal-cost next hops each hop
/// picks one by a hash of (seed, src, dst, flow, current node), as switches hash a flow's header
/// (ECMP), so a flow id stands for a queue pair or an NCCL channel. Deterministic across runs and
/// platforms (own hash, links in id order; no std::hash).
/// On a dragonfly a minimal route uses at most one global link, into the destination's group
/// (local-global-local, as in Kim et al.), even where two global links would be fewer hops; when
/// failures leave no such route it takes the shortest route there is.
/// Valiant (dragonfly only): a minimal route to the nearest router of an intermediate group
/// chosen by the same hash, then a minimal route on to the destination: at most 2 global and 3
/// local router hops, against at most 3 router hops for minimal.
/// Routes never transit a GPU (no PXN forwarding). Routes are cached per (src, dst, flow) in flat
/// chunked storage; path_search.hpp finds them (bidirectional BFS, or a per-destination reverse
/// BFS once a destination has several sources).
/// Limitations: hop count is the only cost (fine for the uniform-tier topologies built here);
/// ECMP is static per flow, not adaptive or per-packet; no UGAL.
/// Source: ECMP hashing and its collisions as in Meta's RoCE fabric (costs-topology-failures.md
/// section 2.2); Valiant routing for dragonflies as in Kim et al., ISCA 2008.

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "topologies/network.hpp"
#include "topologies/path_search.hpp"

namespace clustersim::topologies {

enum class RoutingPolicy : std::uint8_t { minimal, valiant };

struct RouterOptions {
  RoutingPolicy policy = RoutingPolicy::minimal;
  std::uint64_t seed = 0;              // ECMP and Valiant hash seed
  std::size_t distance_fields = 64;    // per-destination reverse BFS kept (least recently used out)
};

/// A pair that failures have disconnected; the message names both ends.
class RoutingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Sum of the links' latencies along a route, in seconds.
double route_latency_s(const Network& network, std::span<const LinkId> route);
/// The slowest link's rate along a route, in bytes/s (infinity for an empty route).
double route_bottleneck_bytes_per_s(const Network& network, std::span<const LinkId> route);

class Router {
 public:
  /// `network` must be finalized and outlive the router. Failures set on it later are picked
  /// up at the next call (the caches are dropped when its failure epoch changes).
  explicit Router(const Network& network, RouterOptions options = {});

  /// The route from src to dst for `flow`; empty when src == dst. The span stays valid until
  /// the network's failure set changes or clear() is called. Throws RoutingError when the pair
  /// is disconnected and std::out_of_range for a bad id.
  std::span<const LinkId> route(NodeId src, NodeId dst, std::uint32_t flow = 0);
  /// route() between the GPUs of two ranks.
  std::span<const LinkId> route_ranks(std::size_t src_rank, std::size_t dst_rank, std::uint32_t flow = 0);

  const Network& network() const { return network_; }
  const RouterOptions& options() const { return options_; }
  std::size_t cached_routes() const { return cached_; }
  /// Drops all cached routes and distances (keeps the memory).
  void clear();

 private:
  struct Slot {
    std::uint64_t pair = 0;
    std::uint32_t flow = 0;
    std::uint32_t length = 0;
    const LinkId* links = nullptr;
    bool used = false;
  };

  void sync_with_failures();
  SearchTarget target_of(NodeId dst) const;
  void route_minimal(NodeId src, NodeId dst, std::uint32_t flow);
  bool route_valiant(NodeId src, NodeId dst, std::uint32_t flow);
  [[noreturn]] void unreachable(NodeId src, NodeId dst) const;
  const LinkId* store(std::span<const LinkId> links);
  Slot* find_slot(std::uint64_t pair, std::uint32_t flow);
  void grow_table();

  const Network& network_;
  RouterOptions options_;
  std::uint64_t epoch_ = 0;
  PathSearch search_;

  std::vector<Slot> table_;  // open addressing, linear probing, power-of-two size
  std::size_t cached_ = 0;
  std::vector<std::unique_ptr<LinkId[]>> chunks_;  // route storage; chunks never move
  std::vector<std::size_t> chunk_sizes_;
  std::size_t chunk_ = 0;       // chunk being filled
  std::size_t chunk_used_ = 0;  // entries used in it
  std::vector<LinkId> scratch_;
};

}  // namespace clustersim::topologies
