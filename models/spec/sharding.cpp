#include "models/spec/sharding.hpp"

#include <array>
#include <stdexcept>

namespace clustersim::models {

namespace {

constexpr std::array kParameterSets{
    ShardingParameters{
        .framework = ShardingFramework::fsdp2,
        .unit = ShardingUnit::transformer_block,
        .prefetch_depth = 1,
        .reshard_after_forward = true,
        .gather_bytes_per_param = 2,
        .reduce_bytes_per_param = 4,
        .shard_bytes_per_param = 4,
        .optimizer_steps_shard = true,
        .gather_staging_passes = 2,
        .reduce_staging_passes = 1.5,
        .staging_on_compute_stream = true,
        .pipeline_gathers_once = true,
        .source = "PyTorch fully_shard (FSDP2) docs: one unit per wrapped block, reshard_after_forward=True, the "
                  "next unit's all-gather issued one unit ahead; torchtitan's defaults mixed_precision_param = "
                  "bfloat16, mixed_precision_reduce = float32; MixedPrecisionPolicy's param_dtype is the dtype of "
                  "the unsharded parameters only: the sharded ones keep the model's fp32 and are what the "
                  "optimizer steps; _fsdp_collectives.py: foreach_all_gather_copy_out "
                  "copies the gathered buffer out to the parameters (split_with_sizes_copy: a read and a write), "
                  "foreach_reduce copies the bf16 gradients into the fp32 reduce-scatter buffer (_chunk_cat: 2 B "
                  "read and 4 B written a parameter, 1.5 passes of the fp32 buffer), both on the current stream; under "
                  "PyTorch's pipelining every backward but the last skips the reduce-scatter and the reshard "
                  "(torch/distributed/pipelining/stage.py, backward_maybe_with_nosync: set_requires_gradient_sync"
                  "(False), set_reshard_after_backward(False), and the last one's post_backward runs after the "
                  "stage's backward), torchtitan keeps the parameters gathered after the forward when PP is on "
                  "(fsdp_reshard_after_forward \"default\": not pp_enabled), NeMo Automodel's MoE models do the same "
                  "where enable_fsdp_optimizations patches the stage's backward (components/moe/fsdp_mixin.py, "
                  "patched_backward_maybe_with_nosync; its benchmark configs set reshard_after_forward: false; "
                  "without it they reduce every micro-batch: TrainingSpec::fsdp_sync_every_micro_batch), and FSDP2 "
                  "accumulates the unsharded gradient in the reduce dtype "
                  "(_fsdp_param.py, to_accumulated_grad_if_needed)"},
    ShardingParameters{
        .framework = ShardingFramework::fsdp1,
        .unit = ShardingUnit::transformer_block,
        .prefetch_depth = 1,
        .reshard_after_forward = true,
        .gather_bytes_per_param = 2,
        .reduce_bytes_per_param = 2,
        .shard_bytes_per_param = 4,
        .optimizer_steps_shard = true,
        .source = "PyTorch FullyShardedDataParallel docs: FULL_SHARD, transformer_auto_wrap_policy per block, "
                  "BackwardPrefetch.BACKWARD_PRE and limit_all_gathers (two gathers in flight: one unit ahead); "
                  "MixedPrecision reduce_dtype defaults to param_dtype (bf16); the flat parameter's shard stays "
                  "in full precision and is cast to param_dtype only for the all-gather (the low-precision "
                  "shard is freed after it), so the optimizer steps the fp32 shard itself"},
    ShardingParameters{
        .framework = ShardingFramework::megatron_fsdp,
        .unit = ShardingUnit::transformer_block,
        .prefetch_depth = 1,
        .reshard_after_forward = true,
        .gather_bytes_per_param = 2,
        .reduce_bytes_per_param = 4,
        .shard_bytes_per_param = 2,
        .source = "Megatron-LM megatron/core/distributed/fsdp (Megatron-FSDP): one bucket per transformer layer, "
                  "strategy optim_grads_params (parameters resharded: a bf16 shard, beside the distributed "
                  "optimizer's fp32 main parameters), the next layer's bucket prefetched; fp32 gradient "
                  "reduce-scatter unless --grad-reduce-in-bf16 (DistributedDataParallelConfig."
                  "grad_reduce_in_fp32, which megatron/training/arguments.py forces on for bf16 and which DDP and "
                  "Megatron-FSDP share)"},
    ShardingParameters{
        .framework = ShardingFramework::deepspeed_zero3_2021,
        .unit = ShardingUnit::parameter_tensor,
        .prefetch_depth = 1,
        .max_live_params = 1e9,
        .reshard_after_forward = true,
        .gather_bytes_per_param = 2,
        .reduce_bytes_per_param = 2,
        .shard_bytes_per_param = 2,
        .persistence_threshold_params = 1e5,
        .recompute_reuse_distance_params = 1e9,
        .gather_host_ops_per_rank = 2,
        .reduce_host_ops_per_rank = 3,
        .gather_staging_passes = 3,
        .reduce_staging_passes = 2,
        .source = "DeepSpeed v0.3-0.5 runtime/zero (2021): one all-gather per partitioned parameter (coalesced "
                  "gathers came in 2022), parameters released after each module's forward and gathered again "
                  "for its backward, the next parameters' gather issued before a module computes while fewer than "
                  "stage3_max_live_parameters (default 1e9) are gathered (stage3.py prefetch_next_sub_modules: "
                  "at least one tensor, whatever stage3_prefetch_bucket_size), after torch.cuda.synchronize() "
                  "(partition_parameters.py _allgather_param), fp16 parameters and gradients (the fp16 parameter "
                  "shard beside the optimizer's fp32 master, Rajbhandari et al. 2020's 2 + 2 + 12 bytes a "
                  "parameter); parameters under stage3_param_persistence_threshold (default "
                  "1e5 elements) stay gathered, every gradient is reduce-scattered on its own; a module's "
                  "parameters are released after every forward, an activation-recomputing one included, unless "
                  "fewer than stage3_max_reuse_distance (default 1e9) parameters are used before its next use "
                  "(stage3.py release_sub_module, _keep_for_later, _distance_in_numel at v0.3.13, March 2021, and v0.3.16); each collective "
                  "passes torch.distributed a list of one view per rank (partition_parameters.py at v0.3.16: "
                  "_allgather_param takes flat_tensor.narrow(), _reduce_scatter_gradient param.grad.view(-1).narrow()), "
                  "which ProcessGroupNCCL's list-form allgather and reduce_scatter copy out of or into its flat buffer "
                  "with one copy_ per rank: two eager tensor ops per rank a gather, three a reduce-scatter; HBM "
                  "passes over the whole buffer: a gather zero-fills it (torch.zeros in "
                  "_allgather_param), then PyTorch copies it out of its flat buffer (a read and a write), a "
                  "reduce-scatter copies the gradient into the flat buffer (a read and a write)"},
};

const ShardingParameters& table_entry(ShardingFramework framework) {
  for (const auto& set : kParameterSets)
    if (set.framework == framework) return set;
  throw std::logic_error("no parameter set for this sharding framework");
}

}  // namespace

ShardingParameters sharding_parameters(ShardingFramework framework, bool bf16_params) {
  ShardingParameters s = table_entry(framework);
  if (bf16_params) {
    s.shard_bytes_per_param = 2;
    s.reduce_bytes_per_param = 2;
    s.optimizer_steps_shard = true;
  }
  s.expert_reduce_bytes_per_param = s.reduce_bytes_per_param;
  return s;
}

}  // namespace clustersim::models
