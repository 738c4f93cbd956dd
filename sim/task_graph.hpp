#pragma once
/// The DAG one simulation runs: tasks that do an amount of work over shared resources.
/// A compute kernel (GPU-seconds over a GPU's compute engine), a transfer (bytes over the links of
/// a route) and a pure delay (latency only, no resources) are all the same Task type.
/// What the engine reads for every task sits in one 32-byte record rather than an array per field,
/// so that reaching a task far from the last one touched costs one memory access, not six; the
/// rest, read rarely or only by reports, sits in arrays of its own. Graphs of tens of millions of
/// tasks stay compact.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/time.hpp"

namespace clustersim::sim {

using TaskId = std::uint32_t;
using ResourceId = std::uint32_t;

/// Something with a capacity per second that concurrent tasks share by max-min fairness:
/// a directed link (bytes/s), a GPU's compute engine (1 GPU-second per second).
struct Resource {
  std::string name;
  double capacity_per_s = 1.0;
};

/// A small, fixed-size tag that lets metrics group results; sim/ gives the fields no meaning.
struct TaskLabel {
  std::int32_t rank = -1;
  std::int32_t stage = -1;
  std::int32_t micro_batch = -1;
  std::int32_t layer = -1;
  std::uint8_t phase = 0;
  std::uint8_t kind = 0;
};

struct TaskSpec {
  double work = 0.0;            // units of its resources' capacity (bytes, GPU-seconds)
  Time latency = Time::zero();  // paid before the work starts sharing resources
  double rate_cap_per_s = std::numeric_limits<double>::infinity();  // per flow
  double weight = 1.0;  // identical flows this task stands for; each moves `work` units
  TaskLabel label{};
};

/// An invalid graph: a cycle, an unknown resource or task, impossible work.
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The engine's own access to TaskGraph's internal records (defined in sim/engine.cpp only).
struct EngineAccess;

class TaskGraph {
 public:
  /// Inline (below), so that the fields a caller fixes (weight 1, no rate cap, one resource) fold
  /// away: building a step's graph costs about as much as simulating it.
  TaskId add_task(const TaskSpec& spec, std::span<const ResourceId> resources = {},
                  std::span<const TaskId> predecessors = {});
  /// `after` starts only once `before` has finished.
  void add_dependency(TaskId before, TaskId after) {
    dependencies_.emplace_back(before, after);
    tasks_named_ = std::max<std::size_t>(tasks_named_, std::size_t{std::max(before, after)} + 1);
  }
  void reserve(std::size_t tasks, std::size_t resource_uses, std::size_t dependencies);

  std::size_t size() const { return core_.size(); }
  std::size_t dependency_count() const { return dependencies_.size(); }

  double work(TaskId t) const { return core_[t].work; }
  Time latency(TaskId t) const { return core_[t].latency; }
  double rate_cap_per_s(TaskId t) const {
    return core_[t].extra == 0 ? std::numeric_limits<double>::infinity() : extras_[core_[t].extra - 1].rate_cap_per_s;
  }
  double weight(TaskId t) const { return core_[t].extra == 0 ? 1.0 : extras_[core_[t].extra - 1].weight; }
  const TaskLabel& label(TaskId t) const { return label_[t]; }
  std::span<const ResourceId> resources(TaskId t) const {
    return {resource_ids_.data() + core_[t].resource_begin, core_[t].resource_count};
  }
  /// resources(t)[0], or 0 for a task with none.
  ResourceId first_resource(TaskId t) const { return core_[t].first_resource; }
  std::size_t resource_use_count() const { return resource_ids_.size(); }
  /// (before, after) pairs in insertion order.
  std::span<const std::pair<TaskId, TaskId>> dependencies() const { return dependencies_; }
  /// Whether every dependency names tasks that exist (checked in O(1)).
  bool dependencies_in_range() const { return tasks_named_ <= size(); }

  /// Throws GraphError unless every resource id is below `resource_count`, work, weights and caps
  /// are sensible, and the dependencies form no cycle (the cycle's tasks are named).
  void validate(std::size_t resource_count) const;
  /// The per-task half of validate(), no cycle search. O(1) when every task was sound as added
  /// and names resources below `resource_count`; otherwise O(tasks), to name the first bad one.
  void validate_tasks(std::size_t resource_count) const;

