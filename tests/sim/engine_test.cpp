#include "sim/engine.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/sim/xorshift.hpp"

using namespace clustersim::sim;

namespace {

double s(Time t) { return t.seconds(); }

}  // namespace

TEST_CASE("engine: a transfer pays its latency, then shares bandwidth") {
  // One 100 B/s link. Task A: 1000 B after 2 s of latency. Task B: 1000 B, no latency.
  // 0-2 s: B alone at 100 B/s moves 200 B (800 left). From 2 s both share: 50 B/s each.
  // B finishes its 800 B at 2 + 16 = 18 s; A has moved 800 B by then, 200 B left at 100 B/s: 20 s.
  Engine engine({{"link", 100.0}});
  TaskGraph g;
  const std::vector<ResourceId> link{0};
  const auto a = g.add_task({.work = 1000, .latency = Time::from_seconds(2)}, link);
  const auto b = g.add_task({.work = 1000}, link);
  const auto tl = engine.run(g);
  REQUIRE(tl.tasks.size() == g.size());  // one record per task, the last one included
  CHECK(s(tl.tasks[b].finish) == doctest::Approx(18.0));
  CHECK(s(tl.tasks[a].finish) == doctest::Approx(20.0));
  CHECK(s(tl.makespan) == doctest::Approx(20.0));
  CHECK(tl.busy_s[0] == doctest::Approx(20.0));
  CHECK(tl.units_served[0] == doctest::Approx(2000.0));
}

TEST_CASE("engine: when the first of two flows finishes the second speeds up") {
  // One 10 B/s link, flows of 30 B and 50 B starting together. Each gets 5 B/s: the small one
  // ends at 30 / 5 = 6 s, when the big one has 50 - 30 = 20 B left, now at 10 B/s: 6 + 2 = 8 s.
  Engine engine({{"link", 10.0}});
  TaskGraph g;
  const std::vector<ResourceId> link{0};
  const auto small = g.add_task({.work = 30}, link);
  const auto big = g.add_task({.work = 50}, link);
  const auto tl = engine.run(g);
  CHECK(s(tl.tasks[small].finish) == doctest::Approx(6.0));
  CHECK(s(tl.tasks[big].finish) == doctest::Approx(8.0));
}

TEST_CASE("engine: a diamond DAG runs its two middle tasks in parallel") {
  // GPUs g0 and g1 (capacity 1 s/s). top (1 s on g0) -> left (2 s on g0), right (3 s on g1)
  // -> bottom (1 s on g0). bottom waits for the slower branch: 1 + 3 + 1 = 5 s.
  Engine engine({{"g0", 1.0}, {"g1", 1.0}});
  TaskGraph g;
  const std::vector<ResourceId> g0{0}, g1{1};
  const auto top = g.add_task({.work = 1}, g0);
  const std::vector<TaskId> after_top{top};
  const auto left = g.add_task({.work = 2}, g0, after_top);
  const auto right = g.add_task({.work = 3}, g1, after_top);
  const std::vector<TaskId> both{left, right};
  const auto bottom = g.add_task({.work = 1}, g0, both);
  const auto tl = engine.run(g);
  CHECK(s(tl.tasks[left].start) == doctest::Approx(1.0));
  CHECK(s(tl.tasks[left].finish) == doctest::Approx(3.0));
  CHECK(s(tl.tasks[right].finish) == doctest::Approx(4.0));
  CHECK(s(tl.tasks[bottom].start) == doctest::Approx(4.0));
  CHECK(s(tl.tasks[bottom].finish) == doctest::Approx(5.0));
  CHECK(tl.busy_s[0] == doctest::Approx(4.0));  // 0-3 and 4-5
  CHECK(tl.busy_s[1] == doctest::Approx(3.0));
}

