#pragma once
/// The costed shape of one training step, ready to lower to a task graph: per pipeline stage and
/// model chunk, how long each micro-batch's passes compute and communicate.
/// One stage stands for all of its GPUs: tensor-parallel peers and data-parallel replicas do the
/// same work at the same time (the symmetry DESIGN.md allows), so one pipeline is simulated.
/// Every collective is held once, as a CollectiveRecord (collective_record.hpp); step_comm.hpp
/// says which records each communication task stands for. The seconds fields below are the
/// analytic costs of those tasks, computed from the records by plan_step (for the builder, the
/// step-time bound and the plan key); the flow fidelity lowers the records themselves.
/// Units: seconds, bytes.

#include <cstdint>
#include <vector>

#include "models/spec/parallelism_spec.hpp"
#include "models/step/collective_record.hpp"

namespace clustersim::models {

/// The collectives of one layer's pass and micro-batch, the same in every chunk.
struct LayerCollectives {
  // Tensor parallel, `tp_per_layer` times a pass each: in the forward an all-reduce of the
  // activation (second absent) or, with sequence parallelism, the all-gather of a column-parallel
  // layer's input and the reduce-scatter of a row-parallel layer's output; in the backward their
  // mirror images (`tp_backward`: the all-gather of a row-parallel layer's output gradient and the
  // reduction of a column-parallel layer's input gradient). Under fp8 the gathered tensors are the
  // fp8 casts. `tp_backward_factor` - 1 more forward sets run in the backward (full recompute).
  std::array<CollectiveRecord, 2> tp{};
  std::array<CollectiveRecord, 2> tp_backward{};
  double tp_per_layer = 2.0;
  double tp_backward_factor = 1.0;
  // All-gathers of column-parallel layers' inputs a layer's backward runs for its weight
  // gradients (plan_step says where; 0 otherwise): Megatron's layers save the sequence shard and
  // gather it again; torchtitan's op-level checkpointing saves reduce-scatter outputs but not
  // all-gather outputs, so the gathers feeding the attention and the MLP run again.
  CollectiveRecord tp_regather{};
  double tp_regathers = 0.0;
  // Context parallel (ParallelismSpec::cp_comm), per layer; none for cp = 1.
  // p2p: one hop of the K/V block, `cp_hops` a forward pass and twice that backward (K, V and
  // their gradients). Each hop runs beside the attention of one block, and the next block's
  // attention waits for it (Transformer Engine's ring), so a hop hides only behind that block's
  // attention: `cp_kv_hidden_*` is the share of a pass's hops it hides, the rest is on the stream.
  CollectiveRecord cp_kv{};
  double cp_hops = 0.0;
  double cp_kv_hidden_forward = 1.0;
  double cp_kv_hidden_backward = 1.0;
  // all_gather: the whole sequence's K and V gathered before each pass's attention; the share of
  // it the rank's own block's attention hides (FrameworkParameters::cp_gather_beside_local_block;
  // 0 where the gather is exposed). The backward's key/value gradients go back as a reduce-scatter
  // after the attention (`cp_scatter`), or around a ring beside it (`cp_kv`, `cp_hops` hops of the
  // fp32 gradient block), as the framework does.
  CollectiveRecord cp_gather{};
  CollectiveRecord cp_scatter{};
  double cp_gather_hidden_forward = 0.0;
  double cp_gather_hidden_backward = 0.0;
  // a2a (Ulysses): the queries, keys and values to the heads' ranks before the attention, its
  // output back after; the backward moves the output gradient in and the three gradients out.
  CollectiveRecord cp_heads_in{};
  CollectiveRecord cp_heads_out{};
  // Mixture of experts: a MoE layer's token dispatch to the expert-parallel ranks, an all-to-all
  // of the routed copies; the combine sends them back, and the backward moves their gradients
  // both ways: ep_per_layer all-to-alls a pass. None for ep = 1.
  CollectiveRecord ep_dispatch{};
  double ep_per_layer = 0.0;
  // Expert tensor parallelism (etp > 1): the etp ranks of an expert gather each other's routed
  // rows before the experts and reduce-scatter the outputs after them, once each a pass (the
  // backward the other way round), as Megatron-Core's alltoall dispatcher does; none for etp = 1.
  std::array<CollectiveRecord, 2> etp{};
};

/// One model chunk on one stage, per micro-batch unless said otherwise.
struct ChunkCosts {
  std::int64_t layers = 0;
  std::int64_t moe_layers = 0;  // of those, mixture-of-experts layers (moe.hpp)
  std::int64_t grad_buckets = 1;  // ZeRO 0-2: the buckets the gradient reduction is issued in
  // Layers' worth of the tensor-parallel collectives a pass runs: a MoE layer's MLP, whose experts
  // are not tensor-parallel, runs none unless it has shared experts.
  double tp_layers = 0.0;
  double forward_s = 0.0;            // GPU compute of the forward pass, interference included
  double backward_s = 0.0;           // GPU compute of the backward pass, recompute included
  double interference_forward_s = 0.0;  // of which the slow-down by communication beside it
  double interference_backward_s = 0.0; // (overlap_cost.hpp)
  // ZeRO 0-1: what the gradient buckets, reduced from the chunk's last backward on, cost the
  // compute they run beside (overlap_cost.hpp), booked on that backward; not in backward_s, which
  // the other micro-batches' backwards take. Where that backward is the stage's last pass, only the
  // buckets reduced under its own layers (all but the last) have compute beside them: _last_s.
  double grad_bucket_interference_s = 0.0;
  double grad_bucket_interference_last_s = 0.0;
  // ZeRO 0-1: of backward_s, adding the pass's gradients into the step's buffer, the mean over the
  // step's micro-batches (TrainingSpec::grad_accumulation); 0 when the GEMMs accumulate themselves.
  double grad_accumulation_s = 0.0;
  // ZeRO-0 to 2: the chunk's data-parallel collectives over its parameters' bf16 bytes, once a
  // step: the gradient reduction (all-reduce, or reduce-scatter with ZeRO >= 1) and the parameter
  // all-gather (ZeRO >= 1).
  CollectiveRecord grad_reduce{};
  CollectiveRecord param_gather{};
  // The same for the chunk's routed experts, over the ranks that hold the same experts.
  CollectiveRecord expert_grad_reduce{};
  CollectiveRecord expert_param_gather{};
  // ZeRO-3 / FSDP (StepPlan::gathers_per_pass), per unit of the chunk (sharding.hpp) and pass: the
  // gather of a unit's parameters, and after its backward the reduce-scatter of its gradients in
  // the shard group and, with hybrid sharding, the all-reduce of the shard across groups.
  CollectiveRecord unit_gather{};
  CollectiveRecord unit_gather_ahead{};  // the same, issued ahead: the transfer alone (its host work is compute's)
  CollectiveRecord unit_reduce{};
  CollectiveRecord unit_replica_reduce{};
  // MoE under ZeRO-3: each MoE layer's routed experts are a shard of their own, gathered and
  // reduced over the ranks that hold the same experts, alongside the layer's unit.
  CollectiveRecord expert_gather{};
  CollectiveRecord expert_gather_ahead{};
  CollectiveRecord expert_reduce{};
  double units = 0.0;         // gathers of the forward
  double backward_units = 0.0;  // gathers of the backward: units, and those a recomputed forward released
  double reduce_units = 0.0;  // reduce-scatters after the backward (tensor units: every tensor)
  // Gathers of each pass issued ahead, running while the unit before computes; the rest block.
  double prefetched_forward = 0.0;
  double prefetched_backward = 0.0;
  // The share of the chunk's TP collectives each pass leaves exposed on the stream, the rest under
  // its GEMMs: with TP overlap (ParallelismSpec::tp_comm_overlap), and in the backward where the
  // framework runs its regathers and input-gradient reductions beside the GEMMs; 1 otherwise.
  double tp_exposed_forward = 1.0;
  double tp_exposed_backward = 1.0;
  // Analytic seconds of the chunk's communication tasks (step_comm.hpp), from the records above
  // and the plan's LayerCollectives.
  double tp_forward_s = 0.0;         // tensor-parallel collectives, blocking the compute stream
  double tp_backward_s = 0.0;
  double tp_hidden_forward_s = 0.0;  // the rest: under the GEMMs
  double tp_hidden_backward_s = 0.0;
  double dp_before_forward_s = 0.0;  // ZeRO-3 gathers the pass's compute waits for: the first
  double dp_before_backward_s = 0.0; // unit's, or every unit's without prefetch
  double dp_beside_forward_s = 0.0;  // ZeRO-3 traffic under the pass's compute: the prefetched
  double dp_beside_backward_s = 0.0; // gathers, the overlapped reductions of all units but the last
  double dp_after_backward_s = 0.0;  // ZeRO-3 reductions on the stream after the backward (not overlapped)
  double dp_tail_backward_s = 0.0;   // the last unit's overlapped reduction, after the backward
  double cp_forward_s = 0.0;         // context-parallel exchange beside the compute (p2p's ring)
  double cp_backward_s = 0.0;
  double cp_before_forward_s = 0.0;  // context-parallel exchange the attention waits for on the stream
  double cp_before_backward_s = 0.0; // (all_gather's gathers, a2a's inbound all-to-all)
  double cp_after_forward_s = 0.0;   // ... and after it (all_gather's gradient reduce-scatter, a2a's
  double cp_after_backward_s = 0.0;  // outbound all-to-all)
  double ep_forward_s = 0.0;         // expert-parallel all-to-alls: on the compute stream, or with
  double ep_backward_s = 0.0;        // StepPlan::ep_overlap beside the compute
  double grad_reduce_s = 0.0;        // data-parallel gradient reduction of the chunk, once a step
  double param_gather_s = 0.0;       // distributed-optimizer parameter all-gather, once a step
  // Of backward_s, what a deferred micro-batch's backward leaves to the drain (the output layer's
  // weight-gradient GEMM; StepPlan::deferred_wgrad_micro_batches); 0 but on the last chunk.
  double backward_deferred_s = 0.0;
};

struct StagePlan {
  std::vector<ChunkCosts> chunks;  // vp entries
  CollectiveRecord send_forward{};   // activations to the next stage, per micro-batch
  CollectiveRecord send_backward{};  // gradients to the previous stage, per micro-batch
  double send_forward_s = 0.0;       // their analytic seconds
  double send_backward_s = 0.0;
  double optimizer_s = 0.0;        // the optimizer step on this stage's shard
  // ZeRO 0-2 with tied embeddings across stages: the first stage's embedding and the last stage's
  // output layer are one matrix, whose gradient the two all-reduce after the backward and before
  // the optimizer (Megatron's embedding group in finalize_model_grads, DeepSpeed's
  // ReduceTiedGrads); on those two stages only.
  CollectiveRecord tied_grad_reduce{};
  // Deferred output-layer weight gradients (TrainingSpec::defer_embedding_wgrad), on the stage of
  // the last chunk: their GEMMs, each beside the all-gather of the next one's input under sequence
  // parallelism, on the compute stream after the stage's last pass and before its optimizer.
  double deferred_wgrad_s = 0.0;
};

struct StepPlan {
  Schedule schedule = Schedule::one_f_one_b;
  std::int64_t micro_batches = 1;
  std::int64_t pipeline_runs = 1;  // TrainingSpec::pipeline_runs: schedules of micro_batches / runs
  std::int64_t microbatch_group = 0;  // the interleaved schedule's group (microbatch_group_size); 0: pp
  // The first micro-batches whose last-chunk backward leaves ChunkCosts::backward_deferred_s to
  // the drain (StagePlan::deferred_wgrad_s); 0: none.
  std::int64_t deferred_wgrad_micro_batches = 0;
  std::vector<StagePlan> stages;  // pp entries
  LayerCollectives layer{};
  // ZeRO-3 / FSDP: gather each unit's parameters before each pass. ZeRO-2 and 3: reduce-scatter each
  // unit's gradients after each backward, into the rank's shard (ZeRO-0 and 1 reduce once a step).
  bool gathers_per_pass = false;
  bool reduces_per_pass = false;
  bool reshard_after_forward = true;  // ZeRO-3: the backward gathers the parameters again
  // ZeRO-3 gathered and reduced a stage at a time rather than per pass (neither flag above): how
  // many times a step, one a pipeline run under PyTorch's pipelining (sharding.hpp
  // fsdp_syncs_per_step). The first gather and the last reduction are the step's (ChunkCosts::
  // param_gather and grad_reduce); each run but the last ends in its own reduction, on the stream,
  // and the next run's gather.
  std::int64_t fsdp_syncs = 1;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  bool ep_overlap = false;  // MoE dispatch and combine beside the compute (ParallelismSpec::ep_comm_overlap)
  // A stage's sends to its neighbours block its stream (FrameworkParameters::pp_blocking_sends).
  bool blocking_sends = false;
};

}  // namespace clustersim::models
