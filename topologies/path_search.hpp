#pragma once
/// Shortest-path search with deterministic ECMP choice, the engine under Router.
/// A search finds a fewest-links path from a source to a target (one node, or any router of a
/// group) over usable links, never transiting a GPU, optionally letting global (dragonfly) links
/// only enter one group. At each hop the next link is candidate[hash(base, node) % count], the
/// candidates being the links onto some shortest path, in link-id order.
/// Two ways to the same candidates, so the same path: a bidirectional BFS (meets in the middle,
/// touching two small balls instead of the whole network: the cheap way for a target seen once),
/// and a per-target reverse BFS kept in an LRU of fields and expanded lazily (the cheap way when
/// many sources share a target, as in all-to-all or Valiant intermediates; used from the fourth
/// source of a target on, so that a bidirectional ring's two sources per target stay cheap).
/// Group targets (Valiant intermediates) always use fields, so dragonflies with many more groups
/// than `max_fields` recompute them often.
/// Limitations: hop count is the only cost; not thread-safe (one per Router).

#include <cstdint>
#include <vector>

#include "topologies/network.hpp"

namespace clustersim::topologies {

struct SearchTarget {
  std::uint32_t id = 0;        // a node, or a group when is_group
  bool is_group = false;       // any router (NodeKind::router) of group `id`
  std::int32_t entry_group = -1;  // >= 0: global links may only enter this group

  std::uint64_t key() const;
};

class PathSearch {
 public:
  PathSearch(const Network& network, std::size_t max_fields);

  /// Appends a shortest path from src to the target onto `out` and returns its last node, or
  /// returns no_node (leaving `out` as it was) when failures disconnect them.
  NodeId find(NodeId src, const SearchTarget& target, std::uint64_t hash_base, std::vector<LinkId>& out);
  /// Forgets everything learnt (call when the failure set changes).
  void clear();

  static constexpr NodeId no_node = ~NodeId{0};

 private:
  // Reverse BFS from a target, expanded only as far as queries need: once a node is reached,
  // every node nearer the target is known.
  struct Field {
    std::uint64_t key = ~std::uint64_t{0};
    std::int32_t entry_group = -1;
    std::uint64_t last_use = 0;
    std::vector<std::uint32_t> dist;
    std::vector<NodeId> queue;
    std::vector<NodeId> touched;  // every node with a distance, for an O(visited) reset
    std::size_t head = 0;
  };
  // Both directions of one src-target search, kept so that further flows of the same pair only
  // walk again.
  struct Meet {
    bool valid = false;
    bool found = false;
    NodeId src = 0;
    std::uint64_t key = 0;
    std::int32_t entry_group = -1;
    std::uint32_t length = 0;  // D, links on a shortest path
    std::uint32_t switch_at = 0;  // walk by `forward` + `useful` up to here, then by `backward`
    std::vector<std::uint32_t> forward, backward;
    std::vector<std::uint8_t> useful;  // on a shortest path, for nodes up to switch_at
    std::vector<NodeId> forward_queue, backward_queue, forward_touched, backward_touched;
  };

  bool allowed(std::int32_t entry_group, LinkId link) const;
  void add_roots(const SearchTarget& target, auto&& add) const;
  bool use_field(NodeId src, const SearchTarget& target);
  Field& field(const SearchTarget& target);
  void expand_until(Field& f, NodeId node);
  bool meet(NodeId src, const SearchTarget& target);
  NodeId walk_down(const std::vector<std::uint32_t>& dist, std::int32_t entry_group, NodeId from,
                   std::uint64_t hash_base, std::vector<LinkId>& out) const;

  const Network& network_;
  std::size_t max_fields_;
  std::vector<std::uint8_t> is_gpu_;
  std::vector<Field> fields_;
  std::uint64_t use_clock_ = 0;
  // Per target node: the last source searched and how often the source changed (saturating).
  std::vector<NodeId> last_source_;
  std::vector<std::uint8_t> source_changes_;
  Meet meet_;
};

}  // namespace clustersim::topologies
