#pragma once
/// What the step builder keeps for the Chrome trace (tools/render/chrome_trace.hpp) that the task
/// graph alone does not say: which tasks make one communication task and what it is, which
/// pipeline send a pass waits for, the model layers of each chunk and the ranks a stage stands
/// for. Recording only: nothing here is read by the engine or the metrics, so no simulated time
/// depends on it. It costs one small record per communication task and per pipeline hop (a few
/// thousand for a 70B step), next to the graph's own several per task.

#include <cstdint>
#include <vector>

#include "models/comm/collective_curve.hpp"
#include "sim/task_graph.hpp"

namespace clustersim::models {

/// Which of the builder's communication tasks (step_builder.hpp, step_comm.hpp) a span is.
enum class CommRole : std::uint8_t {
  tp,            // a pass's tensor-parallel collectives on its stream
  tp_hidden,     // their share under the GEMMs (TP overlap, Megatron's asynchronous backward)
  cp,            // the context-parallel ring beside the compute
  ep,            // MoE dispatch and combine all-to-alls
  pp_send,       // activations or gradients to the neighbouring stage
  zero3_before,  // ZeRO-3 gathers the pass's compute waits for
  zero3_beside,  // ZeRO-3 prefetched gathers (and backward reductions) beside the compute
  zero3_after,   // ZeRO-3 reductions after the backward on the stream (not overlapped)
  zero3_tail,    // ZeRO-3's last unit's overlapped reduction after the backward
  grad_bucket,   // one bucket of a chunk's gradient reduction, released by its last backward
  grad_reduce,   // the whole stage's gradient reduction after the last backward (no overlap)
  param_gather,  // the distributed optimizer's parameter all-gather of the whole stage
  tied_grad_reduce,  // a tied embedding's gradient, all-reduced between the first and the last stage
};

/// One communication task as built: its tasks are the consecutive ids first..last (one task under
/// the analytic fidelity; a start task, its flows and an end task per scope under the flow
/// fidelity), which start with `first` and end with `last`.
struct CommSpan {
  sim::TaskId first = 0;
  sim::TaskId last = 0;
  CommRole role = CommRole::tp;
  std::int32_t bucket = 0;   // grad_bucket: its index in release order, 0 for the chunk's last layers
  std::int32_t buckets = 0;  // grad_bucket: the chunk's bucket count
};

/// A pipeline send and the first task of the pass that waits for it (its compute, or ZeRO-3's
/// gather before it) on the neighbouring stage.
struct PipelineHop {
  sim::TaskId send = 0;     // the send's last task
  sim::TaskId receive = 0;  // the receiving pass's first task
};

/// The ranks one simulated stage stands for: tp x cp x dp consecutive ranks (rank order TP, CP,
/// DP, PP innermost first, parallelism_spec.hpp). 0 where the graph was built without a layout.
struct StageRanks {
  std::int64_t tp = 0;
  std::int64_t cp = 0;
  std::int64_t dp = 0;
  std::int64_t per_stage() const { return tp * cp * dp; }
};

struct StepTraceRecord {
  std::vector<CommSpan> comm_spans;  // in task order; no two share a task
  std::vector<PipelineHop> hops;
  /// By stage x chunks_per_stage + chunk: the chunk's first model layer and its layer count
  /// (chunk c of stage s is the model's block c x pp + s).
  std::vector<std::int64_t> chunk_first_layer;
  std::vector<std::int64_t> chunk_layers;
  CollectiveOp grad_reduce_op = CollectiveOp::all_reduce;  // ZeRO-0: all-reduce; ZeRO-1/2: reduce-scatter
  StageRanks ranks{};
};

}  // namespace clustersim::models
