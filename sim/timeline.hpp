#pragma once
/// What one engine run produced: when each task ran and how busy each resource was.

#include <cstdint>
#include <vector>

#include "sim/task_graph.hpp"
#include "sim/time.hpp"

namespace clustersim::sim {

/// When one task ran. While the engine runs, the record also holds its two counters for the task,
/// so that everything an event touches for a task is on one cache line; the engine hands the
/// records over as they are, since copying the times out of 10 million of them cost a twentieth
/// of the run. After the run the counters mean nothing.
struct TaskTimes {
  Time start;   // when it became ready (its latency starts then)
  Time finish;
  std::uint32_t engine_pending = 0;          // the engine's: unfinished predecessors
  std::uint32_t engine_successor_begin = 0;  // the engine's: where its successor list begins
  bool operator==(const TaskTimes& o) const { return start == o.start && finish == o.finish; }
};

struct Timeline {
  std::vector<TaskTimes> tasks;        // by task
  std::vector<double> busy_s;          // by resource: time with at least one task on it
  std::vector<double> units_served;    // by resource: work carried (bytes, GPU-seconds)
  Time makespan = Time::zero();
  std::size_t sharing_solves = 0;      // connected components re-solved (a cost measure)
};

}  // namespace clustersim::sim
