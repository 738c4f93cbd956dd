#include "handoff/frameworks/nemo_rules.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

#include "handoff/frameworks/megatron_lm_rules.hpp"

namespace clustersim::handoff {

bool NemoOverrides::has(std::string_view key) const { return text(key).has_value(); }

std::optional<std::string> NemoOverrides::text(std::string_view key) const {
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (it->first != key) continue;
    const std::string& v = it->second;
    if (v.empty() || v == "null" || v == "~" || v == "None") return std::nullopt;
    return v;
  }
  return std::nullopt;
}

std::int64_t NemoOverrides::integer(std::string_view key, std::int64_t fallback) const {
  const auto t = text(key);
  if (!t) return fallback;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
  if (ec != std::errc{} || end != t->data() + t->size())
    throw std::invalid_argument(fmt::format("{}: must be an integer, got '{}'", key, *t));
  return v;
}

bool NemoOverrides::boolean(std::string_view key, bool fallback) const {
  const auto t = text(key);
  if (!t) return fallback;
  if (*t == "true" || *t == "True" || *t == "TRUE") return true;
  if (*t == "false" || *t == "False" || *t == "FALSE") return false;
  throw std::invalid_argument(fmt::format("{}: must be true or false, got '{}'", key, *t));
}

void NemoOverrides::set(std::string key, std::string value) { values.emplace_back(std::move(key), std::move(value)); }

