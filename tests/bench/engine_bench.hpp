#pragma once
/// Engine throughput on synthetic graphs: completions per second with and without sharing.

#include <cstddef>

namespace clustersim::bench {

struct EngineBenchResult {
  std::size_t tasks = 0;
  double build_s = 0.0;
  double run_s = 0.0;
  std::size_t sharing_solves = 0;
};

/// `chains` GPUs each run `length` compute tasks in order, lockstepped with a neighbour chain;
/// no two tasks ever share a resource.
EngineBenchResult bench_no_sharing(std::size_t chains, std::size_t length);

/// `flows` chains of transfers run concurrently over `links` links: at any time `flows` transfers
/// share the links, each crossing `links_per_flow` of them (1: flows meet only on their own link;
/// 2: links couple into large components that must be solved together).
EngineBenchResult bench_sharing(std::size_t flows, std::size_t links, std::size_t tasks_per_flow,
                                std::size_t links_per_flow);

}  // namespace clustersim::bench
