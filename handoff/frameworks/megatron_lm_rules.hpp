#pragma once
/// Megatron-LM's argument validation, restated as clustersim rules checked against a launch's
/// arguments: the flags pretrain_gpt.py is given, the environment the launch script exports and
/// the world size torchrun starts. An export builds the arguments, renders them as a script and
/// checks them here; a test parses the rendered script back and checks it again, and shows each
/// rule firing on arguments that break it.
///
/// Read (not copied) from NVIDIA/Megatron-LM at commit d98e8a64ddf34856e74b24714e3bedb2f5a39553
/// (2026-08-22): megatron/training/arguments.py (validate_args),
/// megatron/core/model_parallel_config.py and megatron/core/transformer/transformer_config.py
/// (__post_init__), megatron/core/transformer/pipeline_parallel_layer_layout.py,
/// megatron/core/num_microbatches_calculator.py and megatron/core/pipeline_parallel/schedules.py.
/// Each rule names its file; the requirement is in clustersim's words.
/// Limitations: only the checks a layout export can meet or break are encoded (not the
/// checkpointing, RL, inference, FP4 or hybrid-model ones); CUDA_DEVICE_MAX_CONNECTIONS is checked
/// as Megatron-LM checks it before Blackwell (from Blackwell on it does not ask for 1).

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "handoff/frameworks/framework_rule.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::handoff {

/// The Megatron-LM commit the rules were read at, and the short form a RuleBreach names.
inline constexpr std::string_view kMegatronLmCommit = "d98e8a64ddf34856e74b24714e3bedb2f5a39553";
inline constexpr std::string_view kMegatronLmShortCommit = "d98e8a6";

/// pretrain_gpt.py's arguments as its parser sees them.
struct MegatronArguments {
  std::vector<std::pair<std::string, std::string>> flags{};  // in order; a switch has value ""
  std::map<std::string, std::string> env{};                  // what the script exports
  std::int64_t world_size = 0;                               // torchrun nnodes x nproc-per-node

  bool has(std::string_view flag) const;
  /// The value of the last occurrence (argparse keeps the last); "" when absent.
  std::string value(std::string_view flag) const;
  /// The flag's integer value, `fallback` when absent. Throws std::invalid_argument naming the
  /// flag when the value is not an integer (argparse would refuse it).
  std::int64_t integer(std::string_view flag, std::int64_t fallback) const;
};

/// One rule: what Megatron-LM requires, where it checks it, what it offers instead, and the check.
struct MegatronRule {
  std::string_view id;
  std::string_view source;  // file in the Megatron-LM tree
  std::string_view requirement;
  std::string_view alternative;  // empty: none
  bool (*holds)(const MegatronArguments&);
};

/// Every rule, in the order validate_args and the config classes check them.
std::span<const MegatronRule> megatron_lm_rules();

/// The rules `arguments` break, in rule order, each with its source as "file @commit".
std::vector<RuleBreach> megatron_lm_breaches(const MegatronArguments& arguments);

/// The stages of a --pipeline-model-parallel-layout string as Megatron-LM expands it
/// ("(tt|)*2" repeats, "t*3" repeats a letter, commas are cosmetic): each stage's letters
/// (E embedding, t decoder layer, m MTP layer, L loss). Throws std::invalid_argument for a letter
/// or a repeat it does not know.
std::vector<std::string> pipeline_layout_stages(std::string_view layout);

/// What a configuration sets of Megatron-Core's pipeline split besides a layout.
struct MegatronSplitSettings {
  std::int64_t first = 0;  // --decoder-first-pipeline-num-layers (NeMo: model.num_layers_in_first_pipeline_stage); 0: not set
  std::int64_t last = 0;   // --decoder-last-pipeline-num-layers
  bool embedding = false;  // --account-for-embedding-in-pipeline-split
  bool loss = false;       // --account-for-loss-in-pipeline-split
};

/// The layers of each model chunk, in model order, as Megatron-Core builds them
/// (transformer_block.py, get_num_layers_to_build): an uneven first or last stage, the middle
/// stages sharing the rest, each stage's layers split evenly over its vp chunks; or the embedding
/// and the loss counted as a layer each of an even split, then left out of the first and the last
/// chunk. Empty where none is set or pp is 1. Throws std::invalid_argument with the rule where
/// Megatron-Core's asserts refuse the numbers.
std::vector<std::int64_t> megatron_core_split(std::int64_t layers, std::int64_t pp, std::int64_t vp,
                                              const MegatronSplitSettings& settings);

/// What a scenario records of a Megatron-Core job's pipeline split (parallelism.layers_per_chunk):
/// the split its layout gives (`layout_split`, empty where there is none), else the one
/// megatron_core_split builds from `settings`; empty where that is clustersim's even split. Throws
/// std::invalid_argument as megatron_core_split does.
std::vector<std::int64_t> recorded_megatron_split(std::int64_t layers, std::int64_t pp, std::int64_t vp,
                                                  std::vector<std::int64_t> layout_split,
                                                  const MegatronSplitSettings& settings);

/// What a scenario records of a configuration's interleaved micro-batch group (`group`, 0 where
/// the configuration sets none; `key` names it): the group, where interleaving (parallelism vp > 1)
/// reads it and it is not pp, Megatron-Core's default; else 0, with a note in `notes` where the
/// configuration sets a group Megatron-Core does not read (no interleaving).
std::int64_t recorded_microbatch_group(std::int64_t group, const models::ParallelismSpec& parallelism,
                                       std::string_view key, std::vector<std::string>& notes);

/// Megatron-Core's cp_comm_type (--cp-comm-type, NeMo's model.cp_comm_type): one type for every
/// layer, as "p2p", "all_gather" (Transformer Engine's spelling; Megatron-LM's help says
/// "allgather", also read), "a2a" or "a2a+p2p", space-separated per layer where all are the same.
/// Throws std::invalid_argument naming the rule for layers of different types or an unknown type.
models::CpComm megatron_cp_comm(std::string_view text);

/// The all-to-all group of a2a+p2p from Megatron-Core's hierarchical_context_parallel_sizes ("a b"
/// as --hierarchical-context-parallel-sizes takes it, or "[a, b]"): a, where a x b = cp. Throws
/// std::invalid_argument naming the rule otherwise.
std::int64_t megatron_cp_a2a_ranks(std::string_view sizes, std::int64_t cp);

/// The process group whose NCCL options (--nccl-communicator-config-path) hold the communicators a
/// cp_comm_type's exchange runs on: a2a+p2p's all-to-all and ring groups are the hierarchical
/// ones, "hcp"; the others run on the context-parallel group, "cp" (parallel_state.py).
constexpr std::string_view megatron_cp_process_group(models::CpComm comm) {
  return comm == models::CpComm::a2a_p2p ? "hcp" : "cp";
}

/// The --pipeline-model-parallel-layout of a split (layers of each model chunk, in model order):
/// one '|'-separated stage a chunk, the embedding (E) on the first, the loss (L) on the last, its
/// decoder layers as t*n; a chunk of no layer is its E or L alone ("E|t*8|...|t*8|L").
std::string pipeline_layout_text(const std::vector<std::int64_t>& layers_per_chunk);

}  // namespace clustersim::handoff
