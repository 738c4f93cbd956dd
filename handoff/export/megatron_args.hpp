#pragma once
/// The Megatron-LM arguments of a model and layout (pretrain_gpt.py flag names at the commit of
/// handoff/frameworks/megatron_lm_rules.hpp): the model's shape, the parallel sizes and the
/// pipeline split, batch sizes, recomputation, the data-parallel sharding, precision, and the
/// environment the launch needs; and the launch script that runs them.
/// The pipeline split is the one clustersim simulates (models::split_layers): even splits as
/// --num-layers-per-virtual-pipeline-stage (interleaved) or nothing; an uneven one without
/// interleaving as --decoder-first/last-pipeline-num-layers where the middle stages are equal,
/// else (and always with interleaving) as --pipeline-model-parallel-layout, one '|'-separated
/// stage per model chunk.
/// Limitations: the optimizer's hyperparameters (learning rate and its schedule) are no layout
/// setting and are given placeholder values; the data is Megatron-LM's mock data with a null
/// tokenizer of the model's vocabulary; normalisation and position embedding follow the MLP
/// (SwiGLU models as Llama: RMSNorm, rotary; GeLU models as GPT-3: LayerNorm, learned).

#include <string>
#include <vector>

#include "handoff/frameworks/megatron_lm_rules.hpp"
#include "models/spec/cluster_spec.hpp"
#include "models/spec/transformer_spec.hpp"
#include "planning/search/layout_search.hpp"

namespace clustersim::handoff {

/// How ZeRO-3 (parameter sharding) is run; ZeRO-2 is always Megatron-FSDP's optim_grads.
enum class MegatronSharding {
  as_layout,      // parallelism.sharding: torch FSDP2 for fsdp2, Megatron-FSDP otherwise
  megatron_fsdp,  // Megatron-FSDP optim_grads_params whatever parallelism.sharding says
};

struct MegatronLaunch {
  MegatronArguments arguments{};     // world_size = nodes x GPUs per node
  std::int64_t nnodes = 1;
  std::int64_t nproc_per_node = 8;
  std::vector<std::string> notes{};  // what maps only approximately
};

/// The launch of `layout` (valid for clustersim) for `model` on `cluster`.
MegatronLaunch megatron_launch(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                               const planning::Layout& layout, MegatronSharding sharding = MegatronSharding::as_layout);

/// The file Megatron-Core's --nccl-communicator-config-path names (parallel_state.get_nccl_options:
/// per process group, `min_ctas`, `max_ctas`, `cga_cluster_size`): the CTA limits of the group the
/// context-parallel exchange runs on (megatron_cp_process_group) and of the data-parallel groups (dp
/// and dp_cp) where the layout sets them (ParallelismSpec::cp_max_ctas, dp_max_ctas), else empty.
inline constexpr std::string_view kNcclCommunicatorConfigFile = "nccl_communicator_config.yaml";
std::string nccl_communicator_config(const models::ParallelismSpec& p);

/// The bash script: `export` lines for the environment, then `torchrun --nnodes N
/// --nproc-per-node G ... pretrain_gpt.py \` and one flag per line, nothing but flags inside the
/// continued command (a comment there would end it).
std::string megatron_script(const MegatronLaunch& launch);

/// "--window-attn-skip-freq" of a model whose every sliding_window_layers-th layer (from the
/// first) is windowed: "2", a list expression ("([1]+[0]*3)*20"), or "" where every layer is.
std::string window_layer_pattern(const models::TransformerSpec& model);

/// "--moe-layer-freq" pattern of a model's MoE and dense layers ("([0]*3+[1]*58)"), or its
/// integer form ("1", "2") where the layers follow one period from the first.
std::string moe_layer_pattern(const models::TransformerSpec& model);

}  // namespace clustersim::handoff
