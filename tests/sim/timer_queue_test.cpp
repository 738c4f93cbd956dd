#include "sim/timer_queue.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <vector>

using clustersim::sim::Time;
using clustersim::sim::TimerQueue;

namespace {

std::vector<std::uint32_t> drain_due(TimerQueue& q) {
  std::vector<std::uint32_t> ids;
  while (q.has_due()) ids.push_back(q.pop_due());
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

TEST_CASE("timer queue: entries come out at their times, equal times together") {
  TimerQueue q(4);
  q.set(0, Time::from_ns(300));
  q.set(1, Time::from_ns(5));
  q.set(2, Time::from_ns(300));
  q.set(3, Time::from_ns(1'000'000'000));
  CHECK(q.advance() == Time::from_ns(5));
  CHECK(drain_due(q) == std::vector<std::uint32_t>{1});
  CHECK(q.advance() == Time::from_ns(300));
  CHECK(drain_due(q) == std::vector<std::uint32_t>{0, 2});
  CHECK(q.advance() == Time::from_ns(1'000'000'000));
  CHECK(drain_due(q) == std::vector<std::uint32_t>{3});
  CHECK(q.empty());
}

TEST_CASE("timer queue: moving, erasing and setting at the current time") {
  // An entry moved later or earlier fires once, at its last time; an erased one never fires; one
  // set at the current time while that time is being drained comes out in the same drain.
  TimerQueue q(3);
  q.set(0, Time::from_ns(70'000));
  q.set(1, Time::from_ns(80'000));
  q.set(2, Time::from_ns(90'000));
  q.set(0, Time::from_ns(95'000));
  q.set(2, Time::from_ns(60'000));
  q.erase(1);
  q.erase(1);
  CHECK(q.size() == 2);
  CHECK_FALSE(q.contains(1));
  CHECK(q.advance() == Time::from_ns(60'000));
  CHECK(q.pop_due() == 2);
  q.set(1, Time::from_ns(60'000));
  CHECK(drain_due(q) == std::vector<std::uint32_t>{1});
  CHECK(q.advance() == Time::from_ns(95'000));
  CHECK(drain_due(q) == std::vector<std::uint32_t>{0});
  CHECK(q.empty());
}

TEST_CASE("timer queue: agrees with an ordered map under random operations") {
  // Times spread from nanoseconds to hours so that entries sit at every level and are re-filed.
  std::uint64_t x = 88172645463325252ull;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  constexpr std::uint32_t ids = 64;
  TimerQueue q(ids);
  std::map<std::uint32_t, std::int64_t> pending;
  std::int64_t now = 0;
  for (int round = 0; round < 3000; ++round) {
    const int changes = static_cast<int>(next() % 6);
    for (int c = 0; c < changes; ++c) {
      const auto id = static_cast<std::uint32_t>(next() % ids);
      if (next() % 5 == 0) {
        q.erase(id);
        pending.erase(id);
      } else {
        const std::int64_t delay = static_cast<std::int64_t>(next() % (std::uint64_t{1} << (next() % 44)));
        q.set(id, Time::from_ns(now + delay));
        pending[id] = now + delay;
      }
    }
    REQUIRE(q.size() == pending.size());
    if (pending.empty()) continue;
    std::int64_t earliest = pending.begin()->second;
    for (const auto& [id, t] : pending) earliest = std::min(earliest, t);
    now = q.advance().ns();
    REQUIRE(now == earliest);
    std::vector<std::uint32_t> expected;
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->second == now) {
        expected.push_back(it->first);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    REQUIRE(drain_due(q) == expected);
  }
}