TEST_CASE("engine: a flow over two links is held to the slower, caps and weights apply") {
  // Links A = 10 B/s and B = 4 B/s. f1 (40 B) crosses both, f2 (60 B) only A.
  // Rates 4 and 6 (max-min): f1 ends at 10 s and f2 at 10 s as well.
  // f3 (weight 2 = two identical 10 B flows, capped at 1 B/s each) alone on a 100 B/s link: 10 s.
  Engine engine({{"A", 10.0}, {"B", 4.0}, {"C", 100.0}});
  TaskGraph g;
  const std::vector<ResourceId> ab{0, 1}, a{0}, c{2};
  const auto f1 = g.add_task({.work = 40}, ab);
  const auto f2 = g.add_task({.work = 60}, a);
  const auto f3 = g.add_task({.work = 10, .rate_cap_per_s = 1.0, .weight = 2.0}, c);
  const auto tl = engine.run(g);
  CHECK(s(tl.tasks[f1].finish) == doctest::Approx(10.0));
  CHECK(s(tl.tasks[f2].finish) == doctest::Approx(10.0));
  CHECK(s(tl.tasks[f3].finish) == doctest::Approx(10.0));
  CHECK(tl.units_served[2] == doctest::Approx(20.0));  // two flows of 10 B
}

TEST_CASE("engine: a flow alone over several links runs at its slowest link or its cap") {
  // Links A = 10 B/s and B = 4 B/s, each crossed by one flow at a time (every component holds a
  // single flow). p (weight 2: two flows of 12 B, capped at 1.5 B/s each) crosses A and B: its two
  // flows could take 4 B/s together, the cap holds them to 3, so p ends at 12 / 1.5 = 8 s. q (12 B,
  // weight 2, capped at 5 B/s) follows p on the same links: B holds the pair to 2 B/s each, 8 + 6
  // = 14 s. r (30 B) follows q over A alone: 14 + 3 = 17 s.
  Engine engine({{"A", 10.0}, {"B", 4.0}});
  TaskGraph g;
  const std::vector<ResourceId> ab{0, 1}, a{0};
  const auto p = g.add_task({.work = 12, .rate_cap_per_s = 1.5, .weight = 2.0}, ab);
  const std::vector<TaskId> after_p{p};
  const auto q = g.add_task({.work = 12, .rate_cap_per_s = 5.0, .weight = 2.0}, ab, after_p);
  const std::vector<TaskId> after_q{q};
  const auto r = g.add_task({.work = 30}, a, after_q);
  const auto tl = engine.run(g);
  CHECK(s(tl.tasks[p].finish) == doctest::Approx(8.0));
  CHECK(s(tl.tasks[q].finish) == doctest::Approx(14.0));
  CHECK(s(tl.tasks[r].finish) == doctest::Approx(17.0));
  CHECK(tl.units_served[1] == doctest::Approx(48.0));  // p's and q's two flows of 12 B
}

TEST_CASE("engine: a task that names a link twice loads it twice and leaves it cleanly") {
  // One 100 B/s link L. At 0: F (25 B, on L) and M (300 B, on L twice, so each of its bytes
  // crosses L twice). Equal rates x with x + 2x = 100: x = 33.3 B/s, F ends at 25 / x = 0.75 s and
  // M has 275 B left. G (1,000 B, on L) follows F: M and G at 33.3 B/s again, M ends after
  // 275 / x = 8.25 s, at 9 s, when G has 725 B left; alone at 100 B/s, G ends at 9 + 7.25 s.
  // M is on L's list of tasks twice: when F leaves, M's second entry moves to the front; when M
  // leaves, G must stay. (Moving an entry once updated every entry of its task on that list, and
  // M's finish then dropped G instead of itself.)
  Engine engine({{"L", 100.0}});
  TaskGraph g;
  const std::vector<ResourceId> l{0}, l_twice{0, 0};
  const auto f = g.add_task({.work = 25}, l);
  const auto m = g.add_task({.work = 300}, l_twice);
  const std::vector<TaskId> after_f{f};
  const auto later = g.add_task({.work = 1000}, l, after_f);
  const auto tl = engine.run(g);
  CHECK(s(tl.tasks[f].finish) == doctest::Approx(0.75));
  CHECK(s(tl.tasks[m].finish) == doctest::Approx(9.0));
  CHECK(s(tl.tasks[later].finish) == doctest::Approx(16.25));
  CHECK(tl.busy_s[0] == doctest::Approx(16.25));
  CHECK(tl.units_served[0] == doctest::Approx(25.0 + 2 * 300.0 + 1000.0));
}

TEST_CASE("engine: delays chain without resources, a rate-capped task needs none") {
  Engine engine({});
  TaskGraph g;
  const auto d1 = g.add_task({.latency = Time::from_ns(500)});
  const std::vector<TaskId> p1{d1};
  const auto d2 = g.add_task({.work = 2.0, .latency = Time::from_ns(100), .rate_cap_per_s = 1e9}, {}, p1);
  const auto tl = engine.run(g);
  CHECK(tl.tasks[d1].finish.ns() == 500);
  CHECK(tl.tasks[d2].finish.ns() == 500 + 100 + 2);  // 2 units at 1e9/s = 2 ns
}

