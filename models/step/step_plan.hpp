#pragma once
/// The costed shape of one training step, ready to lower to a task graph: per pipeline stage and
/// model chunk, how long each micro-batch's passes compute and communicate.
/// One stage stands for all of its GPUs: tensor-parallel peers and data-parallel replicas do the
/// same work at the same time (the symmetry DESIGN.md allows), so one pipeline is simulated.
/// Units: seconds, bytes.

#include <cstdint>
#include <vector>

#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

/// What a communication task moves, for the `flow` fidelity (the `analytic` one uses the seconds
/// fields): every rank of the task's group sends `ring_bytes` to its successor (its ring
/// neighbour; for a pipeline send, its peer on the neighbouring stage), and the group all-reduces
/// `all_reduce_bytes` (buffer size, lowered as flow_collectives.hpp picks), after `latency_s`, the
/// analytic model's latency of the collectives the task stands for.
struct Traffic {
  double ring_bytes = 0.0;
  double all_reduce_bytes = 0.0;
  double latency_s = 0.0;

  Traffic& operator+=(const Traffic& other) {
    ring_bytes += other.ring_bytes;
    all_reduce_bytes += other.all_reduce_bytes;
    latency_s += other.latency_s;
    return *this;
  }
  Traffic scaled(double factor) const { return {ring_bytes * factor, all_reduce_bytes * factor, latency_s * factor}; }
  bool empty() const { return ring_bytes <= 0.0 && all_reduce_bytes <= 0.0 && latency_s <= 0.0; }
};

/// One model chunk on one stage, per micro-batch unless said otherwise.
struct ChunkCosts {
  std::int64_t layers = 0;
  double forward_s = 0.0;            // GPU compute of the forward pass
  double backward_s = 0.0;           // GPU compute of the backward pass, recompute included
  double tp_forward_s = 0.0;         // tensor-parallel collectives, blocking the compute stream
  double tp_backward_s = 0.0;
  double blocking_dp_forward_s = 0.0;   // data-parallel traffic blocking the compute stream: ZeRO-3
  double blocking_dp_backward_s = 0.0;  // gathers and reduce-scatters when not overlapped
  double overlap_forward_s = 0.0;    // communication that runs beside the compute (CP, ZeRO-3)
  double overlap_backward_s = 0.0;
  double grad_reduce_s = 0.0;        // data-parallel gradient reduction of the chunk, once a step
  double param_gather_s = 0.0;       // distributed-optimizer parameter all-gather, once a step
  Traffic tp_forward_traffic{}, tp_backward_traffic{}, grad_reduce_traffic{}, param_gather_traffic{};
  // What the overlap and blocking seconds above move, by group: the context-parallel ring's K/V
  // blocks and the ZeRO-3 gathers and reduce-scatters over the data-parallel group.
  Traffic cp_forward_traffic{}, cp_backward_traffic{};
  Traffic overlap_dp_forward_traffic{}, overlap_dp_backward_traffic{};
  Traffic blocking_dp_forward_traffic{}, blocking_dp_backward_traffic{};
};

struct StagePlan {
  std::vector<ChunkCosts> chunks;  // vp entries
  double send_forward_s = 0.0;     // activations to the next stage, per micro-batch
  double send_backward_s = 0.0;    // gradients to the previous stage, per micro-batch
  Traffic send_traffic{};          // either way, per micro-batch
  double optimizer_s = 0.0;        // the optimizer step on this stage's shard
};

struct StepPlan {
  Schedule schedule = Schedule::one_f_one_b;
  std::int64_t micro_batches = 1;
  std::vector<StagePlan> stages;  // pp entries
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
};

}  // namespace clustersim::models
