#include "models/step/periodic_step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "models/step/pipeline_schedule.hpp"
#include "models/step/step_builder.hpp"
#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"
#include "sim/engine.hpp"

namespace clustersim::models {

namespace {

using sim::TaskId;

constexpr TaskId no_task = ~TaskId{0};

/// A short step's graph and its run.
struct ShortRun {
  StepGraph step;
  sim::Timeline timeline;
  std::int64_t micro_batches = 0;

  std::int64_t start(TaskId t) const { return timeline.tasks[t].start.ns(); }
  std::int64_t finish(TaskId t) const { return timeline.tasks[t].finish.ns(); }
  std::size_t passes() const { return step.passes_per_stage(); }
  /// Where pass i of stage s begins (i = passes(): where the stage's once-a-step tail begins).
  TaskId pass_begin(std::size_t s, std::size_t i) const { return step.pass_begin[s * (passes() + 1) + i]; }
};

ShortRun run_short(const StepPlan& plan, std::int64_t micro_batches) {
  StepPlan shorter = plan;
  shorter.micro_batches = micro_batches;
  ShortRun run{.step = build_step_graph(shorter, {}, {}, TraceRecords::skip), .timeline = {},
               .micro_batches = micro_batches};
  run.timeline = sim::Engine(run.step.resources).run(run.step.graph);
  return run;
}

/// Whether every task is what the proof covers: one resource at most, no rate cap, no weight, no
/// latency (the analytic fidelity's tasks).
bool covered(const sim::TaskGraph& graph) {
  for (TaskId t = 0; t < graph.size(); ++t)
    if (graph.resources(t).size() > 1 || graph.weight(t) != 1.0 || std::isfinite(graph.rate_cap_per_s(t)) ||
        graph.latency(t) != sim::Time::zero())
      return false;
  return true;
}

/// The first pass of each stage that a step of more micro-batches lowers differently: the first of
/// the drain, or a backward of the last micro-batch (its gradient buckets).
std::vector<std::size_t> first_differing_pass(const StepPlan& plan, const ShortRun& run) {
  const std::size_t stages = plan.stages.size();
  const auto vp = static_cast<std::int64_t>(plan.stages.front().chunks.size());
  const std::int64_t units = run.micro_batches * vp;
  std::vector<std::size_t> out(stages);
  for (std::size_t s = 0; s < stages; ++s) {
    const std::int64_t warmup =
        warmup_units(plan.schedule, static_cast<std::int64_t>(stages), vp, run.micro_batches, static_cast<std::int64_t>(s),
                     plan.microbatch_group);
    std::size_t i = 0;
    for (; i < static_cast<std::size_t>(2 * units - warmup); ++i) {
      const sim::TaskLabel& label = run.step.graph.label(run.pass_begin(s, i));
      if (label.phase == static_cast<std::uint8_t>(TaskPhase::backward) && label.micro_batch == run.micro_batches - 1)
        break;
    }
    out[s] = i;
  }
  return out;
}

/// The earliest instant at which a task of the last pass each stage shares with longer steps
/// (the one before `differing`, first_differing_pass's) became ready; -1 if a stage shares none.
std::int64_t last_shared_pass_ready(const ShortRun& run, const std::vector<std::size_t>& differing) {
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t s = 0; s < differing.size(); ++s) {
    if (differing[s] == 0) return -1;
    for (TaskId t = run.pass_begin(s, differing[s] - 1); t < run.pass_begin(s, differing[s]); ++t)
      earliest = std::min(earliest, run.start(t));
  }
  return earliest;
}

/// ι: each task of the shorter step's graph to the same task of the longer one's, `shift` passes
/// later on its stage (once-a-step tasks to themselves); no_task where the longer graph has no such
/// pass or it holds a different number of tasks.
std::vector<TaskId> images(const ShortRun& a, const ShortRun& b, std::size_t shift) {
  std::vector<TaskId> image(a.step.graph.size(), no_task);
  const std::size_t stages = a.step.stage_begin.size() - 1;
  const auto map_range = [&](TaskId a_begin, TaskId a_end, TaskId b_begin, TaskId b_end) {
    if (a_end - a_begin != b_end - b_begin) return;
    for (TaskId t = a_begin; t < a_end; ++t) image[t] = b_begin + (t - a_begin);
  };
  for (std::size_t s = 0; s < stages; ++s) {
    map_range(a.step.stage_begin[s], a.pass_begin(s, 0), b.step.stage_begin[s], b.pass_begin(s, 0));
    for (std::size_t i = 0; i < a.passes() && i + shift < b.passes(); ++i)
      map_range(a.pass_begin(s, i), a.pass_begin(s, i + 1), b.pass_begin(s, i + shift), b.pass_begin(s, i + shift + 1));
    map_range(a.pass_begin(s, a.passes()), a.step.stage_begin[s + 1], b.pass_begin(s, b.passes()),
              b.step.stage_begin[s + 1]);
  }
  return image;
}

/// Whether task v of the longer graph is task t of the shorter one, `q` micro-batches later.
bool same_task(const sim::TaskGraph& a, TaskId t, const sim::TaskGraph& b, TaskId v, std::int64_t q) {
  const sim::TaskLabel& x = a.label(t);
  const sim::TaskLabel& y = b.label(v);
  const bool batch_ok = x.micro_batch < 0 ? y.micro_batch == x.micro_batch : y.micro_batch == x.micro_batch + q;
  return batch_ok && x.stage == y.stage && x.layer == y.layer && x.phase == y.phase && x.kind == y.kind &&
         x.rank == y.rank && a.work(t) == b.work(v) && a.resources(t).size() == b.resources(v).size() &&
         a.first_resource(t) == b.first_resource(v);
}

/// The tasks of a resource's busy period at `at`: those on it that started by then since it was
/// last idle; none if it is idle at `at`. `on_resource`: the resource's tasks with work (a task
/// without work never joins its resource), in order of start.
std::vector<TaskId> busy_period(const ShortRun& run, const std::vector<TaskId>& on_resource, std::int64_t at) {
  std::size_t first = 0;
  std::int64_t busy_until = std::numeric_limits<std::int64_t>::min();
  std::size_t i = 0;
  for (; i < on_resource.size() && run.start(on_resource[i]) <= at; ++i) {
    const TaskId t = on_resource[i];
    // A task that starts as the last one ends finds the resource idle: the engine takes finished
    // tasks off their resources before it starts the ones they release.
    if (run.start(t) >= busy_until) first = i;
    busy_until = std::max(busy_until, run.finish(t));
  }
  if (busy_until <= at) return {};
  return {on_resource.begin() + static_cast<std::ptrdiff_t>(first), on_resource.begin() + static_cast<std::ptrdiff_t>(i)};
}

/// Each resource's tasks with work, in order of start (then id).
std::vector<std::vector<TaskId>> tasks_by_resource(const ShortRun& run) {
  const sim::TaskGraph& g = run.step.graph;
  std::vector<std::vector<TaskId>> out(run.step.resources.size());
  for (TaskId t = 0; t < g.size(); ++t)
    if (g.work(t) > 0.0 && !g.resources(t).empty()) out[g.first_resource(t)].push_back(t);
  for (auto& list : out)
    std::sort(list.begin(), list.end(), [&](TaskId x, TaskId y) {
      return run.start(x) != run.start(y) ? run.start(x) < run.start(y) : x < y;
    });
  return out;
}

std::int64_t checked_product(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return sim::Time::max().ns();  // the sum below then throws
  return product;
}

/// The proof (periodic_step.hpp) on the steps of m1 and m1 + q micro-batches, and the figures of
/// the whole step where it holds.
std::optional<StepTimes> prove(const StepPlan& plan, std::int64_t q, std::int64_t m1) {
  const ShortRun a = run_short(plan, m1);
  const ShortRun b = run_short(plan, m1 + q);
  const sim::TaskGraph& ga = a.step.graph;
  const sim::TaskGraph& gb = b.step.graph;
  if (!covered(ga) || !covered(gb)) return std::nullopt;

  // The instant T: before the last shared pass of any stage became ready in the shorter run.
  const std::vector<std::size_t> differing_a = first_differing_pass(plan, a);
  const std::int64_t ready_a = last_shared_pass_ready(a, differing_a);
  if (ready_a <= 0) return std::nullopt;
  const std::int64_t cut = ready_a - 1;
  const auto vp = static_cast<std::int64_t>(plan.stages.front().chunks.size());
  const std::vector<TaskId> image = images(a, b, static_cast<std::size_t>(2 * q * vp));
  // Δ, by the first task of stage 0's last shared pass, which has not started by T.
  const TaskId reference = a.pass_begin(0, differing_a[0] - 1);
  if (image[reference] == no_task) return std::nullopt;
  const std::int64_t delta = b.start(image[reference]) - a.start(reference);
  if (delta <= 0 || cut + delta >= last_shared_pass_ready(b, first_differing_pass(plan, b))) return std::nullopt;
  const std::int64_t cut_b = cut + delta;

  // Unfinished tasks: images of each other, started Δ apart or not yet, in the same order.
  std::size_t unfinished = 0;
  TaskId last_image = 0;
  for (TaskId t = 0; t < ga.size(); ++t) {
    if (a.finish(t) <= cut) continue;
    const TaskId v = image[t];
    if (v == no_task || (unfinished > 0 && v <= last_image) || !same_task(ga, t, gb, v, q) || b.finish(v) <= cut_b)
      return std::nullopt;
    if (a.start(t) <= cut ? b.start(v) != a.start(t) + delta : b.start(v) <= cut_b) return std::nullopt;
    ++unfinished;
    last_image = v;
  }
  std::size_t unfinished_b = 0;
  for (TaskId v = 0; v < gb.size(); ++v) unfinished_b += b.finish(v) > cut_b ? 1 : 0;
  if (unfinished_b != unfinished) return std::nullopt;

  // Among them, the same dependencies.
  std::vector<std::pair<TaskId, TaskId>> deps_a, deps_b;
  for (const auto& [before, after] : ga.dependencies())
    if (a.finish(before) > cut) deps_a.emplace_back(image[before], image[after]);
  for (const auto& [before, after] : gb.dependencies())
    if (b.finish(before) > cut_b) deps_b.emplace_back(before, after);
  std::sort(deps_a.begin(), deps_a.end());
  std::sort(deps_b.begin(), deps_b.end());
  if (deps_a != deps_b) return std::nullopt;

  // Every busy resource in the same state: its busy period so far, Δ later.
  const auto on_a = tasks_by_resource(a);
  const auto on_b = tasks_by_resource(b);
  for (std::size_t r = 0; r < on_a.size(); ++r) {
    const std::vector<TaskId> period_a = busy_period(a, on_a[r], cut);
    const std::vector<TaskId> period_b = busy_period(b, on_b[r], cut_b);
    if (period_a.size() != period_b.size()) return std::nullopt;
    for (std::size_t i = 0; i < period_a.size(); ++i) {
      const TaskId t = period_a[i];
      const TaskId v = image[t];
      if (v == no_task || !same_task(ga, t, gb, v, q) || b.start(v) != a.start(t) + delta ||
          (a.finish(t) <= cut && b.finish(v) != a.finish(t) + delta))
        return std::nullopt;
    }
    if (!period_a.empty() && b.start(period_b.front()) != a.start(period_a.front()) + delta) return std::nullopt;
  }

  // The whole step: the longer run up to T + Δ, k - 1 more copies of what it finished after T,
  // then the rest of it, (k - 1) Δ later.
  const std::int64_t copies = (plan.micro_batches - m1) / q - 1;
  std::vector<TaskId> period;
  for (TaskId v = 0; v < gb.size(); ++v)
    if (b.finish(v) > cut && b.finish(v) <= cut_b) period.push_back(v);
  const std::int64_t last_shift = checked_product(copies, delta);
  const sim::Time makespan = b.timeline.makespan + sim::Time::from_ns(last_shift);  // throws past 2^63 ns
  // Room for the short run's pieces: the copies mostly extend its intervals rather than add new
  // ones, and a step of millions of micro-batches must not reserve for each.
  StepMeter meter(plan.stages.size(), gb.size());
  const auto add = [&meter](const sim::TaskLabel& label, TaskKind kind, sim::ResourceId, std::int64_t begin,
                            std::int64_t end) { meter.add(label.stage, kind, begin, end); };
  for (TaskId v = 0; v < gb.size(); ++v)
    if (b.finish(v) <= cut_b) visit_pieces(b.step, v, b.start(v), b.finish(v), add);
  for (std::int64_t j = 1; j <= copies; ++j)
    for (TaskId v : period) visit_pieces(b.step, v, b.start(v) + j * delta, b.finish(v) + j * delta, add);
  for (TaskId v = 0; v < gb.size(); ++v)
    if (b.finish(v) > cut_b) visit_pieces(b.step, v, b.start(v) + last_shift, b.finish(v) + last_shift, add);
  return meter.finish(makespan);
}

}  // namespace

