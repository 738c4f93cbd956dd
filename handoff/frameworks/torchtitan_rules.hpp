#pragma once
/// torchtitan's argument checks, restated as clustersim rules, and what of a clustersim layout
/// torchtitan can run. Read at pytorch/torchtitan 238fa9953e4aec2a62582121564273d7cbb1e9f1
/// (2026-02-23), the last commit whose job config is a TOML file: its successor (9810191, #2386)
/// replaced the TOML files with a Python registry. Files read (none copied):
/// torchtitan/config/job_config.py (the sections and keys), torchtitan/distributed/parallel_dims.py
/// (the degrees), torchtitan/train.py (the batch sizes), torchtitan/distributed/pipeline_parallel.py
/// (schedules, stages, the layer split), torchtitan/models/llama3/infra/parallelize.py (TP with
/// sequence-parallel norms, FSDP2, DDP only alone, the seq_len divisor),
/// torchtitan/distributed/tensor_parallel.py (async TP), torchtitan/models/llama3/__init__.py (the
/// flavors), torchtitan/components/quantization/{float8,mx}.py (the converter names).
///
/// Two kinds of rule:
/// - job rules (check_torchtitan_job): what torchtitan raises on for a job config, checked on the
///   parsed TOML, so that an export is checked as torchtitan would read it;
/// - layout rules (map_to_torchtitan): what of a clustersim layout has no torchtitan setting, each
///   with the nearest layout torchtitan runs. What maps to what:
///   * tp -> tensor_parallel_degree; torchtitan's TP always shards the norms' sequence (Megatron
///     SP), so tp > 1 needs sp; tp_comm_overlap -> enable_async_tensor_parallel (with compile);
///   * pp -> pipeline_parallel_degree; vp = 1 -> 1F1B (GPipe for gpipe); vp > 1 -> Interleaved1F1B
///     with pipeline_parallel_layers_per_stage = layers / (pp vp); the stage split is set with
///     pipeline_parallel_first/last_stage_less_layers so that torchtitan's split equals clustersim's;
///   * dp, cp -> data_parallel_shard_degree, context_parallel_degree; FSDP2 is on whenever
///     dp_shard x cp > 1. ZeRO-3 -> fsdp_reshard_after_forward "always"; ZeRO-2 -> "never"
///     (parameters gathered once per step and held through the backward, gradients
///     reduce-scattered: ZeRO-2's traffic); ZeRO-1 has no torchtitan mode (fully_shard shards the
///     gradients too) -> offered as ZeRO-2; ZeRO-0 -> DDP (data_parallel_replicate_degree), which
///     torchtitan runs only as the sole parallelism -> otherwise offered as ZeRO-2; hybrid
///     sharding (shard_group) -> data_parallel_replicate_degree x data_parallel_shard_degree; with
///     one data-parallel rank (dp x cp = 1) no stage shards anything: written as ZeRO-0;
///   * micro_batch: with pp > 1 the pipeline micro-batch (local_batch_size = global / dp, one
///     flush per step, as clustersim schedules it); without, local_batch_size (gradient
///     accumulation = global / (dp x micro_batch));
///   * recompute none/full/op -> activation_checkpoint.mode none/full/selective with option "op";
///     Megatron's selective (the attention core only) has no torchtitan mode -> offered as op;
///   * fp8: current -> quantize.linear.float8 tensorwise; mxfp8 -> quantize.linear.mx mxfp8_cublas;
///     delayed and blockwise have no torchao recipe there -> offered as current;
///   * models: the llama3 flavors (8B, 70B, 405B) and qwen3's MoE flavors (30B-A3B, 235B-A22B) by
///     shape; torchtitan defines models in code, so another shape needs a flavor registered; ep and
///     etp -> expert_parallel_degree and expert_tensor_parallel_degree (etp 1 or tp), carved from
///     data_parallel_shard x context x tensor ranks as clustersim carves them from dp x cp x tp;
///     other MoE models are not exported (limitation).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "handoff/frameworks/framework_rule.hpp"
#include "models/spec/cluster_spec.hpp"
#include "models/spec/transformer_spec.hpp"
#include "planning/search/layout_search.hpp"

