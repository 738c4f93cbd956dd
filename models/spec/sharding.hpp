#pragma once
/// How a framework runs fully sharded data parallelism (ZeRO-3 / FSDP): the named parameter sets
/// of DeepSpeed ZeRO-3 as it ran in 2021, PyTorch FSDP1, FSDP2 and Megatron-FSDP. What differs
/// between them, and what the step model needs of each:
/// - the unit a gather or reduce-scatter covers: a transformer block (FSDP wrapping policies,
///   Megatron-FSDP) or each parameter tensor on its own (DeepSpeed before coalesced gathers);
/// - the prefetch depth: how many units ahead of the compute a gather may be issued (0: a unit's
///   gather starts only when the compute reaches it, so every gather blocks the compute);
///   DeepSpeed prefetches the next tensor only while fewer than its live limit of parameters are
///   gathered (layer_tensors.hpp);
/// - whether parameters are re-gathered for the backward (reshard after forward);
/// - the bytes per parameter of the gathered parameters and of the reduced gradients;
/// - under full activation recomputation, whether a unit's recomputed forward releases what it
///   gathered, so that its backward gathers it again (DeepSpeed: where more than its reuse
///   distance of parameters are used in between, layer_tensors.hpp; FSDP recomputes inside the
///   unit's backward, after the gather);
/// - with tensor units, the tensors too small to shard (DeepSpeed's persistence threshold: they
///   stay gathered, so only their gradients are reduced) and the host work a collective costs per
///   rank of its group (DeepSpeed's 2021 collectives passed a list of one view per rank, which its
///   Python built and PyTorch's list-form all_gather / reduce_scatter copied one by one). That
///   host work is charged to the collective in both fidelities; DeepSpeed of 2021 synchronised the
///   device before each gather it issued, so a prefetched gather's host work runs with the device
///   idle: it lengthens the compute of the pass, and only the transfer runs beside it. The same
///   list form moves the whole buffer through HBM around each call (DeepSpeed zero-filled each
///   gathered buffer; PyTorch copied the flat buffer out to the views, or the views into it), at
///   the GPU's HBM rate, charged to the collective;
/// - the HBM copies around each collective of the others: FSDP2 copies a unit's gathered buffer
///   out to its parameters and its gradients (widened to the reduce dtype) into the
///   reduce-scatter's buffer on the compute stream, which they hold up; FSDP1 and Megatron-FSDP
///   gather into and reduce out of the flat buffer their parameters and gradients are views of;
/// - under a pipeline schedule, whether every micro-batch gathers and reduces (the units as above)
///   or the stage gathers once and reduce-scatters once a pipeline run, holding its unsharded
///   parameters and gradients in between (FSDP2 under PyTorch's pipelining, as torchtitan runs it);
/// A scenario picks one by `parallelism.sharding` and may shard inside groups of
/// `parallelism.shard_group` ranks, replicating across groups (hybrid sharding, HSDP): gathers
/// and reduce-scatters run inside a group, and each unit's reduced shard is all-reduced across the
/// groups.
/// Sources, per parameter set, in sharding.cpp.

#include <cstdint>
#include <string_view>