TEST_CASE("engine: a cycle is reported with the tasks on it") {
  Engine engine({{"g", 1.0}});
  TaskGraph g;
  const std::vector<ResourceId> r{0};
  const auto a = g.add_task({.work = 1}, r);
  const auto b = g.add_task({.work = 1}, r);
  const auto c = g.add_task({.work = 1}, r);
  g.add_dependency(a, b);
  g.add_dependency(b, c);
  g.add_dependency(c, b);
  REQUIRE_THROWS_AS(engine.run(g), GraphError);
  try {
    engine.run(g);
  } catch (const GraphError& e) {
    const std::string what = e.what();
    CHECK(what.find("cycle") != std::string::npos);
    CHECK(what.find("task 1") != std::string::npos);
    CHECK(what.find("task 2") != std::string::npos);
    CHECK(what.find("task 0") == std::string::npos);
  }
}

TEST_CASE("engine: unknown resources and impossible work are rejected") {
  Engine engine({{"g", 1.0}});
  TaskGraph g;
  const std::vector<ResourceId> missing{3};
  g.add_task({.work = 1}, missing);
  CHECK_THROWS_AS(engine.run(g), GraphError);
  TaskGraph h;
  h.add_task({.work = 5});  // work with nothing to do it on
  CHECK_THROWS_AS(engine.run(h), GraphError);
  CHECK_THROWS_AS(Engine({{"dead", 0.0}}), GraphError);
}

