#pragma once
/// The rules that make a layout (model shape x parallelism x training x cluster) one the step
/// model, and Megatron-LM, can run: the single list that scenario validation, the step planner
/// (check_layout), the layout search and the validation runs all ask. A broken rule comes back as
/// the field a user would most likely change and the rule in words; scenarios/layout_pointer.hpp
/// turns the field into the scenario file's JSON pointer. Rules on one key alone (ranges, enums)
/// live in the scenario schema; the few of them guarded here keep the rules safe to evaluate for
/// layouts built in code.
///
/// The rules, in the order they are checked (the first broken one is reported):
///  - hidden divisible by heads unless model.head_dim sets the head width; mha: kv_heads = heads;
///    kv_heads divides heads (whole query groups); mla: its latent and head widths >= 1, and not
///    yet with fp8 or DeepSpeed's 2021 ZeRO-3 (tensor units);
///  - tp divides heads; tp and kv_heads divide one another (below);
///  - num_gpus a multiple of gpus_per_node; tp x pp x dp x cp = num_gpus;
///  - pp x vp <= layers (every pipeline chunk holds a layer);
///  - vp > 1 exactly with the interleaved schedule;
///  - global_batch divisible by dp x micro_batch; interleaved: the micro-batch group N
///    (microbatch_group, pp when unset) in [pp, micro-batches of a pipeline run], and those
///    micro-batches a multiple of N or leaving a last group of at least pp (Megatron-Core's
///    checks in forward_backward_pipelining_with_interleaving: a smaller group stalls the
///    pipeline); microbatch_group only with the interleaved schedule; pp x vp x micro-batches at
///    most 2^19 (the graph one step is simulated on; layout_rules.cpp);
///  - seq_len divisible by cp; cp_a2a_ranks only with cp_comm a2a+p2p, which needs it in [2, cp/2]
///    and dividing cp; cp_comm a2a needs heads (and kv_heads, but for MLA) to be multiples of tp x cp,
///    a2a+p2p of tp x cp_a2a_ranks; sequence parallelism needs tp > 1 and seq_len divisible by tp x cp;
///  - tp_comm_overlap needs sequence parallelism; shard_group divides dp x cp and needs zero = 3;
///  - mixture of experts (models/spec/moe.hpp): experts_per_token in [1, experts] and
///    expert_ffn_hidden >= 1 when experts > 0, dense_layers <= layers; ep > 1 needs experts, ep
///    divides experts, ep x etp divides the stage's tp x cp x dp ranks (Megatron-Core's
///    expert-parallel folding); tp > 1 with sequence parallelism; not modelled yet, and
///    refused: etp > 1, fp8, DeepSpeed's 2021 ZeRO-3 and hybrid sharding with experts;
///  - defer_embedding_wgrad needs a pipeline (pp > 1), Megatron-Core (training.framework
///    megatron-core), weight-gradient GEMMs that accumulate themselves (grad_accumulation fused)
///    and one pipeline run a step (Megatron-Core's ModelParallelConfig checks the first and third);
///  - fsdp_sync_once needs ZeRO-3 with a sharding that can hold its units gathered (fsdp2);
///    fsdp_sync_every_micro_batch the same and a pipeline (pp > 1: without one FSDP2 reduces every
///    micro-batch anyway), and not both;
///  - fp8 needs a GPU with FP8 tensor cores; the mxfp8 recipe needs a Blackwell GPU (a name that
///    starts with b200 or gb200, as the presets and planning/validation/validation_family.cpp name
///    them): MXFP8's 1 x 32 block scales are applied by Blackwell's tensor cores (Transformer
///    Engine's MXFP8BlockScaling needs compute capability 10.0).
///
/// kv_heads against tp. Megatron-LM accepts num_query_groups that are a multiple OR a divisor of
/// tensor_model_parallel_size: megatron/core/transformer/transformer_config.py,
/// TransformerConfig.__post_init__, raises "must be a multiple or divisor of" otherwise (since
/// commit f7dfb99, "Support TP greater than num_kv_heads", Dec 2025). With fewer groups than TP
/// ranks, megatron/core/transformer/attention.py sets num_query_groups_per_partition = 1: each
/// rank holds one key/value head, replicated over tp / kv_heads ranks. Transformer Engine's own
/// MultiheadAttention asserts num_gqa_groups % tp_size == 0
/// (transformer_engine/pytorch/attention/multi_head_attention.py), but Megatron-LM hands its core
/// attention a config with num_query_groups = tp in that case, so the Megatron-LM + TE stack runs
/// both. This model follows Megatron-LM: memory.cpp and transformer_costs.cpp count
/// ceil(kv_heads / tp) key/value heads per rank, i.e. one replicated head when kv_heads < tp.
/// Sequence parallelism with tp = 1: Megatron-LM (megatron/training/arguments.py) switches it off
/// with a warning; here it is an error, so that a scenario says what it simulates.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/spec/cluster_spec.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// The input fields a layout rule, or the step model's network set-up, can name.
enum class LayoutField {
  model_hidden,
  model_heads,
  model_kv_heads,
  parallelism,  // the degrees together (their product)
  parallelism_tp,
  parallelism_pp,
  parallelism_dp,
  parallelism_vp,
  parallelism_microbatch_group,
  parallelism_cp_comm,
  parallelism_cp_a2a_ranks,
  parallelism_layers_per_chunk,
  parallelism_sp,
  parallelism_zero,
  parallelism_shard_group,
  parallelism_tp_comm_overlap,
  parallelism_ep,
  parallelism_etp,
  model_experts,
  model_experts_per_token,
  model_expert_ffn_hidden,
  model_dense_layers,
  model_attention,
  parallelism_sharding,
  training_micro_batch,
  training_global_batch,
  training_pipeline_runs,
  training_seq_len,
  training_schedule,
  training_precision,
  training_moe_capacity_factor,
  training_fp8_recipe,
  training_fp8_param_gather,
  training_fp8_backward,
  training_fp8_attention,
  training_defer_embedding_wgrad,
  training_fsdp_sync_once,
  training_fsdp_sync_every_micro_batch,
  training_attention,
  cluster_num_gpus,
  cluster_gpus_per_node,
  cluster_nvlink_domain_gpus,
  cluster_topology,
  cluster_failed_links,
  cluster_failed_link_names,
};

