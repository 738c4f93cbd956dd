#pragma once
/// The state of one Engine::run and the event loop's declarations: what it keeps per task in
/// flight, per resource in each of its two modes, and the Run class whose members sim/engine.cpp
/// defines. Internal to the engine: sim/engine.cpp is the only file that includes it, and the
/// anonymous namespace keeps every name below to that one translation unit, so that the compiler
/// sees and inlines the event loop exactly as when it was all one file (see CMakeLists.txt on
/// engine.cpp's inlining budget).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/indexed_heap.hpp"
#include "sim/max_min.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace clustersim::sim {

namespace {

/// What the event loop keeps for a task from the moment it is ready until it finishes. Only tasks
/// in flight hold one, in slots that finished tasks hand on, so the engine's memory per task of
/// the graph stays its TaskTimes record and its successors however large the graph. Weight and
/// rate cap stay in the graph, read only for tasks that are not `plain`.
struct Flight {
  double remaining = 0.0;  // work left as of last_update (while solved individually)
  double rate = 0.0;       // progress per second of each of the task's flows
  Time last_update = Time::zero();
  std::uint32_t resource_begin = 0;  // into the graph's flat list of resource uses
  std::uint32_t resource_count = 0;
  ResourceId first_resource = 0;     // its first resource, copied from the graph's record
  std::uint32_t first_slot = 0;      // its position in active_[first_resource]
  TaskId task = 0;
  std::uint32_t stamp = 0;       // last component collection that visited it
  bool plain = false;            // weight 1, no rate cap
  bool on_resources = false;     // it has joined its resources (it has work to do on them)
};

using Slot = std::uint32_t;

/// A slot in flight, with its task id first so that lists sort into task-id order.
struct TaskSlot {
  TaskId task;
  Slot slot;
  bool operator<(const TaskSlot& o) const { return task < o.task; }
};

/// While the engine runs, a task's TaskTimes record holds its counters in place of the times it
/// does not have yet, so that everything an event touches for a task is one 16-byte record and the
/// records are handed over as the Timeline's without a copy (10 million tasks: 160 MB, not 240).
/// - Until it is ready, `start` holds minus its unfinished predecessors; a started task's is its
///   start time, never negative.
/// - Until it finishes, `finish` holds its successor list: (length << 32) | where it begins.
struct SuccessorList {
  std::uint32_t begin;
  std::uint32_t length;
};
SuccessorList successor_list(const TaskTimes& state) {
  const auto packed = static_cast<std::uint64_t>(state.finish.ns());
  return {static_cast<std::uint32_t>(packed), static_cast<std::uint32_t>(packed >> 32)};
}
Time pack(SuccessorList list) {
  return Time::from_ns(static_cast<std::int64_t>((std::uint64_t{list.length} << 32) | list.begin));
}

/// A resource's two modes.
///
/// Sharing group (individual_[r] == 0), the default, and what every resource starts in and returns
/// to when it falls idle. Every task on it is `groupable`: it uses r alone and has no rate cap.
/// Such a resource is a processor-sharing queue: every task progresses at the same rate per unit
/// of weight, capacity / total weight. Its "virtual work" clock advances at that rate, and a task
/// finishes when the clock passes its join value plus its work, which no later join or leave
/// changes. So the group keeps its tasks in a heap of those fixed virtual finishes and puts only
/// its earliest into the engine's heap (event id r): a join or a leave costs O(log members), not a
/// new rate for every member. Three states:
/// - idle: no task on it, no members, no event r;
/// - solo: one task, no members. The task holds its own finish event (event_id of its slot), with
///   `remaining` settled at `last_update` and the full rate, as an individual task would: the
///   commonest case (a GPU's compute engine) costs one heap entry and no group bookkeeping;
/// - group: a second groupable task joined (join_solo_to_group makes the solo task the first
///   member). Every task on r is a member, and no member holds an event of its own; the members'
///   Flight `remaining` and `rate` are stale, the group's heap holds what counts. Members leave
///   as the clock reaches them (expire_group); a group down to one member stays a group.
///
/// Individual (individual_[r] == 1). Entered when a task that is not groupable (several resources,
/// or a rate cap) joins r: dissolve_group turns each member's virtual finish back into its own
/// `remaining` at the group's rate, and r is marked dirty. Every task on r then holds its own
/// finish event at remaining / rate after last_update, and the rates come from max-min sharing
/// over the connected component of resources that r's tasks couple (resolve_dirty, re-solved
/// only when a task joins or leaves one of them). It is left when r falls idle (finish), or when a
/// re-solve finds r alone in its component with only groupable tasks (solve_component: solo again
/// for one task, a new group for several).
///
/// In either mode active_[r] lists the tasks on r, and each task knows its position in every one
/// of its resources' lists (first_slot, slot_): that back-pointer is what lets a finish leave its
/// resources in O(1) each.
struct SharingGroup {
  // Work one unit of weight has received since the resource's busy period started: it starts over
  // at 0 whenever the group empties, so that a busy period's arithmetic (and its rounding) depends
  // only on its own tasks and instants relative to its start, never on what ran before.
  double virtual_now = 0.0;
  Time last_update = Time::zero();
  double total_weight = 0.0;
  struct Member {
    double virtual_finish;
    TaskId task;
    Slot slot;
    bool operator>(const Member& o) const {
      return virtual_finish > o.virtual_finish || (virtual_finish == o.virtual_finish && task > o.task);
    }
  };
  std::vector<Member> members;  // min-heap by (virtual finish, task)
};

/// The mutable state of one Engine::run; keeps Engine itself const and reusable across threads.
class Run {
 public:
  Run(const std::vector<Resource>& resources, const TaskGraph& graph)
      : resources_(resources), graph_(graph), resource_count_(static_cast<std::uint32_t>(resources.size())) {}

