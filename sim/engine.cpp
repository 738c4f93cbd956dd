#include "sim/engine.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "sim/event_queue.hpp"
#include "sim/indexed_heap.hpp"
#include "sim/max_min.hpp"

namespace clustersim::sim {

namespace {

/// What the event loop touches for one task, packed so that an update costs one cache line.
struct TaskState {
  double remaining = 0.0;  // work left as of last_update
  double rate = 0.0;       // progress per second of each of the task's flows
  Time last_update = Time::zero();
  double weight = 1.0;
  double cap = 0.0;        // per flow
  std::uint64_t resource_begin = 0;  // into the graph's flat list of resource uses
  std::uint32_t resource_count = 0;
  std::uint32_t stamp = 0;           // last component collection that visited it
  bool finished = false;
};

/// The mutable state of one Engine::run; keeps Engine itself const and reusable across threads.
class Run {
 public:
  Run(const std::vector<Resource>& resources, const TaskGraph& graph)
      : resources_(resources), graph_(graph), uses_(graph.resource_use_count()) {}

  Timeline execute();

 private:
  void initialise();
  void make_ready(TaskId t);
  void activate(TaskId t);
  void finish(TaskId t);
  void mark_dirty(ResourceId r);
  void resolve_dirty();
  void collect_component(ResourceId seed);
  void solve_component();
  void set_rate(TaskId t, double rate);
  std::span<const ResourceId> resources_of(const TaskState& s) const {
    return {all_uses_ + s.resource_begin, s.resource_count};
  }
  [[noreturn]] void report_unfinished() const;

  const std::vector<Resource>& resources_;
  const TaskGraph& graph_;
  const ResourceId* all_uses_ = nullptr;
  Time now_ = Time::zero();
  EventQueue<TaskId> latency_timers_;  // tasks whose latency elapses at the event time
  IndexedHeap<Time> finishes_;         // active tasks by predicted finish

  std::vector<TaskState> tasks_;
  std::vector<std::uint32_t> pending_;  // by task: unfinished predecessors (apart: touched by edges)
  std::vector<std::uint64_t> successor_begin_;
  std::vector<TaskId> successors_;
  std::vector<std::uint32_t> slot_;  // by resource use: the task's position in active_[resource]

  std::vector<std::vector<TaskId>> active_;  // by resource: tasks sharing it now
  std::vector<char> dirty_;
  std::vector<ResourceId> dirty_list_;
  std::vector<Time> busy_since_;
  std::vector<std::uint32_t> resource_stamp_;
  std::vector<std::uint32_t> local_index_;  // resource -> link index in the solver

  std::uint32_t stamp_ = 0;
  std::vector<ResourceId> component_resources_;
  std::vector<TaskId> component_tasks_;
  std::vector<std::uint32_t> local_links_;
  MaxMinSolver solver_;

