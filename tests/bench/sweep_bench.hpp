#pragma once
/// Layout-search speed: `clustersim sweep --search` on a scenario, timed end to end (enumeration,
/// memory pruning, costing, simulation of the distinct fitting plans that can reach the top 20,
/// ranking).

#include <cstddef>
#include <string>
#include <vector>

namespace clustersim::bench {

struct SearchBenchResult {
  std::size_t layouts = 0;    // valid layouts enumerated
  std::size_t fitting = 0;    // of them, those that fit in memory
  std::size_t simulated = 0;  // of those, simulated (the rest bounded out of the top 20)
  double seconds = 0.0;       // wall time of the whole search
};

/// Searches the built-in default scenario with `sets` overrides on `jobs` threads.
SearchBenchResult bench_search(const std::vector<std::string>& sets, unsigned jobs);

}  // namespace clustersim::bench
