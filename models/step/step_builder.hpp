#pragma once
/// Lowers a costed StepPlan to the task graph of one training step.
/// Per stage three resources: its GPUs' compute engine, its NVLink (tensor-parallel collectives)
/// and its network port (pipeline sends, data-parallel and ZeRO-3 traffic). With the `analytic`
/// fidelity a communication task's work is its alpha-beta time in seconds on a resource of
/// capacity 1/s, so concurrent collectives on one port share it fairly instead of overlapping
/// for free.
/// Every pass becomes: ZeRO-3's gathers the compute waits for (the first unit's, or all without
/// prefetch); the compute; its exposed tensor-parallel collectives and any ZeRO-3 reductions that
/// do not overlap, on the same stream; beside the compute ZeRO-3's prefetched gathers and
/// overlapped reductions, the context-parallel ring and the hidden share of the TP collectives on
/// NVLink (TP overlap, or Megatron's asynchronous backward collectives); the last unit's overlapped reduction after it; then the send to the
/// neighbouring stage. Under the `analytic` fidelity nothing but
/// that stream uses a stage's compute engine and NVLink, and the stream runs one pass at a time, so
/// a pass's compute and collectives always take their own times back to back, and the hidden
/// share of its collectives, beside the compute on NVLink, ends within the compute: one task of
/// kind compute_then_tp stands for all three, up to two thirds fewer tasks to simulate
/// (step_pieces.hpp splits it again for reports). A chunk's last backward, whose gradient buckets follow its layers, keeps
/// them apart. Passes on a stage run in the schedule's order (pipeline_schedule.hpp). The gradient
/// reduction of a chunk is bucketed per layer over its last backward pass, as Megatron-LM's
/// --overlap-grad-reduce does; the optimizer follows all reductions; the parameter all-gather of
/// the distributed optimizer either overlaps the step (--overlap-param-gather) or follows the
/// optimizer.
/// With the `flow` fidelity a CommLowering replaces each communication task by the flows of its
/// collectives' traffic on the cluster network (flow_step.hpp); the network's link resources
/// follow the stages'. Either way a task's collectives are those step_comm.hpp names, and its
/// seconds the plan's cached analytic costs of the same records.
/// The compute's slow-down by what runs beside it is in the plan's compute seconds already
/// (overlap_cost.hpp).
/// Beside the graph the builder keeps, for the trace only, which tasks make each communication
/// task and which send each pass waits for (step_trace_record.hpp).
/// Limitations: tensor-parallel collectives and blocking ZeRO-3 traffic are lumped before or
/// after each pass's compute rather than between its layers (the same time on an uncontended
/// stream); ZeRO-3 traffic beside a pass is one task, its units' gathers at their summed time.

#include <functional>
#include <span>
#include <vector>

#include "models/comm/flow_collectives.hpp"
#include "models/step/step_labels.hpp"
#include "models/step/step_plan.hpp"
#include "models/step/step_trace_record.hpp"
#include "sim/task_graph.hpp"

namespace clustersim::models {

struct StageResources {
  sim::ResourceId compute = 0;
  sim::ResourceId nvlink = 0;
  sim::ResourceId network = 0;
};

struct StepGraph {
  std::vector<sim::Resource> resources;
  std::vector<StageResources> stages;
  sim::TaskGraph graph;
  sim::ResourceId first_link = 0;  // flow fidelity: network links are resources [first_link, end)
  std::size_t link_count = 0;
  /// The tensor-parallel time that ends each compute_then_tp task, by tp_tail_index().
  std::vector<std::int64_t> tp_tail_ns;
  /// The tensor-parallel time that runs beside each compute_then_tp task's compute from its start
  /// (the hidden share, never longer than the compute), by tp_tail_index().
  std::vector<std::int64_t> tp_beside_ns;
  std::int64_t chunks_per_stage = 1;
  std::size_t tp_tail_index(const sim::TaskLabel& label) const {
    const bool forward = label.phase == static_cast<std::uint8_t>(TaskPhase::forward);
    return static_cast<std::size_t>((label.stage * chunks_per_stage + label.layer) * 2 + (forward ? 0 : 1));
  }
  /// Where each stage's tasks lie: stage s's are [stage_begin[s], stage_begin[s + 1]), and its i-th
  /// pass in schedule order (pipeline_schedule.hpp) is [pass_begin[s x (n + 1) + i], the next
  /// entry) of its n = 2 x m x vp passes. Before the first pass come what the stage runs once
  /// before its passes, after the last entry what it runs once after them.
  std::vector<sim::TaskId> stage_begin;
  std::vector<sim::TaskId> pass_begin;
  std::size_t passes_per_stage() const { return pass_begin.size() / (stage_begin.size() - 1) - 1; }
  /// For the trace only (step_trace_record.hpp): nothing simulated reads it.
  StepTraceRecord trace;
};

/// Lowers one communication task, the plan's collectives `parts` (step_comm.hpp), into the graph
/// (flow fidelity): consecutive parts of one scope as one lowered traffic, the scopes one after
/// the other; a scope whose traffic is empty is left out ({all bits set, all bits set} when none
/// is left).
using CommLowering = std::function<FlowSpan(sim::TaskGraph&, std::span<const CommPart>, sim::TaskLabel)>;

/// Whether the builder keeps the trace's records of communication tasks and pipeline hops
/// (StepGraph::trace): a step drawn or exported needs them, a step that is only measured does not.
enum class TraceRecords { keep, skip };

/// Label fields: stage, micro_batch, layer (= the model chunk on the stage), phase (TaskPhase),
/// kind (TaskKind); rank is -1 for a task that stands for the whole stage, the sending rank for a
/// flow. With `lower_comm`, `links` are appended to the resources as the network.
StepGraph build_step_graph(const StepPlan& plan, const CommLowering& lower_comm = {},
                           std::vector<sim::Resource> links = {}, TraceRecords trace = TraceRecords::keep);

}  // namespace clustersim::models