namespace clustersim::handoff::torchtitan {

inline constexpr std::string_view kCommit = "238fa99";

/// One model flavor: llama3's TransformerModelArgs (models/llama3/__init__.py) or qwen3's
/// Qwen3ModelArgs (models/qwen3/__init__.py, its MoE flavors).
struct Flavor {
  std::string_view name;    // [model] name
  std::string_view flavor;  // [model] flavor
  std::int64_t dim = 0;
  std::int64_t n_layers = 0;
  std::int64_t n_heads = 0;
  std::int64_t n_kv_heads = 0;
  double ffn_dim_multiplier = 0;  // llama3: the SwiGLU width from dim (ffn_hidden below)
  std::int64_t multiple_of = 0;
  std::int64_t vocab_size = 0;    // llama3: TransformerModelArgs' default (the Llama 3 tokenizer's)
  std::string_view preset;        // the clustersim model preset of this shape
  std::int64_t hidden_dim = 0;    // qwen3: the dense MLP width, given (0: from the multiplier)
  std::int64_t head_dim = 0;      // qwen3: given (0: dim / n_heads)
  std::int64_t num_experts = 0;   // qwen3 MoE (MoEArgs): routed experts, top_k, each expert's width
  std::int64_t top_k = 0;
  std::int64_t moe_inter_dim = 0;
};

std::span<const Flavor> flavors();
/// The dense SwiGLU width: qwen3's hidden_dim, or what llama3's FeedForward derives: 2/3 of 4 dim,
/// times the multiplier, rounded up to a multiple of multiple_of (models/llama3/model/model.py).
std::int64_t ffn_hidden(const Flavor& flavor);
/// The flavor with the model's shape (layers, widths, heads, vocabulary), nullptr if none.
const Flavor* flavor_of(const models::TransformerSpec& model);
const Flavor* find_flavor(std::string_view name, std::string_view flavor);

/// Transformer layers per pipeline stage as pipeline_parallel.py's generate_llm_fqn_per_model_part
/// splits `layers` over `stages` with the embedding weighing `input_weight` layers and the output
/// `output_weight`; empty with `why` set where torchtitan raises.
std::vector<std::int64_t> stage_layers(std::int64_t stages, std::int64_t layers, std::int64_t input_weight,
                                       std::int64_t output_weight, std::string* why = nullptr);

/// The micro-batches PyTorch's ScheduleInterleaved1F1B runs through one model chunk before the
/// next (torch/distributed/pipelining/schedules.py: rounds = max(1, m / pp), m / rounds a round):
/// clustersim's parallelism.microbatch_group for m micro-batches a schedule on pp stages; 0 where
/// the rounds do not divide m, which PyTorch refuses.
std::int64_t interleaved_round(std::int64_t micro_batches, std::int64_t pp);

/// Pipeline schedules torchtitan accepts by name, and whether each runs one stage per rank.
bool known_schedule(std::string_view name);
bool single_stage_schedule(std::string_view name);

/// The job rules a parsed TOML job config breaks for `world_size` ranks; empty: torchtitan runs it.
std::vector<RuleBreach> check_job(const nlohmann::ordered_json& job, std::int64_t world_size);

/// A layout as torchtitan can run it: the layout itself, or the nearest one, with the rules the
/// given one breaks and what maps only approximately.
struct Mapping {
  planning::Layout layout{};
  std::vector<RuleBreach> breaches{};
  std::vector<std::string> notes{};
};
Mapping map_layout(const models::TransformerSpec& model, const models::ClusterSpec& cluster, const planning::Layout& layout);

/// The TOML job config (as a JSON document of tables) of a layout map_layout returned.
nlohmann::ordered_json job_document(const models::TransformerSpec& model, const planning::Layout& layout);

}  // namespace clustersim::handoff::torchtitan
