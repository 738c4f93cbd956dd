#include "models/step/step_builder.hpp"

#include <algorithm>
#include <cassert>
#include <string>

#include "models/step/pipeline_schedule.hpp"
#include "models/step/step_comm.hpp"
#include "models/step/step_labels.hpp"

namespace clustersim::models {

namespace {

using sim::ResourceId;
using sim::TaskGraph;
using sim::TaskId;

constexpr TaskId none = ~TaskId{0};

/// Where one pass's tasks ended up, for the edges that cross stages.
struct PassTasks {
  TaskId first = none;  // the compute task: what incoming dependencies point at
  TaskId overlap_first = none;  // the communication beside the compute: its first and last task
  TaskId overlap = none;
  TaskId tp_hidden = none;  // TP overlap: the collectives under the GEMMs, which wait for the inputs too
  TaskId beside = none;     // ZeRO-3's traffic and the MoE dispatch beside the compute: they follow
  TaskId expert = none;     // its progress (hooks as it runs, its tokens), so wait for the inputs too
  TaskId end = none;    // the last task on the compute stream (compute, TP or blocking DP traffic)
  TaskId send = none;   // the transfer to the neighbouring stage, if any
};

/// What the next task on a stage's stream waits for: the last pass's end and its overlapped
/// traffic (the CP ring, ZeRO-3's traffic beside the compute), `none` where absent (fields, not a
/// vector: this changes once per pass).
struct StreamTail {
  TaskId end = none;
  TaskId overlap = none;
  TaskId beside = none;
  TaskId expert = none;  // MoE all-to-alls beside the compute (ep_comm_overlap)
};

class Builder {
 public:
  Builder(const StepPlan& plan, const CommLowering& lower_comm, TraceRecords trace)
      : plan_(plan),
        lower_comm_(lower_comm),
        keep_trace_(trace == TraceRecords::keep),
        pp_(static_cast<std::int64_t>(plan.stages.size())),
        vp_(static_cast<std::int64_t>(plan.stages.front().chunks.size())),
        m_(plan.micro_batches) {}

  StepGraph build(std::vector<sim::Resource> links);