std::optional<StepTimes> periodic_step_times(const StepPlan& plan) {
  // Several pipeline runs a step: the steady state ends at each run's drain, so the step is
  // simulated whole; so is a step with deferred output-layer weight gradients, whose drain grows
  // with the step's micro-batches, which the short runs do not repeat.
  if (plan.schedule == Schedule::gpipe || plan.pipeline_runs > 1 || plan.deferred_wgrad_micro_batches > 0 ||
      plan.stages.empty() || plan.stages.front().chunks.empty())
    return std::nullopt;
  const auto pp = static_cast<std::int64_t>(plan.stages.size());
  const auto vp = static_cast<std::int64_t>(plan.stages.front().chunks.size());
  const std::int64_t m = plan.micro_batches;
  // The schedule repeats every micro-batch, or every micro-batch group under interleaving. A
  // shorter last group reorders the passes before the drain, which the proof does not cover.
  const std::int64_t q = vp > 1 ? (plan.microbatch_group > 0 ? plan.microbatch_group : pp) : 1;
  if (m % q != 0) return std::nullopt;
  // Micro-batches stage 0 starts before its first backward.
  const std::int64_t fill = (warmup_units(plan.schedule, pp, vp, m, 0, plan.microbatch_group) + vp - 1) / vp;
  // One period past the warm-up proves most steps; three more settle most of the rest.
  for (const std::int64_t periods : {1, 3}) {
    std::int64_t m1 = fill + periods * q;
    m1 += ((m - m1) % q + q) % q;  // k whole periods short of m
    if (2 * m1 + q >= m) break;    // no cheaper than the whole step
    if (std::optional<StepTimes> times = prove(plan, q, m1)) return times;
  }
  return std::nullopt;
}

}  // namespace clustersim::models
