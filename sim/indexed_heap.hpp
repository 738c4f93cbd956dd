#pragma once
/// A 4-ary min-heap of (key, id) with at most one entry per id, whose keys can be changed in place.
/// The engine keeps every pending event here (a task finishing or ending its latency, a sharing
/// group reaching its next finish): a rate change moves the entry instead of leaving a tombstone
/// behind, so the heap never grows past the events pending. Entries with equal keys come out in an
/// order fixed by the sequence of operations, so runs repeat exactly; the engine takes all events
/// of one instant together and orders them itself. Four children per node halve the depth of a
/// binary heap; the engine updates keys far more often than it pops.
/// Keys and ids sit in arrays of their own: a node's four children's keys are then 32 contiguous
/// bytes, and every index scales by 8 or 4, which x86 addressing does for free (an array of
/// 16-byte entries costs a shift and an add on each access); the descent's positions are 64-bit,
/// which need no zero-extension.
/// Past its last entry each array always holds `arity` entries of padding, keys of the largest
/// value, so that every inner node has four children to compare and no node needs a loop over a
/// partial set.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace clustersim::sim {

template <class Key>
class IndexedHeap {
 public:
  explicit IndexedHeap(std::size_t ids = 0) { reset(ids); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  bool contains(std::uint32_t id) const { return position_[id] != absent; }
  /// Empties the heap and makes room for ids below `ids`, keeping the buffers.
  void reset(std::size_t ids) {
    keys_.assign(arity, padding());
    ids_.assign(arity, absent);
    size_ = 0;
    hole_ = false;
    position_.assign(ids, absent);
  }
  /// Makes room for ids below `ids`.
  void grow(std::size_t ids) {
    if (ids > position_.size()) position_.resize(ids, absent);
  }
  /// The smallest key; when the heap is empty, the largest value of Key (its padding), so that
  /// the engine can take the earlier of two heaps' tops without asking whether either is empty.
  const Key& top_key() const { return keys_.front(); }
  std::uint32_t top_id() const { return ids_.front(); }

  /// Inserts `id` or moves it to `key`.
  void set(std::uint32_t id, Key key) {
    const std::uint32_t at = position_[id];
    if (at != absent) {
      const bool smaller = key < keys_[at];
      keys_[at] = key;
      if (smaller)
        sift_up(at);
      else
        sift_down(at);
      return;
    }
    if (hole_) {  // the root left by pop_later(): one sift-down places the new entry
      hole_ = false;
      place(0, key, id);
      sift_down(0);
      return;
    }
    if (keys_.size() < size_ + 1 + arity) {
      keys_.push_back(padding());
      ids_.push_back(absent);
    }
    place(size_, key, id);
    sift_up(size_++);
  }

  void pop() {
    assert(size_ > 0 && !hole_);
    position_[ids_.front()] = absent;
    remove_root();
  }

  /// Whether the top entry's key is the only one that small.
  bool top_is_unique() const {
    return size_ == 1 || keys_.front() < keys_[smallest_child(keys_.data(), 1)];
  }
  /// Pops the top entry but leaves its place for the next insert (set on an absent id), which then
  /// costs one sift-down from the root instead of a pop's descent and an insert's climb: the
  /// engine's commonest event, a task finishing, is mostly followed by its successor's insert.
  /// Until fill_hole() the old top stays in place with its key, smaller than or equal to every
  /// other, so that moving or erasing other entries never passes it; top and pop must wait.
  void pop_later() {
    assert(size_ > 0 && !hole_);
    position_[ids_.front()] = absent;
    hole_ = true;
  }
  /// Removes what pop_later() left if no insert has taken its place.
  void fill_hole() {
    if (!hole_) return;
    hole_ = false;
    remove_root();
  }

  /// Removes `id` if present.
  void erase(std::uint32_t id) {
    const std::uint32_t at = position_[id];
    if (at == absent) return;
    position_[id] = absent;
    const auto [key, moved] = take_last();
    if (at == size_) return;
    place(at, key, moved);
    sift_up(at);
    sift_down(position_[moved]);
  }

 private:
  static constexpr std::uint32_t absent = ~std::uint32_t{0};
  static constexpr std::uint32_t arity = 4;
  /// What fills the key array past the last entry: no key is larger, and a real entry of the same
  /// key sits at a lower index, which ties prefer.
  static Key padding() {
    if constexpr (std::is_floating_point_v<Key>)
      return std::numeric_limits<Key>::infinity();
    else
      return Key::max();
  }

  /// The three arrays through plain pointers, for loops: a store through one of them cannot then
  /// be taken by the compiler to change another's vector, so they stay in registers.
  struct Arrays {
    Key* keys;
    std::uint32_t* ids;
    std::uint32_t* position;
    void put(std::size_t at, Key key, std::uint32_t id) const {
      keys[at] = key;
      ids[at] = id;
      position[id] = static_cast<std::uint32_t>(at);
    }
    void move(std::size_t to, std::size_t from) const { put(to, keys[from], ids[from]); }
  };
  Arrays arrays() { return {keys_.data(), ids_.data(), position_.data()}; }
  void place(std::size_t at, Key key, std::uint32_t id) { arrays().put(at, key, id); }

  /// Removes the last entry, leaving padding in its place, and returns its key and id.
  std::pair<Key, std::uint32_t> take_last() {
    const std::uint32_t last = --size_;
    const std::pair<Key, std::uint32_t> entry{keys_[last], ids_[last]};
    keys_[last] = padding();
    ids_[last] = absent;
    return entry;
  }

  /// Takes out the root, whose id is already marked absent.
  void remove_root() {
    const auto [key, id] = take_last();
    if (size_ == 0) return;
    // Floyd's variant: walk the hole at the root down to a leaf along the smallest children, then
    // let the former last leaf rise from there. That leaf usually belongs near the bottom, so this
    // saves comparing it at every level on the way down.
    const Arrays a = arrays();
    const std::size_t size = size_;
    std::size_t hole = 0;
    for (std::size_t first = 1; first < size; first = arity * hole + 1) {
      const std::size_t child = smallest_child(a.keys, first);
      a.move(hole, child);
      hole = child;
    }
    a.put(hole, key, id);
    sift_up(hole);
  }

  /// The smallest of the four keys from `first` on (the first of equals). A tournament of pairs,
  /// each pair's comparison turned into an index rather than a branch: which key is smaller is as
  /// good as random, so a branch on it is mispredicted about half the time. Padding makes the four
  /// always there.
  static std::size_t smallest_child(const Key* keys, std::size_t first) {
    const Key* const child = keys + first;
    const std::size_t left = child[1] < child[0] ? 1 : 0;
    const std::size_t right = child[3] < child[2] ? 3 : 2;
    return first + (child[right] < child[left] ? right : left);
  }
  void sift_up(std::size_t at) {
    const Arrays a = arrays();
    const Key key = a.keys[at];
    const std::uint32_t id = a.ids[at];
    while (at > 0) {
      const std::size_t parent = (at - 1) / arity;
      if (!(key < a.keys[parent])) break;
      a.move(at, parent);
      at = parent;
    }
    a.put(at, key, id);
    // Not yet below its children: erase() sifts up and then down.
    assert(ordered_at(at, false));
  }
  void sift_down(std::size_t at) {
    const Arrays a = arrays();
    const std::size_t size = size_;
    const Key key = a.keys[at];
    const std::uint32_t id = a.ids[at];
    for (std::size_t first = arity * at + 1; first < size; first = arity * at + 1) {
      const std::size_t child = smallest_child(a.keys, first);
      if (!(a.keys[child] < key)) break;
      a.move(at, child);
      at = child;
    }
    a.put(at, key, id);
    assert(ordered_at(at, true));
  }
  /// Heap order around the entry at `at` (no smaller than its parent and, with `children`, no
  /// larger than its children) and its id's back-pointer: checked by assert() after every sift.
  bool ordered_at(std::size_t at, bool children) const {
    if (at >= size_ || position_[ids_[at]] != at) return false;
    if (at > 0 && keys_[at] < keys_[(at - 1) / arity]) return false;
    if (!children) return true;
    for (std::size_t child = arity * at + 1; child < std::min<std::size_t>(arity * at + 1 + arity, size_); ++child)
      if (keys_[child] < keys_[at]) return false;
    return true;
  }

  std::vector<Key> keys_;            // size_ entries, then at least `arity` of padding
  std::vector<std::uint32_t> ids_;   // alongside keys_
  std::uint32_t size_ = 0;
  std::vector<std::uint32_t> position_;  // by id: its index, or absent
  bool hole_ = false;  // the root is what pop_later() left
};

}  // namespace clustersim::sim