 private:
  PassTasks& pass(bool forward, std::int64_t stage, std::int64_t chunk, std::int64_t micro_batch) {
    const std::int64_t index = ((stage * 2 + (forward ? 0 : 1)) * vp_ + chunk) * m_ + micro_batch;
    return passes_[static_cast<std::size_t>(index)];
  }
  TaskId add(double work, ResourceId resource, const sim::TaskLabel& label, TaskKind kind) {
    sim::TaskSpec spec{.work = work, .label = label};
    spec.label.kind = static_cast<std::uint8_t>(kind);
    return out_.graph.add_task(spec, std::span<const ResourceId>(&resource, 1));
  }
  void after(TaskId before, TaskId task) {
    if (before != none && task != none) out_.graph.add_dependency(before, task);
  }
  void after(const StreamTail& tail, TaskId task) {
    after(tail.end, task);
    after(tail.overlap, task);
    after(tail.beside, task);
    after(tail.expert, task);
  }
  /// A communication task: one task of its seconds on the stage's resource (analytic), or the
  /// flows of the collectives `parts()` names (flow fidelity; made only then).
  /// Either way the task is recorded for the trace as `role` (bucket i of n for a gradient bucket).
  template <class Parts>
  FlowSpan comm(double seconds, ResourceId resource, sim::TaskLabel label, TaskKind kind, CommRole role,
                Parts&& parts, std::int32_t bucket = 0, std::int32_t buckets = 0) {
    if (!lower_comm_) {
      const TaskId t = add(seconds, resource, label, kind);
      return record({t, t}, role, bucket, buckets);
    }
    label.kind = static_cast<std::uint8_t>(kind);
    const CommParts made = parts();
    return record(lower_comm_(out_.graph, made.span(), label), role, bucket, buckets);
  }
  FlowSpan record(FlowSpan span, CommRole role, std::int32_t bucket = 0, std::int32_t buckets = 0) {
    if (keep_trace_ && span.first != none)
      out_.trace.comm_spans.push_back({.first = span.first, .last = span.last, .role = role, .bucket = bucket,
                                       .buckets = buckets});
    return span;
  }
  /// The seconds of a stage's once-a-step collective over all its chunks: the plan's cached
  /// seconds of each chunk's (`field`), added in chunk order.
  static double stage_seconds(const StagePlan& stage, double ChunkCosts::*field) {
    double seconds = 0.0;
    for (const ChunkCosts& c : stage.chunks) seconds += c.*field;
    return seconds;
  }
  /// That collective as one data-parallel communication task (`of` names one chunk's parts).
  template <class Of>
  FlowSpan stage_comm(double seconds, ResourceId resource, sim::TaskLabel label, CommRole role, const StagePlan& stage,
                      Of&& of) {
    if (!lower_comm_) {
      const TaskId t = add(seconds, resource, label, TaskKind::dp_comm);
      return record({t, t}, role);
    }
    label.kind = static_cast<std::uint8_t>(TaskKind::dp_comm);
    stage_parts_.clear();
    for (const ChunkCosts& c : stage.chunks) {
      const CommParts parts = of(c);
      stage_parts_.insert(stage_parts_.end(), parts.span().begin(), parts.span().end());
    }
    return record(lower_comm_(out_.graph, stage_parts_, label), role);
  }
  /// The stage's gradient reduction and parameter gather done a stage at a time (ZeRO 0-1's once a
  /// step, FSDP2's once a step or a pipeline run): one communication task each, or no span where
  /// the stage has nothing to move.
  FlowSpan stage_grad_reduce(const StagePlan& stage, ResourceId network, sim::TaskLabel label) {
    const double seconds = stage_seconds(stage, &ChunkCosts::grad_reduce_s);
    if (!(seconds > 0.0)) return {none, none};
    return stage_comm(seconds, network, label, CommRole::grad_reduce, stage,
                      [this](const ChunkCosts& c) { return grad_reduce_comm(plan_, c); });
  }
  FlowSpan stage_param_gather(const StagePlan& stage, ResourceId network, sim::TaskLabel label) {
    const double seconds = stage_seconds(stage, &ChunkCosts::param_gather_s);
    if (!(seconds > 0.0)) return {none, none};
    return stage_comm(seconds, network, label, CommRole::param_gather, stage,
                      [this](const ChunkCosts& c) { return param_gather_comm(plan_, c); });
  }
  /// The trace's model layers of each chunk, and what the gradient reduction is.
  void record_layers() {
    StepTraceRecord& trace = out_.trace;
    trace.chunk_first_layer.assign(static_cast<std::size_t>(pp_ * vp_), 0);
    trace.chunk_layers.assign(static_cast<std::size_t>(pp_ * vp_), 0);
    std::int64_t first = 0;
    for (std::int64_t block = 0; block < pp_ * vp_; ++block) {  // model order: block c x pp + s
      const std::int64_t s = block % pp_, c = block / pp_;
      const auto at = static_cast<std::size_t>(s * vp_ + c);
      trace.chunk_first_layer[at] = first;
      trace.chunk_layers[at] = plan_.stages[static_cast<std::size_t>(s)].chunks[static_cast<std::size_t>(c)].layers;
      first += trace.chunk_layers[at];
    }
    trace.grad_reduce_op = plan_.stages.front().chunks.front().grad_reduce.op;
  }
  void lower_stage(std::int64_t s);
  /// Between two pipeline runs of a stage gathered and reduced once a run (StepPlan::fsdp_syncs):
  /// the ending run's reduction, after `micro_batch`'s pass, and the next run's gather.
  void sync_between_runs(std::int64_t s, std::int32_t micro_batch, StreamTail& stream_tail,
                         std::vector<TaskId>& grad_reduces);
  // `stage_last`: the stage's last pass, after which no compute runs beside its reductions.
  void lower_pass(std::int64_t s, const PassRef& ref, bool stage_last, StreamTail& stream_tail,
                  std::vector<TaskId>& grad_reduces);
  void connect_stages();

