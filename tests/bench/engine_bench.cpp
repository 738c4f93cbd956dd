#include "tests/bench/engine_bench.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "tests/sim/xorshift.hpp"

namespace clustersim::bench {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

EngineBenchResult bench_no_sharing(std::size_t chains, std::size_t length) {
  using namespace sim;
  const auto t0 = Clock::now();
  std::vector<Resource> gpus(chains, {"gpu", 1.0});
  TaskGraph g;
  g.reserve(chains * length, chains * length, 2 * chains * length);
  for (std::size_t j = 0; j < length; ++j)
    for (std::size_t i = 0; i < chains; ++i) {
      const auto r = static_cast<ResourceId>(i);
      // Slightly different durations so completions do not all coincide.
      const auto id = g.add_task({.work = 1e-3 * (1.0 + 1e-3 * static_cast<double>(i))},
                                 std::span<const ResourceId>(&r, 1));
      if (j > 0) {
        g.add_dependency(static_cast<TaskId>(id - chains), id);
        g.add_dependency(static_cast<TaskId>((j - 1) * chains + (i + 1) % chains), id);
      }
    }
  const double build = since(t0);
  const auto t1 = Clock::now();
  const auto tl = Engine(gpus).run(g);
  return {.tasks = g.size(), .build_s = build, .run_s = since(t1), .sharing_solves = tl.sharing_solves};
}

EngineBenchResult bench_sharing(std::size_t flows, std::size_t links, std::size_t tasks_per_flow,
                                std::size_t links_per_flow) {
  using namespace sim;
  const auto t0 = Clock::now();
  std::vector<Resource> resources;
  for (std::size_t l = 0; l < links; ++l) resources.push_back({"link" + std::to_string(l), 50e9});
  TaskGraph g;
  g.reserve(flows * tasks_per_flow, flows * tasks_per_flow * links_per_flow, flows * tasks_per_flow);
  test::Xorshift64 next(88172645463325252ull);
  std::vector<ResourceId> route(links_per_flow);
  for (std::size_t j = 0; j < tasks_per_flow; ++j)
    for (std::size_t f = 0; f < flows; ++f) {
      route[0] = static_cast<ResourceId>(f % links);
      for (std::size_t k = 1; k < links_per_flow; ++k) route[k] = static_cast<ResourceId>(next() % links);
      const auto id = g.add_task({.work = 1e6 * static_cast<double>(1 + next() % 64),
                                  .latency = Time::from_ns(1000)},
                                 route);
      if (j > 0) g.add_dependency(static_cast<TaskId>(id - flows), id);
    }
  const double build = since(t0);
  const auto t1 = Clock::now();
  const auto tl = Engine(resources).run(g);
  return {.tasks = g.size(), .build_s = build, .run_s = since(t1), .sharing_solves = tl.sharing_solves};
}

}  // namespace clustersim::bench
