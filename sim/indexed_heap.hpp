#pragma once
/// A 4-ary min-heap of (key, id) with at most one entry per id, whose keys can be changed in place.
/// The engine keeps every pending event here (a task finishing or ending its latency, a sharing
/// group reaching its next finish): a rate change moves the entry instead of leaving a tombstone
/// behind, so the heap never grows past the events pending. Entries with equal keys come out in an
/// order fixed by the sequence of operations, so runs repeat exactly; the engine takes all events
/// of one instant together and orders them itself. Four children per node halve the depth of a
/// binary heap; the engine updates keys far more often than it pops.
/// Past its last entry the array always holds `arity` entries of the largest key, so that every
/// inner node has four children to compare and no node needs a loop over a partial set.

#include <cassert>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace clustersim::sim {

template <class Key>
class IndexedHeap {
 public:
  explicit IndexedHeap(std::size_t ids = 0) : heap_(arity, padding()), position_(ids, absent) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  bool contains(std::uint32_t id) const { return position_[id] != absent; }
  /// Empties the heap and makes room for ids below `ids`, keeping the buffers.
  void reset(std::size_t ids) {
    heap_.assign(arity, padding());
    size_ = 0;
    hole_ = false;
    position_.assign(ids, absent);
  }
  /// Makes room for ids below `ids`.
  void grow(std::size_t ids) {
    if (ids > position_.size()) position_.resize(ids, absent);
  }
  const Key& top_key() const { return heap_.front().key; }
  std::uint32_t top_id() const { return heap_.front().id; }

  /// Inserts `id` or moves it to `key`.
  void set(std::uint32_t id, Key key) {
    if (position_[id] == absent) {
      if (hole_) {  // the root left by pop_later(): one sift-down places the new entry
        hole_ = false;
        place(0, {key, id});
        sift_down(0);
        return;
      }
      if (heap_.size() < size_ + 1 + arity) heap_.push_back(padding());
      position_[id] = size_;
      heap_[size_] = {key, id};
      sift_up(size_++);
      return;
    }
    const std::uint32_t at = position_[id];
    const bool smaller = key < heap_[at].key;
    heap_[at].key = key;
    if (smaller)
      sift_up(at);
    else
      sift_down(at);
  }

  void pop() {
    assert(size_ > 0 && !hole_);
    position_[heap_.front().id] = absent;
    remove_root();
  }

  /// Whether the top entry's key is the only one that small.
  bool top_is_unique() const {
    const std::uint32_t child = smallest_child(0);
    return child == absent || heap_.front().key < heap_[child].key;
  }
  /// Pops the top entry but leaves its place for the next insert (set on an absent id), which then
  /// costs one sift-down from the root instead of a pop's descent and an insert's climb: the
  /// engine's commonest event, a task finishing, is mostly followed by its successor's insert.
  /// Until fill_hole() the old top stays in place with its key, smaller than or equal to every
  /// other, so that moving or erasing other entries never passes it; top and pop must wait.
  void pop_later() {
    assert(size_ > 0 && !hole_);
    position_[heap_.front().id] = absent;
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
    const Entry last = take_last();
    if (at == size_) return;
    heap_[at] = last;
    position_[last.id] = at;
    sift_up(at);
    sift_down(position_[last.id]);
  }

 private:
  static constexpr std::uint32_t absent = ~std::uint32_t{0};
  static constexpr std::uint32_t arity = 4;
  struct Entry {
    Key key;
    std::uint32_t id;
  };
  /// What fills the array past the last entry: no key is larger, and a real entry of the same key
  /// sits at a lower index, which ties prefer.
  static Entry padding() {
    if constexpr (std::is_floating_point_v<Key>)
      return {std::numeric_limits<Key>::infinity(), absent};
    else
      return {Key::max(), absent};
  }

  /// Takes out the root, whose id is already marked absent.
  void remove_root() {
    const Entry last = take_last();
    if (size_ == 0) return;
    // Floyd's variant: walk the hole at the root down to a leaf along the smallest children, then
    // let the former last leaf rise from there. That leaf usually belongs near the bottom, so this
    // saves comparing it at every level on the way down.
    std::uint32_t hole = 0;
    while (true) {
      const std::uint32_t child = smallest_child(hole);
      if (child == absent) break;
      place(hole, heap_[child]);
      hole = child;
    }
    heap_[hole] = last;
    sift_up(hole);
  }
  /// Removes the last entry, leaving padding in its place, and returns it.
  Entry take_last() {
    const Entry last = heap_[--size_];
    heap_[size_] = padding();
    return last;
  }
  void place(std::uint32_t at, const Entry& e) {
    heap_[at] = e;
    position_[e.id] = at;
  }
  void sift_up(std::uint32_t at) {
    const Entry e = heap_[at];
    while (at > 0) {
      const std::uint32_t parent = (at - 1) / arity;
      if (!(e.key < heap_[parent].key)) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, e);
  }
  /// The child of `at` with the smallest key (the first of equals), or `absent` for a leaf. A node
  /// with a child has four in the array, padding included.
  std::uint32_t smallest_child(std::uint32_t at) const {
    const std::uint32_t first = arity * at + 1;
    if (first >= size_) return absent;
    // A tournament of pairs, each pair's comparison turned into an index rather than a branch:
    // which key is smaller is as good as random, so branches on it were mispredicted about half
    // the time (engine.no_sharing_10M: 3.5 -> 4.3 M completions/s). Ties go to the first.
    const std::uint32_t left = first + (heap_[first + 1].key < heap_[first].key ? 1 : 0);
    const std::uint32_t right = first + 2 + (heap_[first + 3].key < heap_[first + 2].key ? 1 : 0);
    return heap_[right].key < heap_[left].key ? right : left;
  }
  void sift_down(std::uint32_t at) {
    const Entry e = heap_[at];
    while (true) {
      const std::uint32_t child = smallest_child(at);
      if (child == absent || !(heap_[child].key < e.key)) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, e);
  }

  std::vector<Entry> heap_;  // size_ entries, then at least `arity` of padding
  std::uint32_t size_ = 0;
  std::vector<std::uint32_t> position_;
  bool hole_ = false;  // the root is what pop_later() left
};

}  // namespace clustersim::sim