  std::size_t uses_;
  Timeline timeline_;
  std::size_t finished_count_ = 0;
};

void Run::initialise() {
  const std::size_t n = graph_.size();
  const std::size_t r = resources_.size();
  all_uses_ = n == 0 ? nullptr : graph_.resources(0).data();
  tasks_.resize(n);
  for (TaskId t = 0; t < n; ++t) {
    TaskState& s = tasks_[t];
    s.remaining = graph_.work(t);
    s.weight = graph_.weight(t);
    s.cap = graph_.rate_cap_per_s(t);
    s.resource_begin = graph_.resource_offset(t);
    s.resource_count = static_cast<std::uint32_t>(graph_.resources(t).size());
  }
  successor_begin_.assign(n + 1, 0);
  pending_.assign(n, 0);
  for (const auto& [before, after] : graph_.dependencies()) {
    if (before >= n || after >= n)
      throw GraphError("dependency " + std::to_string(before) + " -> " + std::to_string(after) +
                       " names a task that does not exist");
    ++successor_begin_[before + 1];
    ++pending_[after];
  }
  for (std::size_t i = 0; i < n; ++i) successor_begin_[i + 1] += successor_begin_[i];
  successors_.resize(graph_.dependency_count());
  {
    std::vector<std::uint64_t> fill(successor_begin_.begin(), successor_begin_.end() - 1);
    for (const auto& [before, after] : graph_.dependencies()) successors_[fill[before]++] = after;
  }
  finishes_ = IndexedHeap<Time>(n);
  slot_.assign(uses_, 0);
  active_.assign(r, {});
  dirty_.assign(r, 0);
  busy_since_.assign(r, Time::zero());
  resource_stamp_.assign(r, 0);
  local_index_.assign(r, 0);
  timeline_.start.assign(n, Time::zero());
  timeline_.finish.assign(n, Time::zero());
  timeline_.busy_s.assign(r, 0.0);
  timeline_.units_served.assign(r, 0.0);
}

Timeline Run::execute() {
  graph_.validate_tasks(resources_.size());
  initialise();
  const std::size_t n = graph_.size();
  for (TaskId t = 0; t < n; ++t)
    if (pending_[t] == 0) make_ready(t);
  resolve_dirty();

  std::vector<TaskId> finishing;
  std::vector<TaskId> elapsed;
  while (!finishes_.empty() || !latency_timers_.empty()) {
    now_ = Time::max();
    if (!finishes_.empty()) now_ = finishes_.top_key();
    if (!latency_timers_.empty()) now_ = std::min(now_, latency_timers_.top().time);
    finishing.clear();
    elapsed.clear();
    // Finishes come out in task-id order at equal times (the heap breaks ties by id); timers are
    // sorted likewise. That keeps runs byte-identical.
    while (!finishes_.empty() && finishes_.top_key() == now_) {
      finishing.push_back(finishes_.top_id());
      finishes_.pop();
    }
    while (!latency_timers_.empty() && latency_timers_.top().time == now_)
      elapsed.push_back(latency_timers_.pop().payload);
    std::sort(elapsed.begin(), elapsed.end());
    for (TaskId t : finishing) finish(t);
    for (TaskId t : elapsed) activate(t);
    resolve_dirty();
  }

  if (finished_count_ != n) report_unfinished();
  timeline_.makespan = now_ < Time::max() ? now_ : Time::zero();
  for (TaskId t = 0; t < n; ++t)
    for (ResourceId res : resources_of(tasks_[t]))
      timeline_.units_served[res] += graph_.work(t) * tasks_[t].weight;
  return std::move(timeline_);
}

void Run::make_ready(TaskId t) {
  timeline_.start[t] = now_;
  if (graph_.latency(t) > Time::zero())
    latency_timers_.push(now_ + graph_.latency(t), t);
  else
    activate(t);
}

void Run::mark_dirty(ResourceId r) {
  if (!dirty_[r]) {
    dirty_[r] = 1;
    dirty_list_.push_back(r);
  }
}

void Run::activate(TaskId t) {
  TaskState& s = tasks_[t];
  s.last_update = now_;
  if (s.remaining <= 0.0) {  // a pure delay: done once its latency has passed
    finishes_.set(t, now_);
    return;
  }
  if (s.resource_count == 0) {  // validated: a finite rate cap bounds it
    set_rate(t, s.cap);
    return;
  }
  for (std::uint32_t i = 0; i < s.resource_count; ++i) {
    const ResourceId res = all_uses_[s.resource_begin + i];
    if (active_[res].empty()) busy_since_[res] = now_;
    slot_[s.resource_begin + i] = static_cast<std::uint32_t>(active_[res].size());
    active_[res].push_back(t);
    mark_dirty(res);
  }
}

void Run::finish(TaskId t) {
  TaskState& s = tasks_[t];
  s.finished = true;
  ++finished_count_;
  timeline_.finish[t] = now_;
  if (graph_.work(t) > 0.0) {
    for (std::uint32_t i = 0; i < s.resource_count; ++i) {
      const ResourceId res = all_uses_[s.resource_begin + i];
      auto& list = active_[res];
      // Swap-remove, then tell the moved task where it now sits for this resource.
      const std::uint32_t pos = slot_[s.resource_begin + i];
      const TaskId moved = list.back();
      list[pos] = moved;
      list.pop_back();
      if (moved != t) {
        const TaskState& m = tasks_[moved];
        for (std::uint32_t j = 0; j < m.resource_count; ++j)
          if (all_uses_[m.resource_begin + j] == res) slot_[m.resource_begin + j] = pos;
      }
      if (list.empty()) timeline_.busy_s[res] += (now_ - busy_since_[res]).seconds();
      mark_dirty(res);
    }
  }
  for (std::uint64_t i = successor_begin_[t]; i < successor_begin_[t + 1]; ++i)
    if (--pending_[successors_[i]] == 0) make_ready(successors_[i]);
}

void Run::set_rate(TaskId t, double rate) {
  TaskState& s = tasks_[t];
  if (rate == s.rate && finishes_.contains(t)) return;  // finish time unchanged
  s.remaining = std::max(0.0, s.remaining - s.rate * (now_ - s.last_update).seconds());
  s.last_update = now_;
  s.rate = rate;
  // Round the finish up to a whole nanosecond so that no work is left undone.
  const double ns = std::ceil(s.remaining / rate * 1e9);
  finishes_.set(t, now_ + Time::from_ns(static_cast<std::int64_t>(ns)));
}

void Run::collect_component(ResourceId seed) {
  component_resources_.clear();
  component_tasks_.clear();
  component_resources_.push_back(seed);
  resource_stamp_[seed] = stamp_;
  for (std::size_t i = 0; i < component_resources_.size(); ++i) {
    for (TaskId t : active_[component_resources_[i]]) {
      TaskState& s = tasks_[t];
      if (s.stamp == stamp_) continue;
      s.stamp = stamp_;
      component_tasks_.push_back(t);
      for (ResourceId res : resources_of(s))
        if (resource_stamp_[res] != stamp_) {
          resource_stamp_[res] = stamp_;
          component_resources_.push_back(res);
        }
    }
  }
}

void Run::solve_component() {
  ++timeline_.sharing_solves;
  // One resource and no binding caps: every flow gets an equal share per unit of weight.
  // This is the common case (a GPU's compute engine, one link) and needs no solver.
  if (component_resources_.size() == 1) {
    const double capacity = resources_[component_resources_[0]].capacity_per_s;
    double total_weight = 0.0;
    double smallest_cap = std::numeric_limits<double>::infinity();
    for (TaskId t : component_tasks_) {
      total_weight += tasks_[t].weight;
      smallest_cap = std::min(smallest_cap, tasks_[t].cap);
    }
    const double share = capacity / total_weight;
    if (share <= smallest_cap) {
      for (TaskId t : component_tasks_) set_rate(t, share);
      return;
    }
  }
  // Solver order follows task ids so that the result does not depend on discovery order.
  std::sort(component_tasks_.begin(), component_tasks_.end());
  solver_.clear();
  for (ResourceId res : component_resources_)
    local_index_[res] = solver_.add_link(resources_[res].capacity_per_s);
  for (TaskId t : component_tasks_) {
    local_links_.clear();
    for (ResourceId res : resources_of(tasks_[t])) local_links_.push_back(local_index_[res]);
    solver_.add_flow(local_links_, tasks_[t].weight, tasks_[t].cap * tasks_[t].weight);
  }
  const auto& rates = solver_.solve();
  for (std::size_t i = 0; i < component_tasks_.size(); ++i)
    set_rate(component_tasks_[i], rates[i] / tasks_[component_tasks_[i]].weight);
}

void Run::resolve_dirty() {
  if (stamp_ > 0xF0000000u) {  // restart stamps long before they wrap
    std::fill(resource_stamp_.begin(), resource_stamp_.end(), 0);
    for (TaskState& s : tasks_) s.stamp = 0;
    stamp_ = 0;
  }
  const std::uint32_t pass_begin = stamp_ + 1;
  for (ResourceId seed : dirty_list_) {
    dirty_[seed] = 0;
    if (resource_stamp_[seed] >= pass_begin) continue;  // in an earlier seed's component
    if (active_[seed].empty()) continue;
    ++stamp_;
    collect_component(seed);
    solve_component();
  }
  dirty_list_.clear();
}

void Run::report_unfinished() const {
  graph_.validate(resources_.size());  // names a cycle if that is the cause
  std::string message = std::to_string(graph_.size() - finished_count_) + " of " +
                        std::to_string(graph_.size()) + " tasks never finished:";
  int listed = 0;
  for (TaskId t = 0; t < graph_.size() && listed < 8; ++t) {
    const TaskState& s = tasks_[t];
    if (s.finished) continue;
    ++listed;
    message += " task " + std::to_string(t);
    if (pending_[t] > 0)
      message += " (waits for " + std::to_string(pending_[t]) + " unfinished predecessors)";
    else
      message += " (ready at " + std::to_string(timeline_.start[t].seconds()) + " s, rate " +
                 std::to_string(s.rate) + "/s)";
    message += ';';
  }
  throw SimulationError(message);
}

}  // namespace

Engine::Engine(std::vector<Resource> resources) : resources_(std::move(resources)) {
  for (const Resource& r : resources_)
    if (!(r.capacity_per_s > 0.0) || !std::isfinite(r.capacity_per_s))
      throw GraphError("resource '" + r.name + "': capacity must be finite and > 0");
}

Timeline Engine::run(const TaskGraph& graph) const { return Run(resources_, graph).execute(); }

}  // namespace clustersim::sim
