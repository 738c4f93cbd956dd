#include "sim/task_graph.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace clustersim::sim {

void TaskGraph::reserve(std::size_t tasks, std::size_t resource_uses, std::size_t dependencies) {
  core_.reserve(tasks);
  label_.reserve(tasks);
  resource_ids_.reserve(resource_uses);
  dependencies_.reserve(dependencies);
}

std::uint32_t TaskGraph::add_extra(const TaskSpec& spec) {
  if (extras_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw GraphError("a graph holds at most 2^32 - 2 tasks with a weight or a rate cap");
  extras_.push_back({spec.weight, spec.rate_cap_per_s});
  return static_cast<std::uint32_t>(extras_.size());
}

void TaskGraph::too_large() const {
  if (core_.size() >= std::numeric_limits<TaskId>::max()) throw GraphError("a graph holds at most 2^32 - 1 tasks");
  throw GraphError("a graph holds at most 2^32 - 1 (task, resource) uses");
}

namespace {

std::string describe(TaskId t) { return "task " + std::to_string(t); }

}  // namespace

const char* TaskGraph::unsound(TaskId t) const {
  const Core& c = core_[t];
  return unsound({.work = c.work, .latency = c.latency, .rate_cap_per_s = rate_cap_per_s(t), .weight = weight(t)},
                 c.resource_count);
}

void TaskGraph::validate_tasks(std::size_t resource_count) const {
  if (!any_unsound_ && resources_named_ <= resource_count) return;
  for (TaskId t = 0; t < size(); ++t) {
    if (const char* why = unsound(t)) throw GraphError(describe(t) + ": " + why);
    for (ResourceId r : resources(t))
      if (r >= resource_count)
        throw GraphError(describe(t) + ": names resource " + std::to_string(r) + " but only " +
                         std::to_string(resource_count) + " exist");
  }
}

void TaskGraph::validate(std::size_t resource_count) const {
  validate_tasks(resource_count);
  const std::size_t n = size();

  // Kahn's algorithm: whatever is never released sits on or behind a cycle.
  std::vector<std::uint32_t> pending(n, 0);
  std::vector<std::uint64_t> begin(n + 1, 0);
  for (const auto& [before, after] : dependencies_) {
    if (before >= n || after >= n)
      throw GraphError("dependency " + std::to_string(before) + " -> " + std::to_string(after) +
                       " names a task that does not exist");
    if (before == after) throw GraphError(describe(before) + " depends on itself");
    ++pending[after];
    ++begin[before + 1];
  }
  for (std::size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  std::vector<TaskId> successors(dependencies_.size());
  {
    std::vector<std::uint64_t> fill(begin.begin(), begin.end() - 1);
    for (const auto& [before, after] : dependencies_) successors[fill[before]++] = after;
  }
  std::vector<TaskId> ready;
  for (TaskId t = 0; t < n; ++t)
    if (pending[t] == 0) ready.push_back(t);
  std::size_t released = 0;
  while (!ready.empty()) {
    const TaskId t = ready.back();
    ready.pop_back();
    ++released;
    for (std::uint64_t i = begin[t]; i < begin[t + 1]; ++i)
      if (--pending[successors[i]] == 0) ready.push_back(successors[i]);
  }
  if (released == n) return;

  // Walk back along unreleased predecessors from a stuck task until a task repeats: that is a cycle.
  std::vector<TaskId> blocker(n, static_cast<TaskId>(n));
  for (const auto& [before, after] : dependencies_)
    if (pending[after] > 0 && pending[before] > 0) blocker[after] = before;
  TaskId t = 0;
  while (pending[t] == 0) ++t;
  std::vector<std::uint32_t> seen(n, 0);
  while (!seen[t]) {
    seen[t] = 1;
    t = blocker[t];
  }
  std::string cycle = describe(t);
  for (TaskId u = blocker[t]; u != t; u = blocker[u]) cycle = describe(u) + " -> " + cycle;
  cycle = describe(t) + " -> " + cycle;
  throw GraphError("dependency cycle: " + cycle + " (" + std::to_string(n - released) +
                   " tasks can never start)");
}

}  // namespace clustersim::sim