  Timeline execute();

 private:
  /// Sets up the run's arrays and successor lists, and starts every task without predecessors.
  void initialise();
  Slot new_flight(TaskId t);
  void make_ready(TaskId t);
  [[gnu::always_inline]] void activate(Slot f);
  /// Takes slot f's task off its resources and releases its successors: started at once when
  /// `start_now` (nothing else happens at this instant), else listed in released_.
  template <bool start_now>
  void finish(Slot f);
  void expire_group(ResourceId r);
  void join_group(ResourceId r, Slot f);
  void join_solo_to_group(ResourceId r);
  void dissolve_group(ResourceId r);
  void settle_group(ResourceId r);
  void schedule_group(ResourceId r);
  bool groupable(const Flight& f) const {
    return f.resource_count == 1 && (f.plain || std::isinf(graph_.rate_cap_per_s(f.task)));
  }
  // The two steps every task takes on its way in, inlined into their callers: a call each costs
  // more than what they do.
  [[gnu::always_inline]] void add_to_resource(Slot f, std::uint32_t use, ResourceId r);
  void mark_dirty(ResourceId r);
  void resolve_dirty();
  void collect_component(ResourceId seed);
  void solve_component();
  [[gnu::always_inline]] void set_rate(Slot f, double rate);
  /// Puts slot f's finish event where its remaining work at its rate ends.
  [[gnu::always_inline]] void schedule_finish(Slot f);
  double weight(const Flight& f) const { return f.plain ? 1.0 : graph_.weight(f.task); }
  /// The i-th resource of a flight and its position in that resource's active list. The first is
  /// kept in the flight, so a single-resource task never reads the graph's list of uses.
  ResourceId resource_in(const Flight& f, std::uint32_t i) const {
    return i == 0 ? f.first_resource : all_uses_[f.resource_begin + i];
  }
  std::uint32_t& slot_in(Flight& f, std::uint32_t i) { return i == 0 ? f.first_slot : slot_[f.resource_begin + i]; }
  /// The id of slot f's event in events_; ids below resource_count_ are sharing groups.
  std::uint32_t event_id(Slot f) const { return resource_count_ + f; }
  std::span<const ResourceId> resources_of(const Flight& f) const {
    return {all_uses_ + f.resource_begin, f.resource_count};
  }
  [[noreturn]] void report_unfinished() const;

  // Invariants the event loop relies on, checked by assert() where NDEBUG is not defined (Debug
  // builds, the sanitizer build among them); Release compiles them out.
  /// A task whose own finish event fires has done its work, within rounding: its event was put
  /// at remaining / rate after last_update, rounded up to a nanosecond.
  bool own_work_done(Slot f) const {
    const Flight& s = flights_[f];
    const double done = s.rate * now_.seconds_since(s.last_update);
    return s.remaining - done <= 1e-9 * std::max(s.remaining, done) + 1e-300;
  }
  /// Whether flight m lists resource r with its entry at position `pos` of active_[r].
  bool listed_at(const Flight& m, ResourceId r, std::uint32_t pos) const {
    for (std::uint32_t j = 0; j < m.resource_count; ++j)
      if (resource_in(m, j) == r && (j == 0 ? m.first_slot : slot_[m.resource_begin + j]) == pos) return true;
    return false;
  }

  const std::vector<Resource>& resources_;
  const TaskGraph& graph_;
  const std::uint32_t resource_count_;
  Timeline timeline_;
  // Every task's times, and its counters until it has them: the timeline's records.
  std::vector<TaskTimes>& states_ = timeline_.tasks;
  const ResourceId* all_uses_ = nullptr;
  Time now_ = Time::zero();
  // Every pending event, one per id: resource r's sharing group reaching its earliest finish (id
  // r), or a task in flight finishing (event_id of its slot).
  IndexedHeap<Time> events_;
  // The ends of latencies, by slot. They come soon after they are set, so in the heap of finishes
  // they climbed to its top and were popped from there, a walk over its whole depth both ways;
  // in a heap of their own, mostly a handful, they touch a level or two.
  IndexedHeap<Time> latency_ends_;

  std::vector<Flight> flights_;     // by slot
  std::vector<Slot> free_slots_;
  // Both arrays below are left uninitialised: every entry is written before it is read, and the
  // pages of slot_ that no task with several resources reaches are never touched. For 10 million
  // single-resource tasks that saves zeroing 120 MB and mapping 40 MB (about half a millisecond a
  // MB here).
  std::unique_ptr<TaskId[]> successors_;
  std::vector<TaskId> released_;  // successors whose last predecessor finished in this event
  std::vector<TaskSlot> finishing_;  // tasks finishing at the current event
  std::vector<TaskSlot> elapsed_;    // tasks whose latency ends at the current event
  std::unique_ptr<std::uint32_t[]> slot_;  // by resource use after a task's first: its position in active_[resource]

  std::vector<std::vector<Slot>> active_;  // by resource: tasks on it now, either mode
  std::vector<SharingGroup> groups_;       // by resource
  std::vector<char> individual_;           // by resource: its tasks are solved individually
  std::vector<char> dirty_;
  std::vector<ResourceId> dirty_list_;
  std::vector<Time> busy_since_;
  std::vector<std::uint32_t> resource_stamp_;
  std::vector<std::uint32_t> local_index_;  // resource -> link index in the solver

  std::uint32_t stamp_ = 0;
  std::vector<ResourceId> component_resources_;
  std::vector<TaskSlot> component_tasks_;
  std::vector<std::uint32_t> local_links_;
  MaxMinSolver solver_;

  std::size_t finished_count_ = 0;
};

}  // namespace

}  // namespace clustersim::sim