namespace clustersim::models {

enum class ShardingFramework { fsdp2, fsdp1, megatron_fsdp, deepspeed_zero3_2021 };

enum class ShardingUnit { transformer_block, parameter_tensor };

struct ShardingParameters {
  ShardingFramework framework = ShardingFramework::fsdp2;
  ShardingUnit unit = ShardingUnit::transformer_block;
  int prefetch_depth = 1;             // units a gather may run ahead of the compute
  double max_live_params = 0;         // > 0: no prefetch while this many parameters are gathered
  bool reshard_after_forward = true;  // gather again before the backward
  double gather_bytes_per_param = 2;  // gathered parameters (16-bit)
  double reduce_bytes_per_param = 2;  // reduced gradients
  // A MoE model's routed experts' reduced gradients: reduce_bytes_per_param, as sharding_parameters
  // resolves it, unless the framework shards the experts apart from their block under a policy of
  // their own (framework.hpp, sharding_as_run).
  double expert_reduce_bytes_per_param = 2;
  // The parameter shard a rank keeps between steps: 4 for an fp32 shard, 2 for a 16-bit one.
  double shard_bytes_per_param = 2;
  // Whether the optimizer updates that shard in place, as its own copy of the weights (FSDP's fp32
  // shard, or any shard of bf16 parameters), rather than keeping an fp32 master beside it.
  bool optimizer_steps_shard = false;
  double persistence_threshold_params = 0;  // tensor units: smaller tensors are never gathered
  double recompute_reuse_distance_params = 0;  // > 0: recomputed forwards release (layer_tensors.hpp)
  // Eager PyTorch ops issued per group rank, per all-gather and per reduce-scatter.
  double gather_host_ops_per_rank = 0;
  double reduce_host_ops_per_rank = 0;
  // HBM passes over the whole buffer a collective stages around the NCCL call (zero-filling the
  // gathered buffer, list-form copies out of or into PyTorch's flat one), per gather and reduction.
  double gather_staging_passes = 0;
  double reduce_staging_passes = 0;
  bool staging_on_compute_stream = false;  // the copies hold up the compute (else the collective)
  // Under a pipeline schedule (pp > 1), or without one where the framework defers the reduction
  // (TrainingSpec::fsdp_sync_once): the parameters stay gathered and the gradients accumulate
  // unsharded, in the reduce dtype, through the micro-batches, so each unit is gathered once and
  // reduce-scattered once a step, after the stage's last backward (once a pipeline run where a step
  // runs the schedule several times: fsdp_syncs_per_step).
  bool pipeline_gathers_once = false;
  std::string_view source;
};

constexpr std::string_view sharding_name(ShardingFramework f) {
  switch (f) {
    case ShardingFramework::fsdp2: return "fsdp2";
    case ShardingFramework::fsdp1: return "fsdp1";
    case ShardingFramework::megatron_fsdp: return "megatron_fsdp";
    case ShardingFramework::deepspeed_zero3_2021: return "deepspeed_zero3_2021";
  }
  return "?";
}

/// Whether a ZeRO-3 layout with `pp` stages gathers and reduces once a step (pipeline_gathers_once):
/// under a pipeline unless `every_micro_batch` (TrainingSpec::fsdp_sync_every_micro_batch), or
/// without one where `sync_once` (TrainingSpec::fsdp_sync_once) says so.
constexpr bool gathers_once_a_step(const ShardingParameters& s, int zero, std::int64_t pp, bool sync_once,
                                   bool every_micro_batch) {
  return zero >= 3 && ((pp > 1 && !every_micro_batch) || sync_once) && s.pipeline_gathers_once;
}

/// How many times a step a layout that gathers once a step (gathers_once_a_step) gathers its
/// stage's parameters and reduce-scatters its gradients: once a pipeline run (TrainingSpec::
/// pipeline_runs) unless `sync_once`. PyTorch's pipelining ends each schedule run's last backward in
/// FSDP's post-backward on every parameter group, resharding and reduce-scattering, and waits for
/// the reductions on the default stream (torch/distributed/pipelining/stage.py,
/// backward_maybe_with_nosync with last_backward: _root_post_backward_final_callback); the next
/// run's forward gathers again. torchtitan calls the schedule once per gradient-accumulation step
/// (trainer.py train_step). NeMo Automodel's patched backward (`sync_once`, its
/// enable_fsdp_optimizations) defers both to the optimizer step: once a step.
constexpr std::int64_t fsdp_syncs_per_step(std::int64_t pipeline_runs, bool sync_once) {
  return !sync_once && pipeline_runs > 1 ? pipeline_runs : 1;
}

/// The parameter set of `framework`, and as a model of bf16 parameters runs it (training.bf16_params):
/// the shard is the bf16 parameters themselves, which the optimizer steps, and its gradients are
/// bf16 and reduced so (FSDP2's reduce dtype defaults to the parameters' dtype; NeMo Automodel's
/// FSDP2Manager sets bfloat16 anyway; its MoE parallelizer does not: framework.hpp, sharding_as_run).
ShardingParameters sharding_parameters(ShardingFramework framework, bool bf16_params);

}  // namespace clustersim::models
