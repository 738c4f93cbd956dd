#pragma once
/// The engine's pending events: at most one per id, each due at a time never earlier than the
/// time the queue last advanced to (simulated time only moves forward).
/// A multi-level radix queue over the bytes of the time in nanoseconds: an entry sits at the level
/// of the highest byte in which its time differs from the current time, in the bucket of that
/// byte's value. Level 0 therefore holds the entries of the current 256 ns, one bucket per
/// nanosecond. Inserting, moving and erasing an entry cost O(1) and no comparisons; advancing past
/// level 0 re-files the lowest occupied bucket one level down, so an entry due within a
/// millisecond (2^20 ns) is re-filed at most twice. A binary or 4-ary heap of the same events
/// spends most of its time on comparisons whose outcome the CPU cannot predict.
/// Buckets are doubly linked lists threaded through one array indexed by id, so the whole queue
/// stays in a few compact arrays that the cache holds.
/// Entries due at the same time come out in an order fixed by the sequence of operations, so runs
/// repeat exactly; the engine orders each instant's events itself.

#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace clustersim::sim {

class TimerQueue {
 public:
  explicit TimerQueue(std::size_t ids = 0) : nodes_(ids) {
    for (std::uint32_t& h : head_) h = none;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  bool contains(std::uint32_t id) const { return nodes_[id].bucket != none; }
  /// Makes room for ids below `ids`.
  void grow(std::size_t ids) {
    if (ids > nodes_.size()) nodes_.resize(ids);
  }
  /// The time last advanced to: no entry is due before it.
  Time now() const { return Time::from_ns(static_cast<std::int64_t>(now_)); }

  /// Inserts `id` due at `time` (>= now()) or moves it there.
  void set(std::uint32_t id, Time time) {
    assert(time >= now());
    if (nodes_[id].bucket != none) unlink(id);
    const auto t = static_cast<std::uint64_t>(time.ns());
    nodes_[id].time = t;
    link(id, bucket_of(t));
    ++size_;
  }

  /// Removes `id` if present.
  void erase(std::uint32_t id) {
    if (nodes_[id].bucket != none) unlink(id);
  }

  /// Advances to the earliest pending time and returns it; the queue must not be empty. Then
  /// has_due() and pop_due() drain the entries due at that time, including any set meanwhile.
  Time advance() {
    assert(size_ > 0);
    while (!(level_mask_ & 1u)) {
      // Move the reference time to the start of the lowest occupied bucket; its entries then
      // differ from it only in lower bytes and go down a level or more.
      const auto level = static_cast<std::uint32_t>(std::countr_zero(level_mask_));
      const std::uint32_t digit = lowest_digit(level);
      const std::uint32_t shift = digit_bits * level;
      now_ = (now_ & ~((std::uint64_t{digits} << shift) - 1)) | (std::uint64_t{digit} << shift);
      const std::uint32_t b = level * digits + digit;
      std::uint32_t id = head_[b];
      head_[b] = none;
      clear_bit(b);
      while (id != none) {
        const std::uint32_t next = nodes_[id].next;
        link(id, bucket_of(nodes_[id].time));
        id = next;
      }
    }
    now_ = (now_ & ~std::uint64_t{digits - 1}) | lowest_digit(0);
    return now();
  }
  bool has_due() const { return head_[now_ & (digits - 1)] != none; }
  /// Removes and returns one entry due at now().
  std::uint32_t pop_due() {
    const std::uint32_t id = head_[now_ & (digits - 1)];
    assert(id != none);
    unlink(id);
    return id;
  }

 private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  static constexpr std::uint32_t digit_bits = 8;
  static constexpr std::uint32_t digits = 1u << digit_bits;
  static constexpr std::uint32_t levels = 64 / digit_bits;
  static constexpr std::uint32_t words = digits / 64;  // occupancy words per level
  static_assert(words == 4, "clear_bit reads four occupancy words per level");
  struct Node {
    std::uint64_t time = 0;
    std::uint32_t next = none;
    std::uint32_t prev = none;
    std::uint32_t bucket = none;  // none: not pending
  };

  /// The bucket for an entry due at `time`, relative to the current time.
  std::uint32_t bucket_of(std::uint64_t time) const {
    const auto level = static_cast<std::uint32_t>(std::bit_width((time ^ now_) | 1) - 1) / digit_bits;
    return level * digits + static_cast<std::uint32_t>(time >> (digit_bits * level)) % digits;
  }
  void link(std::uint32_t id, std::uint32_t b) {
    Node& n = nodes_[id];
    n.bucket = b;
    n.prev = none;
    n.next = head_[b];
    if (n.next != none) {
      nodes_[n.next].prev = id;
    } else {
      occupied_[b / 64] |= std::uint64_t{1} << (b % 64);
      level_mask_ |= 1u << (b / digits);
    }
    head_[b] = id;
  }
  void unlink(std::uint32_t id) {
    Node& n = nodes_[id];
    if (n.next != none) nodes_[n.next].prev = n.prev;
    if (n.prev != none) {
      nodes_[n.prev].next = n.next;
    } else {
      head_[n.bucket] = n.next;
      if (n.next == none) clear_bit(n.bucket);
    }
    n.bucket = none;
    --size_;
  }
  void clear_bit(std::uint32_t b) {
    occupied_[b / 64] &= ~(std::uint64_t{1} << (b % 64));
    const std::uint32_t level = b / digits;
    const std::uint64_t* w = occupied_ + level * words;
    if ((w[0] | w[1] | w[2] | w[3]) == 0) level_mask_ &= ~(1u << level);
  }
  std::uint32_t lowest_digit(std::uint32_t level) const {
    const std::uint64_t* w = occupied_ + level * words;
    std::uint32_t i = 0;
    while (w[i] == 0) ++i;
    return i * 64 + static_cast<std::uint32_t>(std::countr_zero(w[i]));
  }

  std::vector<Node> nodes_;                      // by id
  std::uint32_t head_[levels * digits];          // first id in each bucket, or none
  std::uint64_t occupied_[levels * words] = {};  // bit b: bucket b holds entries
  std::uint32_t level_mask_ = 0;                 // bit l: level l holds entries
  std::uint64_t now_ = 0;
  std::size_t size_ = 0;
};

}  // namespace clustersim::sim
