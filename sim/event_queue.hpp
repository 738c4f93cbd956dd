#pragma once
/// A timer queue ordered by (time, sequence) with cancellation.
/// Sequence numbers break ties in insertion order, so equal-time events fire deterministically.
/// Cancellation leaves a tombstone that pop() skips (as in ns-3), which keeps cancel O(1).

#include <cassert>
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/time.hpp"

namespace clustersim::sim {

template <class Payload>
class EventQueue {
 public:
  using Handle = std::uint64_t;

  struct Event {
    Time time;
    Handle sequence;
    Payload payload;
  };

  Handle push(Time time, Payload payload) {
    const Handle handle = next_sequence_++;
    dead_.push_back(false);
    heap_.push(Event{time, handle, std::move(payload)});
    ++live_;
    return handle;
  }

  /// Cancels a pending event; cancelling twice or after it fired is a no-op.
  void cancel(Handle handle) {
    assert(handle < next_sequence_);
    if (!dead_[handle]) {
      dead_[handle] = true;
      --live_;
    }
  }

  bool empty() {
    drop_cancelled();
    return heap_.empty();
  }
  std::size_t size() const { return live_; }

  /// The earliest live event; the queue must not be empty.
  const Event& top() {
    drop_cancelled();
    assert(!heap_.empty());
    return heap_.top();
  }

  Event pop() {
    drop_cancelled();
    assert(!heap_.empty());
    Event event = heap_.top();
    heap_.pop();
    dead_[event.sequence] = true;  // fired: a later cancel() must not count it again
    --live_;
    return event;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };

  void drop_cancelled() {
    while (!heap_.empty() && dead_[heap_.top().sequence]) heap_.pop();
  }

  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::vector<bool> dead_;  // cancelled or fired, by sequence
  Handle next_sequence_ = 0;
  std::size_t live_ = 0;
};

}  // namespace clustersim::sim