/// The field as a path through the specs: "parallelism.tp", "parallelism".
std::string_view field_path(LayoutField field);

struct LayoutViolation {
  LayoutField field;
  std::string rule;
};

/// The first rule the layout breaks, or nullopt when it is valid.
std::optional<LayoutViolation> layout_violation(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                                const TrainingSpec& training, const ClusterSpec& cluster);

/// The flow fidelity moves every group's traffic as flows, some 17 kB and 0.5 ms a chunk pass on
/// 256 GPUs (more on more GPUs): it simulates at most 2^16 chunk passes (pp x vp x micro-batches),
/// about 1 GB and 40 s there, where the analytic fidelity allows 2^19. The violation (field
/// training.global_batch) of a layout over that; a search under flow sets such layouts aside.
std::optional<LayoutViolation> flow_graph_violation(const ParallelismSpec& parallelism, const TrainingSpec& training);

/// Fills in parallelism.dp = num_gpus / (tp x pp x cp) for a layout that leaves dp out; the
/// violation (field parallelism.dp) when that is not a whole number.
std::optional<LayoutViolation> derive_dp(ParallelismSpec& parallelism, const ClusterSpec& cluster);

/// A layout the step model cannot run: the field and the rule. what() is "parallelism.tp: rule".
class LayoutError : public std::invalid_argument {
 public:
  LayoutError(LayoutField field, const std::string& rule)
      : std::invalid_argument(std::string(field_path(field)) + ": " + rule), field_(field), rule_(rule) {}
  explicit LayoutError(const LayoutViolation& violation) : LayoutError(violation.field, violation.rule) {}
  LayoutField field() const { return field_; }
  const std::string& rule() const { return rule_; }

 private:
  LayoutField field_;
  std::string rule_;
};

}  // namespace clustersim::models