// Named, not anonymous: megatron_lm_rules.cpp's helpers of the same names share a unity build.
namespace nemo_detail {

constexpr std::array<std::string_view, 8> kBf16Recipes{
    "bf16_mixed",
    "bf16_with_fp8_delayed_scaling_mixed",
    "bf16_with_fp8_current_scaling_mixed",
    "bf16_with_fp8_subchannel_scaling_mixed",
    "bf16_with_mxfp8_mixed",
    "bf16_with_nvfp4_mixed",
    "fp16_mixed",
    "fp16_with_fp8_delayed_scaling_mixed",
};

std::int64_t tp(const NemoOverrides& o) { return o.integer("model.tensor_model_parallel_size", 1); }
std::int64_t pp(const NemoOverrides& o) { return o.integer("model.pipeline_model_parallel_size", 1); }
std::int64_t cp(const NemoOverrides& o) { return o.integer("model.context_parallel_size", 1); }
std::int64_t ep(const NemoOverrides& o) { return o.integer("model.expert_model_parallel_size", 1); }
std::int64_t layers(const NemoOverrides& o) { return o.integer("model.num_layers", 0); }
std::int64_t vp(const NemoOverrides& o) { return o.integer("model.virtual_pipeline_model_parallel_size", 1); }
std::int64_t dp(const NemoOverrides& o) {
  const std::int64_t model = tp(o) * pp(o) * cp(o);
  return model > 0 ? o.world_size / model : 0;
}
std::int64_t microbatches(const NemoOverrides& o) {
  const std::int64_t mb = o.integer("train.micro_batch_size", 1);
  return mb > 0 && dp(o) > 0 ? o.integer("train.global_batch_size", 0) / (mb * dp(o)) : 0;
}
bool uneven(const NemoOverrides& o) {
  return o.has("model.num_layers_in_first_pipeline_stage") || o.has("model.num_layers_in_last_pipeline_stage");
}
bool layout(const NemoOverrides& o) { return o.has("model.pipeline_model_parallel_layout"); }
bool megatron_fsdp(const NemoOverrides& o) {
  return o.boolean("ddp.use_megatron_fsdp", false) || o.boolean("dist.use_megatron_fsdp", false);
}
std::string text_or(const NemoOverrides& o, std::string_view key, std::string fallback) {
  return o.text(key).value_or(std::move(fallback));
}

constexpr std::string_view kConfig = "Megatron-Bridge src/megatron/bridge/training/config.py";
constexpr std::string_view kCommOverlap = "Megatron-Bridge src/megatron/bridge/training/comm_overlap.py";
constexpr std::string_view kMixedPrecision = "Megatron-Bridge src/megatron/bridge/training/mixed_precision.py";
constexpr std::string_view kTransformerConfig = "Megatron-Core megatron/core/transformer/transformer_config.py";
constexpr std::string_view kParallelConfig = "Megatron-Core megatron/core/model_parallel_config.py";
constexpr std::string_view kBlock = "Megatron-Core megatron/core/transformer/transformer_block.py";
constexpr std::string_view kSchedules = "Megatron-Core megatron/core/pipeline_parallel/schedules.py";
constexpr std::string_view kMicrobatches = "Megatron-Core megatron/core/num_microbatches_calculator.py";

const NemoRule kRules[] = {
    {"world-size-divisible", kConfig, "the world size must be a multiple of tensor x pipeline x context parallel sizes",
     "", [](const NemoOverrides& o) {
       const std::int64_t model = tp(o) * pp(o) * cp(o);
       return model > 0 && o.world_size > 0 && o.world_size % model == 0;
     }},
    {"global-batch-divisible", kMicrobatches,
     "train.global_batch_size must be a whole number (at least 1) of train.micro_batch_size x data-parallel size", "",
     [](const NemoOverrides& o) {
       const std::int64_t mb = o.integer("train.micro_batch_size", 1);
       const std::int64_t gb = o.integer("train.global_batch_size", 0);
       return mb > 0 && dp(o) > 0 && gb >= mb * dp(o) && gb % (mb * dp(o)) == 0;
     }},
    {"sequence-lengths-agree", kConfig,
     "model.seq_length must equal dataset.seq_length (set both: the recipe's own may differ)", "",
     [](const NemoOverrides& o) {
       return o.has("model.seq_length") && o.text("model.seq_length") == o.text("dataset.seq_length");
     }},
    {"context-parallel-sequence", kConfig,
     "with context parallelism model.seq_length must be a multiple of 2 x model.context_parallel_size", "",
     [](const NemoOverrides& o) { return cp(o) <= 1 || o.integer("model.seq_length", 0) % (2 * cp(o)) == 0; }},
    {"heads-divisible-by-tp", kTransformerConfig,
     "model.num_attention_heads must be a multiple of model.tensor_model_parallel_size", "",
     [](const NemoOverrides& o) { return tp(o) > 0 && o.integer("model.num_attention_heads", 0) % tp(o) == 0; }},
    {"query-groups-and-tp", kTransformerConfig,
     "model.num_query_groups must be a multiple or a divisor of model.tensor_model_parallel_size", "",
     [](const NemoOverrides& o) {
       const std::int64_t g = o.integer("model.num_query_groups", o.integer("model.num_attention_heads", 1));
       return g > 0 && tp(o) > 0 && (g % tp(o) == 0 || tp(o) % g == 0);
     }},
    {"sequence-parallel-needs-tp", kParallelConfig, "model.sequence_parallel needs tensor parallelism", "",
     [](const NemoOverrides& o) { return !o.boolean("model.sequence_parallel", false) || tp(o) > 1; }},
    {"layers-divisible-by-pipeline", kBlock,
     "without an uneven split or a layout the layers must divide evenly over the pipeline stages, and each stage's "
     "over its model chunks",
     "model.num_layers_in_first/last_pipeline_stage or model.pipeline_model_parallel_layout",
     [](const NemoOverrides& o) {
       if (uneven(o) || layout(o) || pp(o) <= 1) return true;
       return layers(o) % pp(o) == 0 && (layers(o) / pp(o)) % vp(o) == 0;
     }},
    {"uneven-split-stages", kTransformerConfig,
     "model.num_layers_in_first/last_pipeline_stage must be positive multiples of the model chunks per rank and leave "
     "the middle stages an equal whole number of layers (a multiple of the chunks too)",
     "model.pipeline_model_parallel_layout for a split the first/last form cannot say",
     [](const NemoOverrides& o) {
       if (!uneven(o) || layout(o)) return true;
       std::int64_t rest = layers(o), stages = pp(o);
       for (const char* key : {"model.num_layers_in_first_pipeline_stage", "model.num_layers_in_last_pipeline_stage"}) {
         if (!o.has(key)) continue;
         const std::int64_t n = o.integer(key, 0);
         if (n <= 0 || n % vp(o) != 0) return false;
         rest -= n;
         stages -= 1;
       }
       if ((rest != 0) != (stages > 0)) return false;
       return stages <= 0 || (rest % stages == 0 && (rest / stages) % vp(o) == 0);
     }},
    {"layout-excludes-other-splits", kTransformerConfig,
     "model.pipeline_model_parallel_layout cannot be combined with model.num_layers_in_first/last_pipeline_stage", "",
     [](const NemoOverrides& o) { return !(layout(o) && uneven(o)); }},
    {"layout-stages", kTransformerConfig,
     "a pipeline layout must have a multiple of the pipeline size in stages, the embedding first and the loss last, "
     "as many decoder layers as model.num_layers, and match model.virtual_pipeline_model_parallel_size", "",
     [](const NemoOverrides& o) {
       if (!layout(o)) return true;
       const auto stages = pipeline_layout_stages(*o.text("model.pipeline_model_parallel_layout"));
       std::string flat;
       for (const auto& s : stages) flat += s;
       const auto n = static_cast<std::int64_t>(stages.size());
       return pp(o) > 0 && n % pp(o) == 0 && (!o.has("model.virtual_pipeline_model_parallel_size") || n / pp(o) == vp(o)) &&
              !flat.empty() && flat.front() == 'E' && flat.back() == 'L' && std::count(flat.begin(), flat.end(), 'E') == 1 &&
              std::count(flat.begin(), flat.end(), 'L') == 1 && std::count(flat.begin(), flat.end(), 't') == layers(o);
     }},
    {"interleaved-microbatch-groups", kSchedules,
     "with interleaving the micro-batches per step run in groups of model.microbatch_group_size_per_vp_stage (the "
     "pipeline size by default), from the pipeline size to the micro-batches per step, which must be a multiple of "
     "the group or leave a last group of at least the pipeline size", "",
     [](const NemoOverrides& o) {
       if (vp(o) <= 1 && !layout(o)) return true;
       const std::int64_t chunks = layout(o)
                                       ? static_cast<std::int64_t>(
                                             pipeline_layout_stages(*o.text("model.pipeline_model_parallel_layout")).size()) /
                                             std::max<std::int64_t>(pp(o), 1)
                                       : vp(o);
       if (chunks <= 1) return true;
       return models::interleaved_groups_hold(microbatches(o), pp(o),
                                              o.integer("model.microbatch_group_size_per_vp_stage", 0));
     }},
    {"recompute-settings", kTransformerConfig,
     "model.recompute_granularity is full or selective; full needs model.recompute_method (block or uniform) and "
     "model.recompute_num_layers, selective no model.recompute_num_layers", "",
     [](const NemoOverrides& o) {
       const auto g = o.text("model.recompute_granularity");
       if (!g) return true;
       const auto method = o.text("model.recompute_method");
       if (method && *method != "block" && *method != "uniform") return false;
       if (*g == "full") return method.has_value() && o.has("model.recompute_num_layers");
       return *g == "selective" && !o.has("model.recompute_num_layers");
     }},
    {"expert-parallel-needs-experts", kTransformerConfig,
     "model.expert_model_parallel_size above 1 needs model.num_moe_experts, a multiple of it", "",
     [](const NemoOverrides& o) {
       if (ep(o) <= 1) return true;
       const std::int64_t experts = o.integer("model.num_moe_experts", 0);
       return experts > 0 && experts % ep(o) == 0;
     }},
    {"fsdp-one-implementation", kConfig, "dist.use_megatron_fsdp and dist.use_torch_fsdp2 exclude each other", "",
     [](const NemoOverrides& o) { return !(megatron_fsdp(o) && o.boolean("dist.use_torch_fsdp2", false)); }},
    {"megatron-fsdp-checkpoint-format", kConfig,
     "Megatron-FSDP saves and loads only checkpoint.ckpt_format fsdp_dtensor", "",
     [](const NemoOverrides& o) { return !megatron_fsdp(o) || text_or(o, "checkpoint.ckpt_format", "torch_dist") == "fsdp_dtensor"; }},
    {"fsdp-dtensor-needs-megatron-fsdp", kConfig, "checkpoint.ckpt_format fsdp_dtensor is only for Megatron-FSDP", "",
     [](const NemoOverrides& o) {
       return text_or(o, "checkpoint.ckpt_format", "torch_dist") != "fsdp_dtensor" ||
              (megatron_fsdp(o) && !o.boolean("dist.use_torch_fsdp2", false));
     }},
    {"megatron-fsdp-sharding-strategy", kConfig,
     "ddp.data_parallel_sharding_strategy is one of no_shard, optim, optim_grads, optim_grads_params", "",
     [](const NemoOverrides& o) {
       const std::string s = text_or(o, "ddp.data_parallel_sharding_strategy", "no_shard");
       return s == "no_shard" || s == "optim" || s == "optim_grads" || s == "optim_grads_params";
     }},
    {"distributed-optimizer-agrees", kConfig,
     "ddp.use_distributed_optimizer and optimizer.use_distributed_optimizer must say the same (Bridge turns both on "
     "when one is, with a warning)", "",
     [](const NemoOverrides& o) {
       return o.boolean("ddp.use_distributed_optimizer", false) == o.boolean("optimizer.use_distributed_optimizer", false);
     }},
    {"overlap-param-gather-agrees", kConfig,
     "ddp.overlap_param_gather and optimizer.overlap_param_gather must say the same (Bridge turns both on when one "
     "is, with a warning)", "",
     [](const NemoOverrides& o) {
       return o.boolean("ddp.overlap_param_gather", false) == o.boolean("optimizer.overlap_param_gather", false);
     }},
    {"mixed-precision-known", kMixedPrecision,
     "mixed_precision names a registered recipe (bf16_mixed, bf16_with_fp8_delayed_scaling_mixed, "
     "bf16_with_fp8_current_scaling_mixed, bf16_with_fp8_subchannel_scaling_mixed, bf16_with_mxfp8_mixed, ...)", "",
     [](const NemoOverrides& o) {
       const auto name = o.text("mixed_precision");
       return !name || std::find(kBf16Recipes.begin(), kBf16Recipes.end(), *name) != kBf16Recipes.end();
     }},
    {"tp-comm-overlap-needs-tp-and-sp", kCommOverlap,
     "comm_overlap.tp_comm_overlap needs tensor parallelism of at least 2 and model.sequence_parallel (Bridge turns "
     "it off otherwise, with a warning)", "",
     [](const NemoOverrides& o) {
       if (!o.boolean("comm_overlap.tp_comm_overlap", false)) return true;
       return tp(o) >= 2 && o.boolean("model.sequence_parallel", false);
     }},
    {"expert-overlap-conditions", kCommOverlap,
     "comm_overlap.overlap_moe_expert_parallel_comm needs expert parallelism above 1, more than one expert, the "
     "alltoall or flex dispatcher, interleaving when pipelined, and no full recomputation", "",
     [](const NemoOverrides& o) {
       if (!o.boolean("comm_overlap.overlap_moe_expert_parallel_comm", false)) return true;
       const std::string dispatcher = text_or(o, "model.moe_token_dispatcher_type", "allgather");
       return ep(o) > 1 && o.integer("model.num_moe_experts", 0) > 1 && (dispatcher == "alltoall" || dispatcher == "flex") &&
              (pp(o) <= 1 || o.has("model.virtual_pipeline_model_parallel_size") || layout(o)) &&
              text_or(o, "model.recompute_granularity", "") != "full" && !o.has("model.recompute_method") &&
              !o.has("model.recompute_num_layers");
     }},
};

}  // namespace nemo_detail

std::span<const NemoRule> nemo_rules() { return nemo_detail::kRules; }

std::span<const std::string_view> nemo_bf16_precision_recipes() { return nemo_detail::kBf16Recipes; }

std::vector<RuleBreach> nemo_breaches(const NemoOverrides& overrides) {
  std::vector<RuleBreach> breaches;
  for (const NemoRule& rule : nemo_detail::kRules) {
    if (rule.holds(overrides)) continue;
    const bool core = rule.source.starts_with("Megatron-Core");
    breaches.push_back({.rule = std::string(rule.id),
                        .source = fmt::format("{} @{}", rule.source,
                                              core ? kBridgeMegatronCoreShortCommit : kMegatronBridgeShortCommit),
                        .message = std::string(rule.requirement),
                        .alternative = std::string(rule.alternative)});
  }
  return breaches;
}

}  // namespace clustersim::handoff
