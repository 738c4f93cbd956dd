// The engine's event heap against a plain reference: a map from id to key whose minimum is found
// by a scan. Random inserts, key moves up and down, pops (plain, and left for later inserts to
// fill) and erases, with keys from a small range so that ties are common, must agree on size,
// membership, the smallest key and whether it is unique after every step.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <type_traits>

#include "sim/indexed_heap.hpp"
#include "sim/time.hpp"
#include "tests/sim/xorshift.hpp"

namespace {

using clustersim::sim::IndexedHeap;
using clustersim::sim::Time;

template <class Key>
Key smallest(const std::map<std::uint32_t, Key>& reference) {
  Key best = reference.begin()->second;
  for (const auto& [id, key] : reference)
    if (key < best) best = key;
  return best;
}

template <class Key>
bool smallest_is_unique(const std::map<std::uint32_t, Key>& reference) {
  const Key best = smallest(reference);
  int count = 0;
  for (const auto& [id, key] : reference) count += key == best ? 1 : 0;
  return count == 1;
}

template <class Key>
Key largest_key() {
  if constexpr (std::is_floating_point_v<Key>)
    return std::numeric_limits<Key>::infinity();
  else
    return Key::max();
}

template <class Key, class MakeKey>
void check_against_reference(std::uint64_t seed, MakeKey make_key) {
  constexpr std::uint32_t ids = 200;
  clustersim::test::Xorshift64 next(seed);
  IndexedHeap<Key> heap(ids);
  std::map<std::uint32_t, Key> reference;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t op = next() % 10;
    const auto id = static_cast<std::uint32_t>(next() % ids);
    if (op < 5) {  // insert, or move up or down
      const Key key = make_key(next());
      heap.set(id, key);
      reference[id] = key;
    } else if (op < 7) {
      if (!reference.empty()) {
        const std::uint32_t top = heap.top_id();
        REQUIRE(reference.count(top) == 1);
        CHECK(reference.at(top) == heap.top_key());
        heap.pop();
        reference.erase(top);
      }
    } else if (op < 8) {
      // As the engine does after a task finishes: pop the top but leave its place, then insert,
      // move and erase entries at keys no smaller than the popped one, then fill what is left.
      if (!reference.empty()) {
        const std::uint32_t top = heap.top_id();
        const Key popped = heap.top_key();
        heap.pop_later();
        reference.erase(top);
        CHECK_FALSE(heap.contains(top));
        const std::uint64_t moves = next() % 4;
        for (std::uint64_t m = 0; m < moves; ++m) {
          const auto other = static_cast<std::uint32_t>(next() % ids);
          if (next() % 3 == 0) {
            heap.erase(other);
            reference.erase(other);
          } else {
            const Key key = std::max(popped, make_key(next()));
            heap.set(other, key);
            reference[other] = key;
          }
          CHECK(heap.contains(other) == (reference.count(other) == 1));
        }
        heap.fill_hole();
      }
    } else {
      heap.erase(id);
      reference.erase(id);
    }
    REQUIRE(heap.size() == reference.size());
    REQUIRE(heap.empty() == reference.empty());
    CHECK(heap.contains(id) == (reference.count(id) == 1));
    if (!reference.empty()) {
      REQUIRE(heap.top_key() == smallest(reference));
      REQUIRE(reference.count(heap.top_id()) == 1);
      CHECK(heap.top_is_unique() == smallest_is_unique(reference));
    }
  }
  // Drain: keys come out in order, every id once.
  Key previous = heap.empty() ? Key{} : heap.top_key();
  while (!heap.empty()) {
    CHECK(!(heap.top_key() < previous));
    previous = heap.top_key();
    CHECK(reference.erase(heap.top_id()) == 1);
    heap.pop();
  }
  CHECK(reference.empty());
  // Empty, its top key is the largest a key can be (the engine compares two heaps' tops).
  CHECK(heap.top_key() == largest_key<Key>());
}

}  // namespace

TEST_CASE("indexed heap: agrees with a scanned reference under inserts, moves, pops and erases") {
  check_against_reference<Time>(88172645463325252ull,
                                [](std::uint64_t r) { return Time::from_ns(static_cast<std::int64_t>(r % 50)); });
  // Keys at the largest value, which is also what fills the heap past its last entry, still come
  // out as entries.
  check_against_reference<double>(2463534242ull, [](std::uint64_t r) {
    return r % 7 == 0 ? std::numeric_limits<double>::infinity() : static_cast<double>(r % 50);
  });
}

TEST_CASE("indexed heap: reset empties it and keeps it usable") {
  IndexedHeap<Time> heap(4);
  heap.set(3, Time::from_ns(5));
  heap.set(1, Time::from_ns(2));
  heap.reset(8);
  CHECK(heap.empty());
  CHECK(heap.top_key() == Time::max());
  CHECK_FALSE(heap.contains(1));
  heap.set(7, Time::from_ns(9));
  heap.set(0, Time::from_ns(4));
  CHECK(heap.top_id() == 0);
  heap.pop();
  CHECK(heap.top_id() == 7);
  CHECK(heap.size() == 1);
}
