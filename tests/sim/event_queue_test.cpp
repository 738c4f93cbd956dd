#include "sim/event_queue.hpp"

#include <doctest/doctest.h>

using clustersim::sim::EventQueue;
using clustersim::sim::Time;

TEST_CASE("event queue: events come out by time, then in insertion order") {
  EventQueue<int> q;
  q.push(Time::from_ns(30), 1);
  q.push(Time::from_ns(10), 2);
  q.push(Time::from_ns(30), 3);
  q.push(Time::from_ns(10), 4);
  CHECK(q.pop().payload == 2);
  CHECK(q.pop().payload == 4);
  CHECK(q.pop().payload == 1);
  CHECK(q.pop().payload == 3);
  CHECK(q.empty());
}

TEST_CASE("event queue: a cancelled event never fires and cancel is idempotent") {
  EventQueue<int> q;
  const auto a = q.push(Time::from_ns(5), 1);
  q.push(Time::from_ns(7), 2);
  q.cancel(a);
  q.cancel(a);
  CHECK(q.size() == 1);
  CHECK(q.top().payload == 2);
  const auto fired = q.pop();
  CHECK(fired.payload == 2);
  q.cancel(fired.sequence);  // after it fired: no effect
  CHECK(q.size() == 0);
  CHECK(q.empty());
}

TEST_CASE("time: seconds round to the nearest nanosecond") {
  CHECK(Time::from_seconds(1.5e-9).ns() == 2);
  CHECK(Time::from_seconds(2.0).ns() == 2'000'000'000);
  CHECK(Time::from_ns(250).seconds() == doctest::Approx(2.5e-7));
  CHECK(Time::from_ns(3) + Time::from_ns(4) == Time::from_ns(7));
}
