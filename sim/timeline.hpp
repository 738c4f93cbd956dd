#pragma once
/// What one engine run produced: when each task ran and how busy each resource was.

#include <cstdint>
#include <vector>

#include "sim/task_graph.hpp"
#include "sim/time.hpp"

namespace clustersim::sim {

/// When one task ran.
struct TaskTimes {
  Time start;   // when it became ready (its latency starts then)
  Time finish;
  bool operator==(const TaskTimes&) const = default;
};

struct Timeline {
  std::vector<TaskTimes> tasks;        // by task
  std::vector<double> busy_s;          // by resource: time with at least one task on it
  std::vector<double> units_served;    // by resource: work carried (bytes, GPU-seconds)
  Time makespan = Time::zero();
  std::size_t sharing_solves = 0;      // connected components re-solved (a cost measure)
};

}  // namespace clustersim::sim
