#include "sim/engine.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "sim/engine_run.hpp"

namespace clustersim::sim {

/// The engine's reading of TaskGraph's internal records, which TaskGraph keeps from everyone else.
struct EngineAccess {
  using Core = TaskGraph::Core;
  static const Core& core(const TaskGraph& graph, TaskId t) { return graph.core(t); }
  static const ResourceId* resource_uses(const TaskGraph& graph) { return graph.resource_uses(); }
};

namespace {

void Run::initialise() {
  const std::size_t n = graph_.size();
  const std::size_t r = resources_.size();
  all_uses_ = EngineAccess::resource_uses(graph_);
  if (graph_.dependency_count() > std::numeric_limits<std::uint32_t>::max())
    throw GraphError(std::to_string(graph_.dependency_count()) + " dependencies: at most 2^32 - 1 are supported");
  if (!graph_.dependencies_in_range())
    for (const auto& [before, after] : graph_.dependencies())
      if (before >= n || after >= n)
        throw GraphError("dependency " + std::to_string(before) + " -> " + std::to_string(after) +
                         " names a task that does not exist");
  events_ = IndexedHeap<Time>(r);
  slot_ = std::make_unique_for_overwrite<std::uint32_t[]>(graph_.resource_use_count());
  active_.assign(r, {});
  groups_.assign(r, {});
  individual_.assign(r, 0);
  dirty_.assign(r, 0);
  busy_since_.assign(r, Time::zero());
  resource_stamp_.assign(r, 0);
  local_index_.assign(r, 0);
  timeline_.busy_s.assign(r, 0.0);
  timeline_.units_served.assign(r, 0.0);
  states_.assign(n, TaskTimes{});
  // For now `finish` counts a task's successors.
  for (const auto& [before, after] : graph_.dependencies()) {
    // Counts, not times: unchecked (below 2^32 by the check above).
    states_[before].finish = Time::from_ns(states_[before].finish.ns() + 1);
    states_[after].start = Time::from_ns(states_[after].start.ns() - 1);
  }
  // Running sums turn the counts into the ends of the lists; the same pass starts every task
  // without predecessors. Filling every list backwards from its end, over the dependencies in
  // reverse, then keeps insertion order and leaves each on its start.
  std::uint32_t end = 0;
  for (TaskId t = 0; t < n; ++t) {
    TaskTimes& state = states_[t];
    const auto length = static_cast<std::uint32_t>(state.finish.ns());
    end += length;
    state.finish = pack({end, length});
    if (state.start.ns() == 0) make_ready(t);
  }
  successors_ = std::make_unique_for_overwrite<TaskId[]>(graph_.dependency_count());
  const auto dependencies = graph_.dependencies();
  for (auto d = dependencies.rbegin(); d != dependencies.rend(); ++d) {
    TaskTimes& state = states_[d->first];
    state.finish = Time::from_ns(state.finish.ns() - 1);  // the list's begin, one back
    successors_[successor_list(state).begin] = d->second;
  }
}

Timeline Run::execute() {
  graph_.validate_tasks(resources_.size());
  initialise();
  resolve_dirty();

  // The next instant is the earlier of the two heaps' tops (an empty heap's top key is Time::max()).
  while (!events_.empty() || !latency_ends_.empty()) {
    now_ = events_.top_key();
    const Time next_latency_end = latency_ends_.top_key();
    // The commonest instants: one task finishes, or ends its latency, and nothing else happens.
    // A finished task's successors go straight in, and the first event inserted takes the popped
    // one's place in the heap of finishes.
    if (const std::uint32_t id = events_.top_id();
        now_ < next_latency_end && id >= resource_count_ && events_.top_is_unique()) {
      // finish<true> starts the successors at once: nothing else may be pending at this instant.
      assert(released_.empty() && own_work_done(id - resource_count_));
      events_.pop_later();
      finish<true>(id - resource_count_);
      if (!dirty_list_.empty()) resolve_dirty();
      events_.fill_hole();
      continue;
    }
    if (next_latency_end < now_) {
      now_ = next_latency_end;
      if (latency_ends_.top_is_unique()) {
        const Slot f = latency_ends_.top_id();
        latency_ends_.pop();
        activate(f);
        if (!dirty_list_.empty()) resolve_dirty();
        continue;
      }
    }
    finishing_.clear();
    elapsed_.clear();
    while (!events_.empty() && events_.top_key() == now_) {
      const std::uint32_t id = events_.top_id();
      if (id < resource_count_) {
        expire_group(id);  // moves the group's entry to its next finish in place, or removes it
        continue;
      }
      events_.pop();
      const Slot f = id - resource_count_;
      assert(own_work_done(f));
      finishing_.push_back({flights_[f].task, f});
    }
    while (!latency_ends_.empty() && latency_ends_.top_key() == now_) {
      const Slot f = latency_ends_.top_id();
      latency_ends_.pop();
      elapsed_.push_back({flights_[f].task, f});
    }
    // Task-id order at equal times keeps runs byte-identical.
    if (finishing_.size() > 1) std::sort(finishing_.begin(), finishing_.end());
    if (elapsed_.size() > 1) std::sort(elapsed_.begin(), elapsed_.end());
    // Every task that finishes now leaves its resources before anything new joins them.
    for (const TaskSlot& ts : finishing_) finish<false>(ts.slot);
    for (TaskId t : released_) make_ready(t);
    released_.clear();
    for (const TaskSlot& ts : elapsed_) activate(ts.slot);
    if (!dirty_list_.empty()) resolve_dirty();
  }

  if (finished_count_ != graph_.size()) report_unfinished();
  timeline_.makespan = now_;
  return std::move(timeline_);
}

Slot Run::new_flight(TaskId t) {
  Slot f = 0;
  if (free_slots_.empty()) {
    f = static_cast<Slot>(flights_.size());
    flights_.emplace_back();
    events_.grow(event_id(f) + 1);
    latency_ends_.grow(f + 1);
  } else {
    f = free_slots_.back();
    free_slots_.pop_back();
  }
  const EngineAccess::Core& c = EngineAccess::core(graph_, t);
  flights_[f] = Flight{.remaining = c.work,
                       .resource_begin = c.resource_begin,
                       .resource_count = c.resource_count,
                       .first_resource = c.first_resource,
                       .task = t,
                       .plain = c.extra == 0};
  return f;
}

void Run::make_ready(TaskId t) {
  states_[t].start = now_;
  const Slot f = new_flight(t);
  const Time latency = graph_.latency(t);
  if (latency > Time::zero()) {
    latency_ends_.set(f, now_ + latency);
  } else {
    activate(f);
  }
}

void Run::mark_dirty(ResourceId r) {
  if (!dirty_[r]) {
    dirty_[r] = 1;
    dirty_list_.push_back(r);
  }
}

inline void Run::add_to_resource(Slot f, std::uint32_t use, ResourceId r) {
  if (active_[r].empty()) busy_since_[r] = now_;
  slot_in(flights_[f], use) = static_cast<std::uint32_t>(active_[r].size());
  active_[r].push_back(f);
}

inline void Run::activate(Slot f) {
  Flight& s = flights_[f];
  s.last_update = now_;
  if (s.remaining <= 0.0) {  // a pure delay: done once its latency has passed
    events_.set(event_id(f), now_);
    return;
  }
  s.on_resources = true;
  // Every unit of its work will be served by each of its resources, for each flow it stands for.
  const double units = s.remaining * weight(s);
  for (std::uint32_t i = 0; i < s.resource_count; ++i) timeline_.units_served[resource_in(s, i)] += units;
  if (s.resource_count == 0) {  // validated: a finite rate cap bounds it
    set_rate(f, graph_.rate_cap_per_s(s.task));
    return;
  }
  if (groupable(s)) {
    const ResourceId r = s.first_resource;
    if (!individual_[r]) {
      // Alone on an idle resource, a task runs solo at the full rate: the commonest case
      // (a GPU's compute engine) costs one heap entry and no group bookkeeping.
      if (active_[r].empty()) {
        assert(groups_[r].members.empty());
        add_to_resource(f, 0, r);
        ++timeline_.sharing_solves;
        // A flight that has not progressed yet needs none of set_rate's settling.
        s.rate = resources_[r].capacity_per_s / weight(s);
        schedule_finish(f);
        return;
      }
      if (groups_[r].members.empty()) join_solo_to_group(r);
      add_to_resource(f, 0, r);
      join_group(r, f);
      return;
    }
  }
  for (std::uint32_t i = 0; i < s.resource_count; ++i) {
    const ResourceId r = resource_in(s, i);
    if (!individual_[r]) dissolve_group(r);
    add_to_resource(f, i, r);
    mark_dirty(r);
  }
}

template <bool start_now>
void Run::finish(Slot f) {
  Flight& s = flights_[f];
  const TaskId t = s.task;
  TaskTimes& state = states_[t];
  const SuccessorList successors = successor_list(state);
  state.finish = now_;
  ++finished_count_;
  if (s.on_resources) {
    for (std::uint32_t i = 0; i < s.resource_count; ++i) {
      const ResourceId r = resource_in(s, i);
      auto& list = active_[r];
      // Swap-remove, then tell the entry moved from the back where it now sits. That entry is
      // found by its resource and old position, not by its task alone: a task that names a
      // resource twice is on its list twice, and the moved entry may be this task's own other one.
      const std::uint32_t pos = slot_in(s, i);
      assert(pos < list.size() && list[pos] == f);
      const Slot moved = list.back();
      list[pos] = moved;
      list.pop_back();
      if (const auto last = static_cast<std::uint32_t>(list.size()); pos != last) {  // moved from last
        Flight& m = flights_[moved];
        for (std::uint32_t j = 0; j < m.resource_count; ++j)
          if (resource_in(m, j) == r && slot_in(m, j) == last) {
            slot_in(m, j) = pos;
            break;
          }
        assert(listed_at(m, r, pos));
      }
      if (list.empty()) {
        timeline_.busy_s[r] += now_.seconds_since(busy_since_[r]);
        individual_[r] = 0;  // an idle resource starts over as a sharing group
      } else if (individual_[r]) {
        mark_dirty(r);  // the others share what this task leaves
      }
    }
  }
  free_slots_.push_back(f);  // the first successor started takes it
  for (std::uint32_t i = successors.begin; i < successors.begin + successors.length; ++i) {
    Time& waiting = states_[successors_[i]].start;
    waiting = Time::from_ns(waiting.ns() + 1);  // a count
    if (waiting.ns() != 0) continue;
    if constexpr (start_now)
      make_ready(successors_[i]);
    else
      released_.push_back(successors_[i]);
  }
}

void Run::settle_group(ResourceId r) {
  SharingGroup& g = groups_[r];
  if (g.total_weight > 0.0)
    g.virtual_now += resources_[r].capacity_per_s / g.total_weight * now_.seconds_since(g.last_update);
  g.last_update = now_;
}

void Run::schedule_group(ResourceId r) {
  SharingGroup& g = groups_[r];
  if (g.members.empty()) {
    events_.erase(r);
    return;
  }
  assert(g.total_weight > 0.0);
  const double rate = resources_[r].capacity_per_s / g.total_weight;
  // Round up to a whole nanosecond so that the earliest member has finished when the event fires.
  const double work_left = std::max(0.0, g.members.front().virtual_finish - g.virtual_now);
  events_.set(r, now_ + Time::from_ns_rounded_up(work_left / rate * 1e9));
}

void Run::join_group(ResourceId r, Slot f) {
  SharingGroup& g = groups_[r];
  const Flight& s = flights_[f];
  assert(!individual_[r] && groupable(s));
  settle_group(r);
  g.members.push_back({g.virtual_now + s.remaining, s.task, f});
  std::push_heap(g.members.begin(), g.members.end(), std::greater<>{});
  g.total_weight += weight(s);
  ++timeline_.sharing_solves;
  schedule_group(r);
}

void Run::join_solo_to_group(ResourceId r) {
  // The resource's one task ran solo (solved individually); it becomes the group's first member.
  assert(active_[r].size() == 1 && events_.contains(event_id(active_[r].front())));
  const Slot solo = active_[r].front();
  Flight& s = flights_[solo];
  s.remaining = std::max(0.0, s.remaining - s.rate * now_.seconds_since(s.last_update));
  s.last_update = now_;
  events_.erase(event_id(solo));
  join_group(r, solo);
}

void Run::expire_group(ResourceId r) {
  SharingGroup& g = groups_[r];
  assert(!individual_[r] && !g.members.empty());
  settle_group(r);
  // Members whose virtual finish the clock has reached, within rounding, finish now.
  const double reached = g.virtual_now * (1.0 + 1e-12) + 1e-12;
  while (!g.members.empty() && g.members.front().virtual_finish <= reached) {
    std::pop_heap(g.members.begin(), g.members.end(), std::greater<>{});
    const SharingGroup::Member m = g.members.back();
    g.members.pop_back();
    g.total_weight -= weight(flights_[m.slot]);
    finishing_.push_back({m.task, m.slot});
  }
  if (g.members.empty()) {  // the next busy period starts from nothing (SharingGroup::virtual_now)
    g.total_weight = 0.0;
    g.virtual_now = 0.0;
  }
  ++timeline_.sharing_solves;
  schedule_group(r);
}

void Run::dissolve_group(ResourceId r) {
  SharingGroup& g = groups_[r];
  // Solo (its task keeps its own event) or a group of every task on r.
  assert(g.members.empty() ? active_[r].size() <= 1 : g.members.size() == active_[r].size());
  settle_group(r);
  individual_[r] = 1;
  events_.erase(r);
  const double rate = g.total_weight > 0.0 ? resources_[r].capacity_per_s / g.total_weight : 0.0;
  for (const SharingGroup::Member& m : g.members) {
    Flight& s = flights_[m.slot];
    s.remaining = std::max(0.0, m.virtual_finish - g.virtual_now);
    s.rate = rate;
    s.last_update = now_;
  }
  g.members.clear();
  g.total_weight = 0.0;
  g.virtual_now = 0.0;  // emptied: the group's next busy period starts from nothing
  mark_dirty(r);  // its former members now need individual rates
}

inline void Run::set_rate(Slot f, double rate) {
  assert(rate > 0.0);
  Flight& s = flights_[f];
  if (rate == s.rate && events_.contains(event_id(f))) return;  // finish time unchanged
  s.remaining = std::max(0.0, s.remaining - s.rate * now_.seconds_since(s.last_update));
  s.last_update = now_;
  s.rate = rate;
  schedule_finish(f);
}

inline void Run::schedule_finish(Slot f) {
  const Flight& s = flights_[f];
  assert(s.remaining >= 0.0 && s.rate > 0.0);
  // Round the finish up to a whole nanosecond so that no work is left undone.
  events_.set(event_id(f), now_ + Time::from_ns_rounded_up(s.remaining / s.rate * 1e9));
}

void Run::collect_component(ResourceId seed) {
  component_resources_.clear();
  component_tasks_.clear();
  component_resources_.push_back(seed);
  resource_stamp_[seed] = stamp_;
  for (std::size_t i = 0; i < component_resources_.size(); ++i) {
    for (Slot f : active_[component_resources_[i]]) {
      Flight& s = flights_[f];
      if (s.stamp == stamp_) continue;
      s.stamp = stamp_;
      component_tasks_.push_back({s.task, f});
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
  // One resource whose tasks all qualify: it goes back to being a sharing group.
  if (component_resources_.size() == 1 &&
      std::all_of(component_tasks_.begin(), component_tasks_.end(),
                  [&](const TaskSlot& ts) { return groupable(flights_[ts.slot]); })) {
    const ResourceId r = component_resources_[0];
    individual_[r] = 0;
    if (component_tasks_.size() == 1) {  // solo again
      const TaskSlot ts = component_tasks_[0];
      set_rate(ts.slot, resources_[r].capacity_per_s / weight(flights_[ts.slot]));
      return;
    }
    groups_[r].last_update = now_;
    std::sort(component_tasks_.begin(), component_tasks_.end());
    for (const TaskSlot& ts : component_tasks_) {
      Flight& s = flights_[ts.slot];
      s.remaining = std::max(0.0, s.remaining - s.rate * now_.seconds_since(s.last_update));
      s.last_update = now_;
      events_.erase(event_id(ts.slot));
      join_group(r, ts.slot);
    }
    return;
  }
  // One flow over distinct resources (most components of a rail-aligned step): its tightest
  // resource or its cap, computed as the solver would, operation for operation, so that the rates
  // stay bit-identical without the solver's setup.
  if (component_tasks_.size() == 1 && component_resources_.size() == flights_[component_tasks_[0].slot].resource_count) {
    const TaskSlot ts = component_tasks_[0];
    const double w = graph_.weight(ts.task);
    const double cap = graph_.rate_cap_per_s(ts.task) * w;
    double level = std::numeric_limits<double>::infinity();
    for (ResourceId res : component_resources_) level = std::min(level, resources_[res].capacity_per_s / w);
    const double rate = level <= cap / w ? w * std::max(0.0, level) : cap;
    set_rate(ts.slot, rate / w);
    return;
  }
  // Solver order follows task ids so that the result does not depend on discovery order.
  std::sort(component_tasks_.begin(), component_tasks_.end());
  solver_.clear();
  for (ResourceId res : component_resources_) local_index_[res] = solver_.add_link(resources_[res].capacity_per_s);
  for (const TaskSlot& ts : component_tasks_) {
    local_links_.clear();
    for (ResourceId res : resources_of(flights_[ts.slot])) local_links_.push_back(local_index_[res]);
    solver_.add_flow(local_links_, graph_.weight(ts.task), graph_.rate_cap_per_s(ts.task) * graph_.weight(ts.task));
  }
  const auto& rates = solver_.solve();
  for (std::size_t i = 0; i < component_tasks_.size(); ++i)
    set_rate(component_tasks_[i].slot, rates[i] / graph_.weight(component_tasks_[i].task));
}

void Run::resolve_dirty() {
  if (stamp_ > 0xF0000000u) {  // restart stamps long before they wrap
    std::fill(resource_stamp_.begin(), resource_stamp_.end(), 0);
    for (Flight& s : flights_) s.stamp = 0;
    stamp_ = 0;
  }
  const std::uint32_t pass_begin = stamp_ + 1;
  for (ResourceId seed : dirty_list_) {
    dirty_[seed] = 0;
    if (resource_stamp_[seed] >= pass_begin) continue;  // in an earlier seed's component
    if (active_[seed].empty() || !individual_[seed]) continue;
    ++stamp_;
    collect_component(seed);
    solve_component();
  }
  dirty_list_.clear();
}

void Run::report_unfinished() const {
  graph_.validate(resources_.size());  // names a cycle if that is the cause
  // A task is unfinished if it still waits (its start holds the count) or holds a flight slot.
  std::vector<char> slot_free(flights_.size(), 0);
  for (Slot f : free_slots_) slot_free[f] = 1;
  std::vector<char> in_flight(graph_.size(), 0);
  for (Slot f = 0; f < flights_.size(); ++f)
    if (!slot_free[f]) in_flight[flights_[f].task] = 1;
  std::string message = std::to_string(graph_.size() - finished_count_) + " of " + std::to_string(graph_.size()) +
                        " tasks never finished:";
  int listed = 0;
  for (TaskId t = 0; t < graph_.size() && listed < 8; ++t) {
    const Time start = states_[t].start;
    if (start.ns() >= 0 && !in_flight[t]) continue;  // finished
    ++listed;
    message += " task " + std::to_string(t);
    if (start.ns() < 0)
      message += " (waits for " + std::to_string(-start.ns()) + " unfinished predecessors)";
    else
      message += " (ready at " + std::to_string(start.seconds()) + " s, never finished its work)";
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
