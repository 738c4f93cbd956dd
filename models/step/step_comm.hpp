#pragma once
/// Which of a step plan's collectives (collective_record.hpp) each communication task of the step
/// stands for, in the order their costs add up: the one place that says it, read by plan_step for
/// the analytic seconds and by the step builder for the flow fidelity's traffic.
/// Per pass of a chunk and micro-batch:
/// - tensor parallel: layers x (tp_per_layer x the layer's TP collectives) x the share left
///   exposed (the rest beside the compute); backward: their mirror images, the forward's again
///   under full recompute (tp_backward_factor - 1) and the regathers of the saved input shards;
/// - ZeRO-3 / FSDP, over the chunk's units (sharding.hpp): the gathers the pass issues ahead
///   (ChunkCosts::prefetched_*: with block units all but the first, U - 1; tensor units as
///   layer_tensors.hpp says) beside the compute, the others before it; in the backward the
///   reductions of all units but the last beside it too (the next pass waits for them) and the
///   last unit's reduction after it. The backward gathers again what a recomputed forward
///   released (ChunkCosts::backward_units). Reductions that do not overlap (overlap_grad_reduce
///   off) follow the backward on the stream;
/// - beside the compute: the context-parallel ring (layers x cp_hops K/V hops, twice that
///   backward);
/// - mixture of experts: the MoE layers' dispatch and combine all-to-alls (LayerCollectives::
///   ep_per_layer each), on the stream after the pass's compute and TP collectives (a MoE layer
///   waits for its tokens; dispatch overlap is not modelled);
/// - the send to the neighbouring stage.
/// Once a step (ZeRO-0 to 2): each chunk's gradient reduction and parameter all-gather, and those
/// of its routed experts over the ranks that hold the same experts.
/// The parts point into the plan and live as long as it does.

#include "models/step/collective_record.hpp"
#include "models/step/step_plan.hpp"

namespace clustersim::models {

CommParts tp_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
/// With TP overlap, the share of the TP collectives that runs under the GEMMs.
CommParts tp_hidden_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
/// ZeRO-3 traffic of a pass: before its compute, beside it, after it on the stream (backward
/// only), and the overlapped last reduction after it (backward only).
CommParts dp_before_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
CommParts dp_beside_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
CommParts dp_after_comm(const StepPlan& plan, const ChunkCosts& chunk);
CommParts dp_tail_comm(const StepPlan& plan, const ChunkCosts& chunk);
/// Context-parallel traffic of a pass (LayerCollectives): beside its compute (p2p's ring, the share
/// of an all-gather the local block hides, the gradient ring behind a gather), before it on the
/// stream (the rest of the gather, a2a's inbound all-to-all) and after it (the gradients'
/// reduce-scatter, a2a's outbound all-to-all).
CommParts cp_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
CommParts cp_before_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
CommParts cp_after_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
CommParts ep_comm(const StepPlan& plan, const ChunkCosts& chunk, bool forward);
CommParts send_comm(const StagePlan& stage, bool forward);
/// `share` of the chunk's once-a-step gradient reduction (a bucket's); none with ZeRO-3.
CommParts grad_reduce_comm(const StepPlan& plan, const ChunkCosts& chunk, double share = 1.0);
/// The chunk's once-a-step parameter all-gather; none with ZeRO-3.
CommParts param_gather_comm(const StepPlan& plan, const ChunkCosts& chunk);

/// Sets the chunk's seconds fields from its records and the plan's layer collectives.
void set_comm_seconds(const StepPlan& plan, ChunkCosts& chunk);

}  // namespace clustersim::models