TEST_CASE("engine: each kind of bad task or dependency is named, though checked as tasks are added") {
  const Engine engine({{"g", 1.0}});
  const std::vector<ResourceId> gpu{0};
  auto error = [&](const TaskGraph& g) {
    try {
      engine.run(g);
    } catch (const GraphError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto with = [&](const TaskSpec& bad) {
    TaskGraph g;
    g.add_task({.work = 1}, gpu);
    g.add_task(bad, gpu);
    return g;
  };
  CHECK(error(with({.work = -1})) == "task 1: work must be finite and >= 0");
  CHECK(error(with({.work = 1, .latency = Time::from_ns(-5)})) == "task 1: latency must be >= 0");
  CHECK(error(with({.work = 1, .weight = std::nan("")})) == "task 1: weight must be finite and > 0");
  CHECK(error(with({.work = 1, .rate_cap_per_s = 0.0})) == "task 1: rate cap must be > 0");
  TaskGraph dangling = with({.work = 1});
  dangling.add_dependency(0, 7);
  CHECK(error(dangling) == "dependency 0 -> 7 names a task that does not exist");
  CHECK(error(with({.work = 1, .rate_cap_per_s = 0.5, .weight = 2.0})) == "no error");
}

TEST_CASE("time: a duration rounds up to the next whole nanosecond") {
  CHECK(Time::from_ns_rounded_up(0.0) == Time::zero());
  CHECK(Time::from_ns_rounded_up(3.0) == Time::from_ns(3));
  CHECK(Time::from_ns_rounded_up(3.000001) == Time::from_ns(4));
  CHECK(Time::from_ns_rounded_up(0.4) == Time::from_ns(1));
}

namespace {

// A layered random-ish graph with shared links; deterministic by construction.
TaskGraph contended_graph(std::size_t tasks, std::size_t links) {
  TaskGraph g;
  clustersim::test::Xorshift64 next(12345);
  for (std::size_t i = 0; i < tasks; ++i) {
    const ResourceId r[2] = {static_cast<ResourceId>(next() % links),
                             static_cast<ResourceId>(next() % links)};
    const std::span<const ResourceId> rs(r, r[0] == r[1] ? 1 : 2);
    std::vector<TaskId> preds;
    if (i > 64) preds = {static_cast<TaskId>(next() % (i - 1)), static_cast<TaskId>(i - 64)};
    g.add_task({.work = static_cast<double>(1 + next() % 1000),
                .latency = Time::from_ns(static_cast<std::int64_t>(next() % 50))},
               rs, preds);
  }
  return g;
}

}  // namespace

TEST_CASE("engine: two runs of the same graph are identical to the nanosecond") {
  std::vector<Resource> links;
  for (int i = 0; i < 16; ++i) links.push_back({"l" + std::to_string(i), 100.0 + i});
  const Engine engine(links);
  const TaskGraph g = contended_graph(5000, 16);
  const auto a = engine.run(g);
  const auto b = engine.run(g);
  CHECK(a.tasks == b.tasks);
  CHECK(a.busy_s == b.busy_s);
  // Sanity: every task finishes no earlier than its start plus what the fastest link allows.
  for (TaskId t = 0; t < g.size(); ++t) CHECK_LE(a.tasks[t].start, a.tasks[t].finish);
}

TEST_CASE("engine: a busy period runs the same whenever it starts, after whatever ran before") {
  // Bursts of 2 to 4 transfers sharing one link, each burst after the last one
  // ended and a gap. Bursts of one size are the same pattern, so each must take the same
  // nanoseconds after its start however much the link carried before: the pipeline's periodic
  // steady state (models/step/periodic_step.hpp) relies on it.
  const Engine engine({{"link", 1.0}});
  clustersim::test::Xorshift64 random(0x9E3779B97F4A7C15ull);
  std::vector<double> sizes;
  // Whole microseconds and a tenth of a picosecond: a finish a hair past a whole nanosecond, where
  // rounding in a clock that carried earlier work would round it down instead of up.
  for (int i = 0; i < 4; ++i) sizes.push_back(1e-6 * static_cast<double>(random() % 100000 + 1) + 1e-13);
  TaskGraph g;
  std::vector<std::vector<TaskId>> bursts;
  TaskId gap = g.add_task({.work = 1e-4, .rate_cap_per_s = 1.0});  // a delay before each burst
  for (int b = 0; b < 400; ++b) {
    if (b == 3) {  // a long burst between: work its clock would carry into later ones, to a tenth of a ns
      std::vector<TaskId> long_burst;
      for (int i = 0; i < 2; ++i)
        long_burst.push_back(g.add_task({.work = 1e6 + i}, std::vector<ResourceId>{0}, std::vector<TaskId>{gap}));
      gap = g.add_task({.work = 1e-4, .rate_cap_per_s = 1.0}, {}, long_burst);
    }
    std::vector<TaskId> burst;
    for (std::size_t i = 0; i < 2 + static_cast<std::size_t>(b % 3); ++i)
      burst.push_back(g.add_task({.work = sizes[i]}, std::vector<ResourceId>{0}, std::vector<TaskId>{gap}));
    gap = g.add_task({.work = 1e-4, .rate_cap_per_s = 1.0}, {}, burst);
    bursts.push_back(burst);
  }
  const Timeline tl = engine.run(g);
  for (std::size_t b = 3; b < bursts.size(); ++b) {
    CAPTURE(b);
    const auto& first = bursts[b % 3];  // the first burst of the same size
    const Time offset = tl.tasks[bursts[b].front()].start - tl.tasks[first.front()].start;
    for (std::size_t i = 0; i < first.size(); ++i) {
      CHECK(tl.tasks[bursts[b][i]].start == tl.tasks[first[i]].start + offset);
      CHECK(tl.tasks[bursts[b][i]].finish == tl.tasks[first[i]].finish + offset);
    }
  }
}

TEST_CASE("engine: a one-million-task graph completes") {
  // 1,000 chains of 1,000 compute tasks, each chain on its own GPU; chain i's task j also waits
  // for chain (i+1)'s task j-1, so all chains advance in lockstep: 1,000 tasks of 1 ms each = 1 s.
  constexpr std::size_t chains = 1000, length = 1000;
  std::vector<Resource> gpus(chains, {"gpu", 1.0});
  TaskGraph g;
  g.reserve(chains * length, chains * length, 2 * chains * length);
  for (std::size_t j = 0; j < length; ++j)
    for (std::size_t i = 0; i < chains; ++i) {
      const ResourceId r = static_cast<ResourceId>(i);
      const auto id = g.add_task({.work = 1e-3}, std::span<const ResourceId>(&r, 1));
      if (j > 0) {
        g.add_dependency(static_cast<TaskId>(id - chains), id);
        g.add_dependency(static_cast<TaskId>((j - 1) * chains + (i + 1) % chains), id);
      }
    }
  const auto tl = Engine(gpus).run(g);
  CHECK(g.size() == 1'000'000);
  CHECK(s(tl.makespan) == doctest::Approx(1.0));
}