 private:
  // The layout below is the engine's business: it reads a task's record and the flat list of
  // uses directly (EngineAccess); everything else goes through the accessors above.
  friend struct EngineAccess;

  /// What the engine reads for a task: everything an event touches, in one record.
  struct Core {
    double work;
    Time latency;
    std::uint32_t resource_begin;  // position of its first resource in the flat list of uses
    std::uint32_t resource_count;
    ResourceId first_resource;     // resources(t)[0] when it has one, read without the list
    std::uint32_t extra;           // 0: weight 1 and no rate cap; else 1 + its entry in extras_
  };
  const Core& core(TaskId t) const { return core_[t]; }
  /// The flat list of every task's resources; task t's start at core(t).resource_begin.
  const ResourceId* resource_uses() const { return resource_ids_.data(); }

  /// Why a task with these fields is out of range, or nullptr if it is not.
  static const char* unsound(const TaskSpec& spec, std::size_t resource_count);
  /// The same for task t as stored.
  const char* unsound(TaskId t) const;
  /// add_task's rare cases, out of line: a task's entry in extras_ (1 + its index), the size limits.
  std::uint32_t add_extra(const TaskSpec& spec);
  [[noreturn]] void too_large() const;

  std::vector<Core> core_;
  /// Weight and rate cap of the tasks that have either; most tasks (a kernel, one transfer) have
  /// neither and store nothing here.
  struct Extra {
    double weight;
    double rate_cap_per_s;
  };
  std::vector<Extra> extras_;
  std::vector<TaskLabel> label_;
  std::vector<ResourceId> resource_ids_;
  std::vector<std::pair<TaskId, TaskId>> dependencies_;
  // Kept as tasks are added, so that a run need not scan them all again.
  bool any_unsound_ = false;        // some task's work, latency, weight or cap is out of range
  std::size_t resources_named_ = 0;  // one past the largest resource id any task names
  std::size_t tasks_named_ = 0;      // one past the largest task id any dependency names
};

inline TaskId TaskGraph::add_task(const TaskSpec& spec, std::span<const ResourceId> resources,
                                  std::span<const TaskId> predecessors) {
  if (core_.size() >= std::numeric_limits<TaskId>::max() ||
      resource_ids_.size() + resources.size() > std::numeric_limits<std::uint32_t>::max())
    too_large();
  const auto id = static_cast<TaskId>(core_.size());
  const bool plain = spec.weight == 1.0 && spec.rate_cap_per_s == std::numeric_limits<double>::infinity();
  core_.push_back({.work = spec.work,
                   .latency = spec.latency,
                   .resource_begin = static_cast<std::uint32_t>(resource_ids_.size()),
                   .resource_count = static_cast<std::uint32_t>(resources.size()),
                   .first_resource = resources.empty() ? ResourceId{0} : resources.front(),
                   .extra = plain ? 0 : add_extra(spec)});
  label_.push_back(spec.label);
  for (ResourceId r : resources) {  // usually one: a loop, not a range insert and its memmove
    resource_ids_.push_back(r);
    resources_named_ = std::max<std::size_t>(resources_named_, std::size_t{r} + 1);
  }
  any_unsound_ = any_unsound_ || unsound(spec, resources.size()) != nullptr;
  for (TaskId before : predecessors) add_dependency(before, id);
  return id;
}

inline const char* TaskGraph::unsound(const TaskSpec& spec, std::size_t resource_count) {
  if (!(spec.work >= 0.0) || !std::isfinite(spec.work)) return "work must be finite and >= 0";
  if (spec.latency < Time::zero()) return "latency must be >= 0";
  if (!(spec.weight > 0.0) || !std::isfinite(spec.weight)) return "weight must be finite and > 0";
  if (!(spec.rate_cap_per_s > 0.0)) return "rate cap must be > 0";
  if (spec.work > 0.0 && resource_count == 0 && std::isinf(spec.rate_cap_per_s))
    return "has work but neither resources nor a rate cap";
  return nullptr;
}

}  // namespace clustersim::sim
