#pragma once
/// DeepSpeed's and Megatron-DeepSpeed's argument checks, restated as clustersim rules, and what of
/// a clustersim layout Megatron-DeepSpeed runs. Read (none copied) at deepspeedai/DeepSpeed
/// edaa7221267243c7be7fb49c5d5f5c4fb97b4641 (2026-08-22): deepspeed/runtime/config.py (the batch
/// sizes: train_batch_size = micro x gradient accumulation x data-parallel ranks, what is derived
/// when one is missing; bf16 and fp16 exclusive; the ZeRO stage's range), deepspeed/runtime/pipe/
/// engine.py (ZeRO-2 and -3 refused under the pipeline engine; one schedule, TrainSchedule, 1F1B
/// order); and at deepspeedai/Megatron-DeepSpeed 4efb479d5317ce9b86096b9d8e3e8030b0b5263b
/// (2025-07-16): megatron/arguments.py (validate_args: world size divisible by tp x pp x
/// ds-sequence-parallel, --no-pipeline-parallel only with pp 1, the interleaved schedule's checks,
/// --sequence-parallel needing CUDA_DEVICE_MAX_CONNECTIONS=1, selective recompute without a
/// method, fp8 with Transformer Engine, GQA heads), pretrain_gpt.py (GPTModelPipe, so the DeepSpeed
/// pipeline engine, unless --no-pipeline-parallel) and megatron/training.py (the engine's batch
/// size set from --global-batch-size each step).
///
/// What maps to what: tp -> --tensor-model-parallel-size (with --sequence-parallel for sp); pp ->
/// --pipeline-model-parallel-size, or --no-pipeline-parallel at pp 1 (which ZeRO-2/3 needs, since
/// GPTModelPipe runs on the pipeline engine); zero -> zero_optimization.stage and --zero-stage;
/// micro_batch and global_batch -> train_micro_batch_size_per_gpu / train_batch_size and
/// --micro-batch-size / --global-batch-size (gradient accumulation = micro-batches per step);
/// recompute full -> --recompute-granularity full --recompute-method uniform and DeepSpeed's
/// activation checkpointing; selective -> --recompute-granularity selective; bf16 -> bf16.enabled
/// and --bf16; fp8 (delayed) -> --fp8-hybrid with --transformer-impl transformer_engine.
/// Refused, with the nearest layout offered: ZeRO-2/3 with pp > 1 (ZeRO-1), the interleaved
/// schedule (1F1B), GPipe (1F1B: the engine's only schedule), context parallelism (no ring
/// attention; DeepSpeed-Ulysses, --ds-sequence-parallel-size, is another scheme clustersim does
/// not model: cp folded into dp), tensor-parallel communication overlap (Megatron-DeepSpeed turns
/// async TP all-reduce off under DeepSpeed), torchtitan's op-level recompute (selective), fp8
/// recipes but delayed, hybrid sharding; MoE models are not exported (limitation).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "handoff/frameworks/framework_rule.hpp"
#include "models/spec/cluster_spec.hpp"
#include "models/spec/transformer_spec.hpp"
#include "planning/search/layout_search.hpp"

namespace clustersim::handoff::deepspeed {

inline constexpr std::string_view kDeepSpeedCommit = "edaa722";
inline constexpr std::string_view kMegatronDeepSpeedCommit = "4efb479";

/// A Megatron-DeepSpeed launch: the DeepSpeed JSON config, the `deepspeed` launcher's node and
/// GPU counts, pretrain_gpt.py's flags (value empty for a switch) and the environment it exports.
struct Launch {
  nlohmann::ordered_json ds_config = nlohmann::ordered_json::object();
  bool has_ds_config = false;
  std::int64_t num_nodes = 0;  // 0: not given
  std::int64_t num_gpus = 0;   // per node; 0: not given
  std::vector<std::pair<std::string, std::string>> flags{};
  std::vector<std::pair<std::string, std::string>> env{};

  const std::string* flag(std::string_view name) const;
  bool has(std::string_view name) const { return flag(name) != nullptr; }
};

/// Reads a launch script: `export NAME=VALUE` lines, a here-document (cat <<EOT > FILE ... EOT)
/// holding the JSON config, and the `deepspeed ... pretrain_gpt.py ...` command (lines joined at
/// a trailing backslash). Throws std::invalid_argument naming the line for what it cannot read.
Launch parse_launch_script(std::string_view text, std::string_view source);

/// The rules a launch breaks; empty: DeepSpeed and Megatron-DeepSpeed run it.
std::vector<RuleBreach> check_launch(const Launch& launch);

/// A layout as Megatron-DeepSpeed can run it: the layout or the nearest one, with the rules the
/// given one breaks and what maps only approximately.
struct Mapping {
  planning::Layout layout{};
  std::vector<RuleBreach> breaches{};
  std::vector<std::string> notes{};
};
Mapping map_layout(const models::TransformerSpec& model, const models::ClusterSpec& cluster, const planning::Layout& layout);

/// The ds_config.json of a layout map_layout returned.
nlohmann::ordered_json ds_config(const planning::Layout& layout, const models::ClusterSpec& cluster);
/// pretrain_gpt.py's flags for the model and that layout, in launch order ("--bf16", "--seq-length 4096").
std::vector<std::string> megatron_deepspeed_flags(const models::TransformerSpec& model, const planning::Layout& layout);
/// The whole launch script: exports, the here-document writing ds_config.json, the deepspeed line.
std::string launch_script(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                          const planning::Layout& layout);

}  // namespace clustersim::handoff::deepspeed