  const StepPlan& plan_;
  const CommLowering& lower_comm_;
  const bool keep_trace_;
  const std::int64_t pp_, vp_, m_;
  std::vector<PassTasks> passes_;
  std::vector<CommPart> stage_parts_;  // the collectives of the stage task being lowered
  StepGraph out_;
};

StepGraph Builder::build(std::vector<sim::Resource> links) {
  passes_.assign(static_cast<std::size_t>(pp_ * 2 * vp_ * m_), PassTasks{});
  for (std::int64_t s = 0; s < pp_; ++s) {
    const std::string n = std::to_string(s);
    const auto base = static_cast<ResourceId>(out_.resources.size());
    out_.resources.push_back({"stage" + n + ".compute", 1.0});
    out_.resources.push_back({"stage" + n + ".nvlink", 1.0});
    out_.resources.push_back({"stage" + n + ".network", 1.0});
    out_.stages.push_back({.compute = base, .nvlink = base + 1, .network = base + 2});
  }
  out_.chunks_per_stage = vp_;
  out_.tp_tail_ns.assign(static_cast<std::size_t>(pp_ * vp_ * 2), 0);
  out_.tp_beside_ns.assign(out_.tp_tail_ns.size(), 0);
  for (std::int64_t s = 0; s < pp_; ++s)
    for (std::int64_t c = 0; c < vp_; ++c) {
      const ChunkCosts& chunk = plan_.stages[static_cast<std::size_t>(s)].chunks[static_cast<std::size_t>(c)];
      for (const bool forward : {true, false}) {
        const sim::TaskLabel label{.stage = static_cast<std::int32_t>(s), .layer = static_cast<std::int32_t>(c),
                                   .phase = static_cast<std::uint8_t>(forward ? TaskPhase::forward : TaskPhase::backward)};
        out_.tp_tail_ns[out_.tp_tail_index(label)] =
            sim::Time::from_seconds(forward ? chunk.tp_forward_s : chunk.tp_backward_s).ns();
        out_.tp_beside_ns[out_.tp_tail_index(label)] =
            sim::Time::from_seconds(forward ? chunk.tp_hidden_forward_s : chunk.tp_hidden_backward_s).ns();
      }
    }
  record_layers();
  out_.first_link = static_cast<ResourceId>(out_.resources.size());
  out_.link_count = links.size();
  out_.resources.insert(out_.resources.end(), std::make_move_iterator(links.begin()),
                        std::make_move_iterator(links.end()));
  out_.graph.reserve(static_cast<std::size_t>(pp_ * vp_ * m_ * 8), static_cast<std::size_t>(pp_ * vp_ * m_ * 8),
                     static_cast<std::size_t>(pp_ * vp_ * m_ * 16));
  const auto passes = static_cast<std::size_t>(pp_ * vp_ * m_ * 2);
  if (keep_trace_) {
    out_.trace.comm_spans.reserve(passes * 2);  // a send and a collective a pass, about
    out_.trace.hops.reserve(passes);
  }
  out_.pass_begin.reserve(static_cast<std::size_t>(pp_) * (passes / static_cast<std::size_t>(pp_) + 1));
  for (std::int64_t s = 0; s < pp_; ++s) {
    out_.stage_begin.push_back(static_cast<TaskId>(out_.graph.size()));
    lower_stage(s);
  }
  out_.stage_begin.push_back(static_cast<TaskId>(out_.graph.size()));
  connect_stages();
  return std::move(out_);
}

void Builder::lower_stage(std::int64_t s) {
  const StagePlan& stage = plan_.stages[static_cast<std::size_t>(s)];
  const StageResources& res = out_.stages[static_cast<std::size_t>(s)];
  const sim::TaskLabel stage_label{.stage = static_cast<std::int32_t>(s)};

  // The next step's parameters, gathered while this step runs.
  if (plan_.overlap_param_gather) {
    sim::TaskLabel label = stage_label;
    label.phase = static_cast<std::uint8_t>(TaskPhase::forward);
    stage_param_gather(stage, res.network, label);
  }

  StreamTail stream_tail;
  std::vector<TaskId> grad_reduces;
  const std::vector<PassRef> order =
      stage_pass_order(plan_.schedule, pp_, vp_, m_, s, plan_.pipeline_runs, plan_.microbatch_group);
  // Gathered and reduced once a pipeline run (StepPlan::fsdp_syncs): the passes of each run but
  // the last end in the run's reduction and the next run's gather.
  const std::size_t passes_per_sync = order.size() / static_cast<std::size_t>(plan_.fsdp_syncs);
  for (std::size_t i = 0; i < order.size(); ++i) {
    out_.pass_begin.push_back(static_cast<TaskId>(out_.graph.size()));
    lower_pass(s, order[i], i + 1 == order.size(), stream_tail, grad_reduces);
    if (plan_.fsdp_syncs > 1 && (i + 1) % passes_per_sync == 0 && i + 1 < order.size())
      sync_between_runs(s, order[i].micro_batch, stream_tail, grad_reduces);
  }
  out_.pass_begin.push_back(static_cast<TaskId>(out_.graph.size()));

  // The deferred output-layer weight gradients, on the compute stream once the stage's passes are
  // done (Megatron-Core's finish_embedding_wgrad_compute, before finalize_model_grads).
  if (stage.deferred_wgrad_s > 0.0) {
    sim::TaskLabel drain = stage_label;
    drain.layer = static_cast<std::int32_t>(vp_ - 1);
    drain.phase = static_cast<std::uint8_t>(TaskPhase::backward);
    const TaskId wgrad = add(stage.deferred_wgrad_s, res.compute, drain, TaskKind::compute);
    after(stream_tail, wgrad);
    stream_tail = {.end = wgrad};
  }

  sim::TaskLabel label = stage_label;
  label.phase = static_cast<std::uint8_t>(TaskPhase::optimizer);
  if (!plan_.overlap_grad_reduce) {  // one reduction of everything after the last backward
    const FlowSpan reduce = stage_grad_reduce(stage, res.network, label);
    if (reduce.first != none) {
      after(stream_tail, reduce.first);
      grad_reduces.push_back(reduce.last);
    }
  }
  // A tied embedding's gradient: summed with the other end of the pipeline once this stage's own
  // reductions are done (Megatron's finalize_model_grads), before the optimizer reads it. Each end
  // waits for its own stage only: the first stage ends the backward last under 1F1B and
  // interleaving, so the step's end is right, and the last stage's optimizer may start early.
  if (stage.tied_grad_reduce.seconds > 0.0) {
    const FlowSpan tied = comm(stage.tied_grad_reduce.seconds, res.network, label, TaskKind::dp_comm,
                               CommRole::tied_grad_reduce, [&] {
                                 CommParts parts;
                                 parts.add({.first = &stage.tied_grad_reduce});
                                 return parts;
                               });
    after(stream_tail, tied.first);
    for (TaskId t : grad_reduces) after(t, tied.first);
    grad_reduces.push_back(tied.last);
  }
  const TaskId optimizer = add(stage.optimizer_s, res.compute, label, TaskKind::compute);
  after(stream_tail, optimizer);
  for (TaskId t : grad_reduces) after(t, optimizer);
  if (!plan_.overlap_param_gather) {
    label.phase = static_cast<std::uint8_t>(TaskPhase::step_end);
    after(optimizer, stage_param_gather(stage, res.network, label).first);
  }
}

void Builder::sync_between_runs(std::int64_t s, std::int32_t micro_batch, StreamTail& stream_tail,
                                std::vector<TaskId>& grad_reduces) {
  const StagePlan& stage = plan_.stages[static_cast<std::size_t>(s)];
  const StageResources& res = out_.stages[static_cast<std::size_t>(s)];
  sim::TaskLabel label{.stage = static_cast<std::int32_t>(s),
                       .micro_batch = micro_batch,
                       .phase = static_cast<std::uint8_t>(TaskPhase::backward)};
  // The run's reduce-scatters, issued after its last backward; the stream waits for them
  // (_root_post_backward_final_callback) before the next run starts.
  const FlowSpan reduce = stage_grad_reduce(stage, res.network, label);
  if (reduce.first != none) {
    after(stream_tail, reduce.first);
    grad_reduces.push_back(reduce.last);
    stream_tail = {.end = reduce.last};
  }
  // The next run's gather: beside its first passes where the units prefetch, as the step's first
  // gather runs beside the step; before them otherwise.
  label.phase = static_cast<std::uint8_t>(TaskPhase::forward);
  const FlowSpan gather = stage_param_gather(stage, res.network, label);
  if (gather.first != none) {
    after(stream_tail, gather.first);
    if (!plan_.overlap_param_gather) stream_tail = {.end = gather.last};
  }
}

void Builder::lower_pass(std::int64_t s, const PassRef& ref, bool stage_last, StreamTail& stream_tail,
                         std::vector<TaskId>& grad_reduces) {
  const StagePlan& stage = plan_.stages[static_cast<std::size_t>(s)];
  const ChunkCosts& chunk = stage.chunks[static_cast<std::size_t>(ref.chunk)];
  const StageResources& res = out_.stages[static_cast<std::size_t>(s)];
  const sim::TaskLabel label{.stage = static_cast<std::int32_t>(s),
                             .micro_batch = ref.micro_batch,
                             .layer = ref.chunk,
                             .phase = static_cast<std::uint8_t>(ref.forward ? TaskPhase::forward : TaskPhase::backward)};
  PassTasks& tasks = pass(ref.forward, s, ref.chunk, ref.micro_batch);

  double compute_s = ref.forward ? chunk.forward_s : chunk.backward_s;
  // A deferred micro-batch leaves the output layer's weight gradient to the stage's drain.
  if (!ref.forward && ref.micro_batch < plan_.deferred_wgrad_micro_batches) compute_s -= chunk.backward_deferred_s;
  const double tp_s = ref.forward ? chunk.tp_forward_s : chunk.tp_backward_s;

  // The communication the compute waits for, on the stream before it: the first span opens the
  // pass after the stream's tail, each later one follows the last.
  TaskId head = none;
  const auto wait_for = [&](const FlowSpan& span) {
    if (span.first == none) return;
    if (head != none) {
      after(head, span.first);
    } else {
      after(stream_tail, span.first);
      tasks.first = span.first;
    }
    head = span.last;
  };
  // ZeRO-3: the gathers come first.
  const double before_s = ref.forward ? chunk.dp_before_forward_s : chunk.dp_before_backward_s;
  if (before_s > 0.0)
    wait_for(comm(before_s, res.network, label, TaskKind::dp_comm, CommRole::zero3_before,
                  [&] { return dp_before_comm(plan_, chunk, ref.forward); }));
  // Context parallel: the exchange the attention waits for (all_gather's gather, a2a's all-to-all
  // in). It needs the pass's input, so it follows the ZeRO-3 gathers.
  const double cp_before_s = ref.forward ? chunk.cp_before_forward_s : chunk.cp_before_backward_s;
  if (cp_before_s > 0.0)
    wait_for(comm(cp_before_s, res.network, label, TaskKind::cp_comm, CommRole::cp,
                  [&] { return cp_before_comm(plan_, chunk, ref.forward); }));
  const auto after_start = [&](TaskId task) {  // a task that starts the pass, or follows its gathers
    if (head != none)
      after(head, task);
    else
      after(stream_tail, task);
  };
  const auto start = [&](TaskId task) {  // the first task of the pass's compute
    after_start(task);
    if (head == none) tasks.first = task;
  };

  // The chunk's last backward releases its gradients bucket by bucket (a layer's worth, or
  // training.grad_bucket_params), so that each bucket's reduction overlaps the backward of the
  // layers still to run (ZeRO-0 to 2).
  const bool last_backward = !ref.forward && ref.micro_batch == m_ - 1;
  const bool bucketed = last_backward && plan_.overlap_grad_reduce && chunk.grad_reduce_s > 0.0;
  // The gradient buckets slow the compute they run beside (ChunkCosts): under the stage's last pass
  // only those reduced before its layers end.
  if (bucketed) compute_s += stage_last ? chunk.grad_bucket_interference_last_s : chunk.grad_bucket_interference_s;
  // ZeRO-3's prefetched gathers and overlapped reductions run beside the compute; the next pass
  // waits for them. (The last unit's compute, which waits for the last gather, is not held
  // apart: a network-bound pass ends one unit's compute early.)
  // Traffic that starts with the pass and runs beside its compute: its span, or none.
  const auto beside_compute = [&](double seconds, ResourceId resource, TaskKind kind, CommRole role, auto&& parts) {
    if (!(seconds > 0.0)) return FlowSpan{none, none};
    const FlowSpan span = comm(seconds, resource, label, kind, role, parts);
    if (span.first == none) return FlowSpan{none, none};
    after_start(span.first);
    return span;
  };
  const FlowSpan beside_span =
      beside_compute(ref.forward ? chunk.dp_beside_forward_s : chunk.dp_beside_backward_s, res.network,
                     TaskKind::dp_comm, CommRole::zero3_beside,
                     [&] { return dp_beside_comm(plan_, chunk, ref.forward); });
  const TaskId beside = beside_span.last;
  tasks.beside = beside_span.first;
  const std::int64_t pieces = bucketed ? std::max<std::int64_t>(1, chunk.grad_buckets) : 1;
  // Under the analytic fidelity a pass of one piece is one task with its tensor-parallel time,
  // the share beside its compute included where it ends within the compute.
  const double hidden_s = ref.forward ? chunk.tp_hidden_forward_s : chunk.tp_hidden_backward_s;
  const bool fused = !lower_comm_ && !bucketed && (tp_s > 0.0 || hidden_s > 0.0) && hidden_s <= compute_s;
  // Otherwise the collectives' hidden share (TP overlap, or Megatron's asynchronous backward
  // collectives) is a task of its own on NVLink beside the compute.
  const FlowSpan hidden =
      fused ? FlowSpan{none, none}
            : beside_compute(hidden_s, res.nvlink, TaskKind::tp_comm, CommRole::tp_hidden,
                             [&] { return tp_hidden_comm(plan_, chunk, ref.forward); });
  const TaskId tp_hidden = hidden.last;
  if (hidden.first != none) tasks.tp_hidden = hidden.first;
  TaskId previous = none;
  for (std::int64_t i = 0; i < pieces; ++i) {
    const TaskId piece = fused ? add(compute_s + tp_s, res.compute, label, TaskKind::compute_then_tp)
                               : add(compute_s / static_cast<double>(pieces), res.compute, label, TaskKind::compute);
    if (previous == none)
      start(piece);
    else
      after(previous, piece);
    if (bucketed) {
      const double share = 1.0 / static_cast<double>(pieces);
      const FlowSpan reduce =
          comm(chunk.grad_reduce_s * share, res.network, label, TaskKind::dp_comm, CommRole::grad_bucket,
               [&] { return grad_reduce_comm(plan_, chunk, share); }, static_cast<std::int32_t>(i),
               static_cast<std::int32_t>(pieces));
      after(piece, reduce.first);
      grad_reduces.push_back(reduce.last);
    }
    previous = piece;
  }
  tasks.end = previous;

  if (tp_s > 0.0 && !fused) {
    const FlowSpan tp =
        comm(tp_s, res.nvlink, label, TaskKind::tp_comm, CommRole::tp, [&] { return tp_comm(plan_, chunk, ref.forward); });
    after(previous, tp.first);
    after(tp_hidden, tp.first);
    tasks.end = tp.last;
  }
  // Context parallel: the exchange after the attention, on the stream (the gradients' reduce-scatter
  // behind a gather, a2a's all-to-all out).
  const double cp_after_s = ref.forward ? chunk.cp_after_forward_s : chunk.cp_after_backward_s;
  if (cp_after_s > 0.0) {
    const FlowSpan out = comm(cp_after_s, res.network, label, TaskKind::cp_comm, CommRole::cp,
                              [&] { return cp_after_comm(plan_, chunk, ref.forward); });
    if (out.first != none) {
      after(tasks.end, out.first);
      tasks.end = out.last;
    }
  }
  // MoE token dispatch and combine: after the pass's compute on its stream, or beside it.
  const double ep_s = ref.forward ? chunk.ep_forward_s : chunk.ep_backward_s;
  const ResourceId ep_link =
      plan_.layer.ep_dispatch.group.ranks > plan_.layer.ep_dispatch.group.ranks_per_node ? res.network : res.nvlink;
  const auto expert_parts = [&] { return ep_comm(plan_, chunk, ref.forward); };
  TaskId expert_beside = none;
  if (ep_s > 0.0 && plan_.ep_overlap) {
    const FlowSpan expert = beside_compute(ep_s, ep_link, TaskKind::ep_comm, CommRole::ep, expert_parts);
    expert_beside = expert.last;
    tasks.expert = expert.first;
  } else if (ep_s > 0.0) {
    const FlowSpan ep = comm(ep_s, ep_link, label, TaskKind::ep_comm, CommRole::ep, expert_parts);
    after(tasks.end, ep.first);
    tasks.end = ep.last;
  }
  if (!ref.forward && chunk.dp_after_backward_s > 0.0) {  // ZeRO-3 reductions that do not overlap
    const FlowSpan dp = comm(chunk.dp_after_backward_s, res.network, label, TaskKind::dp_comm, CommRole::zero3_after,
                             [&] { return dp_after_comm(plan_, chunk); });
    after(tasks.end, dp.first);
    tasks.end = dp.last;
  }
  if (!ref.forward && chunk.dp_tail_backward_s > 0.0) {  // the last unit's reduction, beside what follows
    const FlowSpan tail = comm(chunk.dp_tail_backward_s, res.network, label, TaskKind::dp_comm, CommRole::zero3_tail,
                               [&] { return dp_tail_comm(plan_, chunk); });
    after(previous, tail.first);
    grad_reduces.push_back(tail.last);
  }
  // The context-parallel ring exchanges keys and values beside the pass's attention, so it starts
  // with the pass (after the stream's previous work, or the pass's ZeRO-3 gathers), not before it.
  const double cp_s = ref.forward ? chunk.cp_forward_s : chunk.cp_backward_s;
  if (cp_s > 0.0) {
    const FlowSpan ring =
        comm(cp_s, res.network, label, TaskKind::cp_comm, CommRole::cp, [&] { return cp_comm(plan_, chunk, ref.forward); });
    if (ring.first != none) {
      after_start(ring.first);
      tasks.overlap_first = ring.first;
      tasks.overlap = ring.last;
    }
  }
  stream_tail = {.end = tasks.end, .overlap = tasks.overlap, .beside = beside, .expert = expert_beside};


  // Forward activations go to the next stage (the last stage feeds the first stage's next chunk);
  // backward gradients go the other way.
  const bool has_next = ref.forward ? (s < pp_ - 1 || ref.chunk < vp_ - 1) : (s > 0 || ref.chunk > 0);
  const double send_s = ref.forward ? stage.send_forward_s : stage.send_backward_s;
  if (has_next && send_s > 0.0) {
    const FlowSpan send =
        comm(send_s, res.network, label, TaskKind::pp_comm, CommRole::pp_send, [&] { return send_comm(stage, ref.forward); });
    after(stream_tail, send.first);
    tasks.send = send.last;
    // A synchronous send holds the stage's stream until the transfer has gone.
    if (plan_.blocking_sends && send.last != none) stream_tail.end = send.last;
  }
}

void Builder::connect_stages() {
  // Incoming edges of a pass: from the neighbour's send, or (free links) from its stream tail.
  auto link = [&](const PassTasks& from, const PassTasks& to) {
    if (from.send != none) {
      if (keep_trace_) out_.trace.hops.push_back({.send = from.send, .receive = to.first});
      for (TaskId t : {to.first, to.overlap_first, to.tp_hidden, to.beside, to.expert}) after(from.send, t);
      return;
    }
    for (TaskId t : {from.end, from.overlap})
      for (TaskId u : {to.first, to.overlap_first, to.tp_hidden, to.beside, to.expert}) after(t, u);
  };
  for (std::int64_t c = 0; c < vp_; ++c)
    for (std::int64_t b = 0; b < m_; ++b)
      for (std::int64_t s = 0; s < pp_; ++s) {
        // Forward: from the previous stage of this chunk, or the last stage of the previous chunk.
        if (s > 0)
          link(pass(true, s - 1, c, b), pass(true, s, c, b));
        else if (c > 0)
          link(pass(true, pp_ - 1, c - 1, b), pass(true, s, c, b));
        // Backward: from the next stage of this chunk, or the first stage of the next chunk; the
        // very last stage's backward starts from its own forward.
        if (s < pp_ - 1)
          link(pass(false, s + 1, c, b), pass(false, s, c, b));
        else if (c < vp_ - 1)
          link(pass(false, 0, c + 1, b), pass(false, s, c, b));
        else
          link(pass(true, s, c, b), pass(false, s, c, b));
      }
}

}  // namespace

StepGraph build_step_graph(const StepPlan& plan, const CommLowering& lower_comm, std::vector<sim::Resource> links,
                           TraceRecords trace) {
  assert(!plan.stages.empty() && !plan.stages.front().chunks.empty() && plan.micro_batches >= 1);
  return Builder(plan, lower_comm, trace).build(std::move(links));
}

}  // namespace clustersim::models
