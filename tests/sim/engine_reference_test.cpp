// The engine against a brute-force oracle: a fluid simulation that re-solves max-min sharing over
// all active tasks at every event, in double-precision time. The engine's lazy progress, sharing
// groups and incremental re-solves must give the same finish times up to nanosecond rounding.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "sim/engine.hpp"
#include "sim/max_min.hpp"
#include "tests/sim/xorshift.hpp"

using namespace clustersim::sim;

namespace {

std::vector<double> reference_finish_times(const std::vector<Resource>& resources, const TaskGraph& g) {
  const std::size_t n = g.size();
  std::vector<std::vector<TaskId>> successors(n);
  std::vector<int> pending(n, 0);
  for (const auto& [a, b] : g.dependencies()) {
    successors[a].push_back(b);
    ++pending[b];
  }
  std::vector<double> ready_at(n, -1.0), active_at(n, -1.0), remaining(n), finish(n, -1.0);
  for (TaskId t = 0; t < n; ++t) remaining[t] = g.work(t);
  double now = 0.0;
  auto release = [&](TaskId t) {
    ready_at[t] = now;
    active_at[t] = now + g.latency(t).seconds();
  };
  for (TaskId t = 0; t < n; ++t)
    if (pending[t] == 0) release(t);
  std::size_t done = 0;
  MaxMinSolver solver;
  while (done < n) {
    // Rates of everything active now, solved from scratch.
    std::vector<TaskId> active;
    for (TaskId t = 0; t < n; ++t)
      if (finish[t] < 0 && active_at[t] >= 0 && active_at[t] <= now + 1e-15) active.push_back(t);
    solver.clear();
    for (const Resource& r : resources) solver.add_link(r.capacity_per_s);
    for (TaskId t : active) {
      std::vector<std::uint32_t> links(g.resources(t).begin(), g.resources(t).end());
      solver.add_flow(links, g.weight(t), g.rate_cap_per_s(t) * g.weight(t));
    }
    const std::vector<double> rates = active.empty() ? std::vector<double>{} : solver.solve();
    // Next event: a finish at current rates, or a latency elapsing.
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < active.size(); ++i) {
      const double per_flow = rates[i] / g.weight(active[i]);
      next = std::min(next, now + (remaining[active[i]] <= 0 ? 0.0 : remaining[active[i]] / per_flow));
    }
    for (TaskId t = 0; t < n; ++t)
      if (finish[t] < 0 && active_at[t] > now + 1e-15) next = std::min(next, active_at[t]);
    for (std::size_t i = 0; i < active.size(); ++i)
      remaining[active[i]] -= rates[i] / g.weight(active[i]) * (next - now);
    now = next;
    for (TaskId t : active)
      if (remaining[t] <= 1e-9 * std::max(1.0, g.work(t))) {
        finish[t] = now;
        ++done;
        for (TaskId s : successors[t])
          if (--pending[s] == 0) release(s);
      }
  }
  return finish;
}

}  // namespace

TEST_CASE("engine: matches a brute-force fluid simulation on random mixed graphs") {
  // 6 links; tasks cross 0-3 of them (0: rate-capped), some capped, weights 1-3, random latencies
  // and dependencies. Covers sharing groups forming, dissolving when a multi-link or capped task
  // joins, and re-forming.
  clustersim::test::Xorshift64 next(2463534242ull);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Resource> resources;
    for (int r = 0; r < 6; ++r) resources.push_back({"l", 10.0 + static_cast<double>(next() % 90)});
    TaskGraph g;
    for (TaskId t = 0; t < 60; ++t) {
      std::vector<ResourceId> rs;
      const auto count = next() % 4;
      for (std::uint64_t k = 0; k < count; ++k) {
        const auto r = static_cast<ResourceId>(next() % 6);
        if (std::find(rs.begin(), rs.end(), r) == rs.end()) rs.push_back(r);
      }
      const bool capped = rs.empty() || next() % 5 == 0;
      std::vector<TaskId> preds;
      if (t > 3 && next() % 2 == 0) preds.push_back(static_cast<TaskId>(next() % t));
      g.add_task({.work = 10.0 + static_cast<double>(next() % 500),
                  .latency = Time::from_ns(static_cast<std::int64_t>(next() % 3) * 1'000'000'000),
                  .rate_cap_per_s = capped ? 5.0 + static_cast<double>(next() % 20)
                                           : std::numeric_limits<double>::infinity(),
                  .weight = 1.0 + static_cast<double>(next() % 3)},
                 rs, preds);
    }
    const auto expected = reference_finish_times(resources, g);
    const auto timeline = Engine(resources).run(g);
    for (TaskId t = 0; t < g.size(); ++t) {
      CAPTURE(trial);
      CAPTURE(t);
      // Each event rounds up by at most 1 ns; a few hundred events stay well inside 1 us.
      CHECK(timeline.tasks[t].finish.seconds() == doctest::Approx(expected[t]).epsilon(1e-6).scale(1.0));
    }
  }
}

TEST_CASE("engine: a shared link hands over between sharing and individual solving") {
  // Link A = 10 B/s, link B = 2 B/s. f1 (100 B) on A alone from 0 s. f2 (20 B) crosses A and B
  // and arrives at 1 s. 0-1 s: f1 alone moves 10 B. From 1 s max-min gives f2 2 B/s (B binds)
  // and f1 8 B/s: f2 ends at 1 + 20/2 = 11 s, when f1 has 90 - 80 = 10 B left, alone again at
  // 10 B/s. f3 (10 B) on A arrives at 11.5 s, when f1 has 5 B left; they share A at 5 B/s each:
  // f1 ends at 12.5 s; f3 has moved 5 B by then, the other 5 B at 10 B/s -> 13 s.
  Engine engine({{"A", 10.0}, {"B", 2.0}});
  TaskGraph g;
  const std::vector<ResourceId> a{0}, ab{0, 1};
  const auto f1 = g.add_task({.work = 100}, a);
  const auto f2 = g.add_task({.work = 20, .latency = Time::from_seconds(1)}, ab);
  const auto f3 = g.add_task({.work = 10, .latency = Time::from_seconds(11.5)}, a);
  const auto tl = engine.run(g);
  CHECK(tl.tasks[f2].finish.seconds() == doctest::Approx(11.0));
  CHECK(tl.tasks[f1].finish.seconds() == doctest::Approx(12.5));
  CHECK(tl.tasks[f3].finish.seconds() == doctest::Approx(13.0));
}

TEST_CASE("engine: a task finishing as another joins its resource leaves before the newcomer shares") {
  // B (task 0) on G2 and A (task 1) on G1 both end at 1 s; C waits for B and runs on G1. C must
  // find G1 free (A has finished at that same instant), run alone and end at 2 s, and A must
  // finish exactly once.
  Engine engine({{"G1", 1.0}, {"G2", 1.0}});
  TaskGraph g;
  const std::vector<ResourceId> g1{0}, g2{1};
  const auto b = g.add_task({.work = 1}, g2);
  const auto a = g.add_task({.work = 1}, g1);
  const std::vector<TaskId> after_b{b};
  const auto c = g.add_task({.work = 1}, g1, after_b);
  const auto tl = engine.run(g);
  CHECK(tl.tasks[a].finish.seconds() == doctest::Approx(1.0));
  CHECK(tl.tasks[c].finish.seconds() == doctest::Approx(2.0));
  CHECK(tl.busy_s[0] == doctest::Approx(2.0));
}
