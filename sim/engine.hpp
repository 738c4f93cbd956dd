#pragma once
/// Fluid discrete-event simulation of a TaskGraph over shared resources.
/// Between events every active task progresses linearly at its current rate. An event is a task
/// finishing or a task's latency elapsing; after each, max-min sharing is re-solved only for the
/// connected components of resources whose set of active tasks changed. Progress is settled
/// lazily (a task's remaining work is updated only when its rate changes), so an event costs
/// O(size of the affected component), not O(active tasks).
/// Limitations: no per-packet or per-chunk effects; a task's rate is fixed between events.

#include <stdexcept>
#include <vector>

#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace clustersim::sim {

/// A run that could not finish every task: names the stuck tasks and what they wait for.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  explicit Engine(std::vector<Resource> resources);

  const std::vector<Resource>& resources() const { return resources_; }

  /// Runs the graph to completion. Throws GraphError for an invalid graph (a cycle is named) and
  /// SimulationError if tasks remain unfinished.
  Timeline run(const TaskGraph& graph) const;

 private:
  std::vector<Resource> resources_;
};

}  // namespace clustersim::sim
