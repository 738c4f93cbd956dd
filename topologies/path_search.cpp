#include "topologies/path_search.hpp"

#include <algorithm>
#include <limits>

#include "sim/hashing.hpp"

namespace clustersim::topologies {

namespace {
constexpr std::uint32_t unreached = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t infinite = std::numeric_limits<std::uint64_t>::max() / 4;
}  // namespace

std::uint64_t SearchTarget::key() const {
  return std::uint64_t{id} | (std::uint64_t{is_group} << 32) |
         (static_cast<std::uint64_t>(static_cast<std::int64_t>(entry_group) + 1) << 33);
}

PathSearch::PathSearch(const Network& network, std::size_t max_fields)
    : network_(network), max_fields_(std::max<std::size_t>(max_fields, 1)) {
  is_gpu_.resize(network.node_count());
  for (NodeId id = 0; id < network.node_count(); ++id) is_gpu_[id] = network.node(id).kind == NodeKind::gpu;
  last_source_.assign(network.node_count(), no_node);
  source_changes_.assign(network.node_count(), 0);
}

void PathSearch::clear() {
  for (Field& f : fields_) f.key = ~std::uint64_t{0};
  std::fill(last_source_.begin(), last_source_.end(), no_node);
  std::fill(source_changes_.begin(), source_changes_.end(), std::uint8_t{0});
  meet_.valid = false;
}

bool PathSearch::allowed(std::int32_t entry_group, LinkId link) const {
  if (entry_group >= 0) {
    const Link& l = network_.link(link);
    if (l.tier == LinkTier::global && network_.node(l.to).group != entry_group) return false;
  }
  return network_.usable(link);
}

void PathSearch::add_roots(const SearchTarget& target, auto&& add) const {
  if (!target.is_group) {
    if (!network_.node_failed(target.id)) add(target.id);
    return;
  }
  for (NodeId id = 0; id < network_.node_count(); ++id) {
    const Node& n = network_.node(id);
    if (n.kind == NodeKind::router && n.group == static_cast<std::int32_t>(target.id) && !network_.node_failed(id)) {
      add(id);
    }
  }
}

bool PathSearch::use_field(NodeId src, const SearchTarget& target) {
  if (target.is_group) return true;
  const std::uint64_t key = target.key();
  for (const Field& f : fields_) {
    if (f.key == key) return true;
  }
  // From the fourth source of a target on, one reverse BFS serves them all.
  NodeId& last = last_source_[target.id];
  std::uint8_t& changes = source_changes_[target.id];
  if (last != src) {
    last = src;
    changes = static_cast<std::uint8_t>(std::min(changes + 1, 255));
  }
  return changes >= 4;
}

PathSearch::Field& PathSearch::field(const SearchTarget& target) {
  const std::uint64_t key = target.key();
  ++use_clock_;
  for (Field& f : fields_) {
    if (f.key == key) {
      f.last_use = use_clock_;
      return f;
    }
  }
  Field* f = nullptr;
  if (fields_.size() < max_fields_) {
    f = &fields_.emplace_back();
    f->dist.assign(network_.node_count(), unreached);
  } else {
    f = &*std::min_element(fields_.begin(), fields_.end(),
                           [](const Field& a, const Field& b) { return a.last_use < b.last_use; });
    for (const NodeId v : f->touched) f->dist[v] = unreached;
  }
  f->key = key;
  f->entry_group = target.entry_group;
  f->last_use = use_clock_;
  f->touched.clear();
  f->queue.clear();
  f->head = 0;
  add_roots(target, [&](NodeId id) {
    f->dist[id] = 0;
    f->queue.push_back(id);
    f->touched.push_back(id);
  });
  return *f;
}

void PathSearch::expand_until(Field& f, NodeId node) {
  while (f.dist[node] == unreached && f.head < f.queue.size()) {
    const NodeId u = f.queue[f.head++];
    const std::uint32_t next = f.dist[u] + 1;
    const auto links = network_.in_links(u);
    const auto from = network_.in_neighbors(u);
    for (std::size_t i = 0; i < links.size(); ++i) {
      const NodeId w = from[i];
      if (f.dist[w] != unreached || !allowed(f.entry_group, links[i])) continue;
      f.dist[w] = next;
      f.touched.push_back(w);
      // A GPU ends a route but never forwards one, so it is not expanded.
      if (is_gpu_[w] == 0) f.queue.push_back(w);
    }
  }
}

bool PathSearch::meet(NodeId src, const SearchTarget& target) {
  Meet& m = meet_;
  const std::uint64_t key = target.key();
  if (m.valid && m.src == src && m.key == key) return m.found;
  if (m.forward.empty()) {
    m.forward.assign(network_.node_count(), unreached);
    m.backward.assign(network_.node_count(), unreached);
    m.useful.assign(network_.node_count(), 0);
  }
  for (const NodeId v : m.forward_touched) {
    m.forward[v] = unreached;
    m.useful[v] = 0;
  }
  for (const NodeId v : m.backward_touched) m.backward[v] = unreached;
  m.forward_touched.clear();
  m.backward_touched.clear();
  m.forward_queue.clear();
  m.backward_queue.clear();
  m.valid = true;
  m.found = false;
  m.src = src;
  m.key = key;
  m.entry_group = target.entry_group;
  if (network_.node_failed(src)) return false;

  std::uint64_t best = infinite;  // shortest src-target length seen through a meeting node
  auto can_meet = [&](NodeId v) { return is_gpu_[v] == 0 || v == src || m.backward[v] == 0; };
  auto discover_forward = [&](NodeId v, std::uint32_t d) {
    m.forward[v] = d;
    m.forward_touched.push_back(v);
    if (is_gpu_[v] == 0 || v == src) m.forward_queue.push_back(v);
    if (m.backward[v] != unreached && can_meet(v)) best = std::min<std::uint64_t>(best, d + m.backward[v]);
  };
  auto discover_backward = [&](NodeId v, std::uint32_t d) {
    m.backward[v] = d;
    m.backward_touched.push_back(v);
    if (is_gpu_[v] == 0 || d == 0) m.backward_queue.push_back(v);
    if (m.forward[v] != unreached && can_meet(v)) best = std::min<std::uint64_t>(best, m.forward[v] + d);
  };
  discover_forward(src, 0);
  add_roots(target, [&](NodeId id) { discover_backward(id, 0); });

  // Levels 0..a of the forward ball and 0..b of the backward ball are complete. Once a + b
  // reaches the length D, some node of every shortest path is in both, so `best` is D.
  std::uint64_t a = 0, b = 0;
  std::size_t forward_head = 0, backward_head = 0;
  bool forward_done = false, backward_done = false;
  while (best > (forward_done ? infinite : a) + (backward_done ? infinite : b)) {
    const std::size_t forward_front = m.forward_queue.size() - forward_head;
    const std::size_t backward_front = m.backward_queue.size() - backward_head;
    forward_done = forward_done || forward_front == 0;
    backward_done = backward_done || backward_front == 0;
    if (forward_done && backward_done) break;
    if (!forward_done && (backward_done || forward_front <= backward_front)) {
      const auto next = static_cast<std::uint32_t>(a + 1);
      for (const std::size_t end = m.forward_queue.size(); forward_head < end; ++forward_head) {
        const NodeId u = m.forward_queue[forward_head];
        const auto links = network_.out_links(u);
        const auto to = network_.out_neighbors(u);
        for (std::size_t i = 0; i < links.size(); ++i) {
          if (m.forward[to[i]] == unreached && allowed(m.entry_group, links[i])) discover_forward(to[i], next);
        }
      }
      ++a;
    } else if (!backward_done) {
      const auto next = static_cast<std::uint32_t>(b + 1);
      for (const std::size_t end = m.backward_queue.size(); backward_head < end; ++backward_head) {
        const NodeId u = m.backward_queue[backward_head];
        const auto links = network_.in_links(u);
        const auto from = network_.in_neighbors(u);
        for (std::size_t i = 0; i < links.size(); ++i) {
          if (m.backward[from[i]] == unreached && allowed(m.entry_group, links[i])) discover_backward(from[i], next);
        }
      }
      ++b;
    }
  }
  if (best >= infinite) return false;

  // Walk the forward ball up to position k, where the backward distances take over; mark the
  // forward-ball nodes up to k that lie on a shortest path, from k back to the source.
  const std::uint64_t known_back = backward_done ? infinite : b;
  const auto k = static_cast<std::uint32_t>(best > known_back ? best - known_back : 0);
  const auto length = static_cast<std::uint32_t>(best);
  for (auto it = m.forward_touched.rbegin(); it != m.forward_touched.rend(); ++it) {
    const NodeId v = *it;
    const std::uint32_t d = m.forward[v];
    if (d > k) continue;
    if (d == k) {
      m.useful[v] = m.backward[v] == length - k && can_meet(v);
    } else if (is_gpu_[v] == 0 || v == src) {
      for (const LinkId l : network_.out_links(v)) {
        const NodeId w = network_.link(l).to;
        if (m.forward[w] == d + 1 && m.useful[w] != 0 && allowed(m.entry_group, l)) {
          m.useful[v] = 1;
          break;
        }
      }
    }
  }
  m.length = length;
  m.switch_at = k;
  m.found = true;
  return true;
}

NodeId PathSearch::walk_down(const std::vector<std::uint32_t>& dist, std::int32_t entry_group, NodeId from,
                             std::uint64_t hash_base, std::vector<LinkId>& out) const {
  NodeId u = from;
  while (dist[u] != 0) {
    const std::uint32_t want = dist[u] - 1;
    auto candidate = [&](LinkId l) {
      const NodeId to = network_.link(l).to;
      return dist[to] == want && (is_gpu_[to] == 0 || want == 0) && allowed(entry_group, l);
    };
    std::uint64_t count = 0;
    for (const LinkId l : network_.out_links(u)) count += candidate(l) ? 1 : 0;
    // count >= 1: u was reached over a usable link from a node one hop nearer the target.
    std::uint64_t pick = sim::hash_combine(hash_base, u) % count;
    for (const LinkId l : network_.out_links(u)) {
      if (candidate(l) && pick-- == 0) {
        out.push_back(l);
        u = network_.link(l).to;
        break;
      }
    }
  }
  return u;
}

NodeId PathSearch::find(NodeId src, const SearchTarget& target, std::uint64_t hash_base, std::vector<LinkId>& out) {
  if (use_field(src, target)) {
    Field& f = field(target);
    expand_until(f, src);
    if (f.dist[src] == unreached) return no_node;
    return walk_down(f.dist, f.entry_group, src, hash_base, out);
  }
  if (!meet(src, target)) return no_node;
  // Same candidates, in the same order, as walk_down over a field: the links onto a shortest path.
  const Meet& m = meet_;
  NodeId u = src;
  while (m.forward[u] < m.switch_at) {
    const std::uint32_t want = m.forward[u] + 1;
    auto candidate = [&](LinkId l) {
      const NodeId to = network_.link(l).to;
      return m.forward[to] == want && m.useful[to] != 0 && allowed(m.entry_group, l);
    };
    std::uint64_t count = 0;
    for (const LinkId l : network_.out_links(u)) count += candidate(l) ? 1 : 0;
    std::uint64_t pick = sim::hash_combine(hash_base, u) % count;
    for (const LinkId l : network_.out_links(u)) {
      if (candidate(l) && pick-- == 0) {
        out.push_back(l);
        u = network_.link(l).to;
        break;
      }
    }
  }
  return walk_down(m.backward, m.entry_group, u, hash_base, out);
}

}  // namespace clustersim::topologies
