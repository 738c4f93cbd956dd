// NeMo 2 / Megatron-Bridge: a layout as overrides of a recipe's ConfigContainer, as a YAML file
// (what process_config_with_overrides merges, the `--config-file` of Megatron-Bridge's example
// scripts) and as the KEY=VALUE overrides of its recipe runner, scripts/training/run_recipe.py;
// checked against Megatron-Bridge's rules (handoff/frameworks/nemo_rules.hpp).
// The model's shape is written out whatever the recipe, so that a recipe of another model (or
// vanilla_gpt_pretrain_config) builds this one.
// Limitations: the learning-rate schedule is the recipe's; bf16 gradient reduction
// (training.grad_dtype) is set on ddp, which a mixed-precision recipe's grad_reduce_in_fp32 may
// override; comm_overlap as KEY=VALUE needs a recipe that has one (the YAML builds it).

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"
#include "handoff/frameworks/megatron_lm_rules.hpp"
#include "handoff/frameworks/nemo_rules.hpp"
#include "handoff/import/yaml_subset.hpp"
#include "models/spec/attention_shape.hpp"
#include "models/spec/moe.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff {

namespace {

constexpr std::string_view kNull = "null";
constexpr std::string_view kGenericRecipe = "vanilla_gpt_pretrain_config";

// Megatron-Bridge's library recipe for a clustersim model preset (src/megatron/bridge/recipes).
std::string_view recipe_of(std::string_view preset) {
  static const std::pair<std::string_view, std::string_view> recipes[] = {
      {"llama3-8b", "llama3_8b_pretrain_config"},       {"llama3-70b", "llama3_70b_pretrain_config"},
      {"llama3-405b", "llama31_405b_pretrain_config"},  {"llama2-7b", "llama2_7b_pretrain_config"},
      {"gpt3-175b", "gpt3_175b_pretrain_config"},       {"deepseek-v3", "deepseek_v3_pretrain_config"},
      {"kimi-k2", "kimi_k2_pretrain_config"},           {"qwen3-30b-a3b", "qwen3_30b_a3b_pretrain_config"},
      {"qwen3-235b-a22b", "qwen3_235b_a22b_pretrain_config"}, {"gpt-oss-20b", "gpt_oss_20b_pretrain_config"},
      {"gpt-oss-120b", "gpt_oss_120b_pretrain_config"},
  };
  for (const auto& [name, recipe] : recipes)
    if (name == preset) return recipe;
  return kGenericRecipe;
}

std::string boolean(bool b) { return b ? "true" : "false"; }
std::string integer_or_null(std::int64_t n, bool present) { return present ? std::to_string(n) : std::string(kNull); }

std::string_view mixed_precision(const models::TrainingSpec& t) {
  if (t.precision == models::Precision::nvfp4) return "bf16_with_nvfp4_mixed";
  if (t.precision != models::Precision::fp8) return "bf16_mixed";
  switch (t.fp8_recipe) {
    case models::Fp8Recipe::delayed: return "bf16_with_fp8_delayed_scaling_mixed";
    case models::Fp8Recipe::current: return "bf16_with_fp8_current_scaling_mixed";
    case models::Fp8Recipe::blockwise: return "bf16_with_fp8_subchannel_scaling_mixed";
    case models::Fp8Recipe::mxfp8: return "bf16_with_mxfp8_mixed";
  }
  return "bf16_mixed";
}

NemoOverrides overrides_of(const models::TransformerSpec& m, const models::ClusterSpec& cluster,
                           const planning::Layout& layout, std::vector<std::string>& notes) {
  const auto& p = layout.parallelism;
  const auto& t = layout.training;
  NemoOverrides o;
  o.world_size = cluster.num_gpus;
  const auto set = [&](std::string key, std::string value) { o.set(std::move(key), std::move(value)); };
  const auto num = [&](std::string key, std::int64_t v) { o.set(std::move(key), std::to_string(v)); };

  num("model.tensor_model_parallel_size", p.tp);
  num("model.pipeline_model_parallel_size", p.pp);
  // The pipeline split clustersim simulates (as in megatron_args.cpp): even, first/last, or a layout.
  std::string split_layout;
  std::int64_t first = 0, last = 0;
  if (p.pp > 1) {
    const std::vector<std::int64_t> split = models::chunk_layers(m.layers, p);
    const bool even = std::all_of(split.begin(), split.end(), [&](std::int64_t n) { return n == split.front(); });
    const bool middle_equal =
        p.vp == 1 && split.front() > 0 && split.back() > 0 &&
        std::all_of(split.begin() + 1, split.end() - 1, [&](std::int64_t n) { return n == split[1]; });
    if (!even && middle_equal) {
      first = split.front();
      last = split.back();
    } else if (!even) {
      split_layout = pipeline_layout_text(split);
    }
  }
  set("model.virtual_pipeline_model_parallel_size", integer_or_null(p.vp, p.vp > 1));
  set("model.microbatch_group_size_per_vp_stage", integer_or_null(p.microbatch_group, p.microbatch_group > 0));
  set("model.pipeline_model_parallel_layout", split_layout.empty() ? std::string(kNull) : split_layout);
  set("model.num_layers_in_first_pipeline_stage", integer_or_null(first, first > 0));
  set("model.num_layers_in_last_pipeline_stage", integer_or_null(last, last > 0));
  num("model.context_parallel_size", p.cp);
  set("model.cp_comm_type", p.cp > 1 ? std::string(models::cp_comm_name(p.cp_comm)) : std::string(kNull));
  set("model.hierarchical_context_parallel_sizes", p.cp > 1 && p.cp_comm == models::CpComm::a2a_p2p
                                                       ? fmt::format("[{}, {}]", p.cp_a2a_ranks, p.cp / p.cp_a2a_ranks)
                                                       : std::string(kNull));
  set("model.sequence_parallel", boolean(p.sp && p.tp > 1));
  if (models::is_moe(m)) {
    num("model.expert_model_parallel_size", p.ep);
    num("model.expert_tensor_parallel_size", p.etp);
  }
  num("model.seq_length", t.seq_len);

  num("model.num_layers", m.layers);
  num("model.hidden_size", m.hidden);
  num("model.ffn_hidden_size", m.ffn_hidden);
  num("model.num_attention_heads", m.heads);
  if (m.attention == models::AttentionKind::mla) {
    set("model.multi_latent_attention", "true");
    set("model.q_lora_rank", integer_or_null(m.q_lora_rank, m.q_lora_rank > 0));
    num("model.kv_lora_rank", m.kv_lora_rank);
    num("model.qk_head_dim", m.qk_nope_head_dim);
    num("model.qk_pos_emb_head_dim", m.qk_rope_head_dim);
    num("model.v_head_dim", m.v_head_dim);
    notes.push_back("latent attention fields exist only on an MLA model provider (DeepSeek's and Kimi's recipes)");
  } else {
    if (m.alibi)
      notes.push_back("model.alibi is not exported: Megatron-Core has no ALiBi (model.position_embedding_type: "
                      "learned_absolute, rope, mrope or none)");
    num("model.num_query_groups", m.kv_heads);
    if (m.head_dim > 0 && m.head_dim * m.heads != m.hidden) num("model.kv_channels", m.head_dim);
  }
  if (m.sliding_window > 0 && m.sliding_window_layers > 0) {
    set("model.window_size", fmt::format("[{}, 0]", m.sliding_window - 1));  // as megatron_args.cpp
    if (m.sliding_window_layers > 1) {
      std::string list = "[";
      for (std::int64_t i = 0; i < m.layers; ++i) list += fmt::format("{}{}", i ? ", " : "", i % m.sliding_window_layers == 0 ? 1 : 0);
      set("model.window_attn_skip_freq", list + "]");
    }
  }
  const bool swiglu = m.mlp == models::MlpKind::swiglu;
  set("model.gated_linear_unit", boolean(swiglu));
  set("model.activation_func", swiglu ? "silu" : "gelu");
  set("model.normalization", swiglu ? "RMSNorm" : "LayerNorm");
  set("model.position_embedding_type", swiglu ? "rope" : "learned_absolute");
  set("model.add_bias_linear", boolean(!swiglu || m.expert_bias));
  set("model.share_embeddings_and_output_weights", boolean(m.tied_embeddings));
  if (m.qk_norm) set("model.qk_layernorm", "true");
  num("model.vocab_size", m.vocab);
  set("model.hidden_dropout", fmt::format("{}", m.dropout));
  set("model.attention_dropout", fmt::format("{}", m.dropout));
  if (models::is_moe(m)) {
    num("model.num_moe_experts", m.experts);
    num("model.moe_router_topk", m.experts_per_token);
    num("model.moe_ffn_hidden_size", m.expert_ffn_hidden);
    set("model.moe_shared_expert_intermediate_size",
        integer_or_null(m.shared_experts * m.expert_ffn_hidden, m.shared_experts > 0));
    if (m.dense_layers == 0) {
      num("model.moe_layer_freq", m.moe_layer_freq);
    } else {
      std::string list = "[";
      for (std::int64_t i = 0; i < m.layers; ++i) list += fmt::format("{}{}", i ? ", " : "", models::is_moe_layer(m, i) ? 1 : 0);
      set("model.moe_layer_freq", list + "]");
    }
    set("model.moe_grouped_gemm", "true");
    const bool deepep = t.moe_dispatcher == models::MoeDispatcher::deepep;
    set("model.moe_token_dispatcher_type", deepep ? "flex" : "alltoall");
    if (deepep) set("model.moe_flex_dispatcher_backend", "deepep");
    set("model.moe_expert_capacity_factor",
        t.moe_capacity_factor > 0 ? fmt::format("{}", t.moe_capacity_factor) : std::string(kNull));
    set("model.moe_pad_expert_input_to_capacity", boolean(t.moe_capacity_factor > 0 && t.moe_pad_to_capacity));
    // Under fp8 or fp4 each expert's rows padded in the routing map, as the model pads them.
    if (models::low_precision_gemms(t.precision)) set("model.moe_router_padding_for_quantization", "true");
  }
  switch (t.recompute) {
    case models::Recompute::none:
      set("model.recompute_granularity", std::string(kNull));
      break;
    case models::Recompute::op:
      notes.push_back("training.recompute op (torchtitan's) has no Megatron-Bridge form: selective recomputation");
      [[fallthrough]];
    case models::Recompute::selective:
      set("model.recompute_granularity", "selective");
      break;
    case models::Recompute::full:
      set("model.recompute_granularity", "full");
      break;
  }
  set("model.recompute_method", t.recompute == models::Recompute::full ? "uniform" : std::string(kNull));
  set("model.recompute_num_layers", t.recompute == models::Recompute::full ? "1" : std::string(kNull));
  set("model.cuda_graph_impl", t.cuda_graphs ? "local" : "none");

  num("train.global_batch_size", t.global_batch);
  num("train.micro_batch_size", t.micro_batch);
  const double step_tokens = static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len);
  const auto iters = static_cast<std::int64_t>(std::ceil(t.tokens / step_tokens));
  num("train.train_iters", iters);
  notes.push_back(fmt::format("training.tokens {} is train.train_iters {} of {} x {} tokens; the learning-rate schedule "
                              "is the recipe's", t.tokens, iters, t.global_batch, t.seq_len));
  num("dataset.seq_length", t.seq_len);
  set("tokenizer.tokenizer_type", "NullTokenizer");
  num("tokenizer.vocab_size", m.vocab);

  // Data-parallel sharding, as for Megatron-LM: the distributed optimizer (ZeRO-1), Megatron-FSDP
  // optim_grads (ZeRO-2), torch FSDP2 or Megatron-FSDP optim_grads_params (ZeRO-3).
  const bool fsdp2 = p.zero >= 3 && p.sharding == models::ShardingFramework::fsdp2;
  const bool mfsdp = p.zero == 2 || (p.zero >= 3 && !fsdp2);
  const bool dist_opt = p.zero == 1 || mfsdp;
  const bool overlap_grad = t.overlap_grad_reduce && !fsdp2;
  const bool overlap_param = overlap_grad && t.overlap_param_gather && dist_opt;
  set("ddp.use_distributed_optimizer", boolean(dist_opt));
  set("ddp.overlap_grad_reduce", boolean(overlap_grad));
  set("ddp.overlap_param_gather", boolean(overlap_param));
  set("ddp.use_megatron_fsdp", boolean(mfsdp));
  set("ddp.data_parallel_sharding_strategy", !mfsdp ? "no_shard" : p.zero == 2 ? "optim_grads" : "optim_grads_params");
  set("ddp.grad_reduce_in_fp32", boolean(t.grad_dtype == models::GradDtype::fp32));
  if (t.grad_bucket_params > 0) num("ddp.bucket_size", t.grad_bucket_params);
  set("optimizer.use_distributed_optimizer", boolean(dist_opt));
  set("optimizer.overlap_param_gather", boolean(overlap_param));
  set("dist.use_megatron_fsdp", boolean(mfsdp));
  set("dist.use_torch_fsdp2", boolean(fsdp2));
  set("checkpoint.ckpt_format", mfsdp ? "fsdp_dtensor" : "torch_dist");
  if (!fsdp2 && p.zero < 2) {
    if (t.grad_accumulation == models::GradAccumulation::main_grad_add)
      set("model.gradient_accumulation_fusion", "false");
    if (t.grad_accumulation == models::GradAccumulation::autograd ||
        t.grad_accumulation == models::GradAccumulation::fp32_cast_add)
      notes.push_back(fmt::format("training.grad_accumulation {} has no Megatron-Bridge form: Megatron-Core fuses the "
                                  "accumulation into the weight-gradient GEMM, or adds into main_grad with "
                                  "model.gradient_accumulation_fusion false (main_grad_add)",
                                  models::grad_accumulation_name(t.grad_accumulation)));
  }
  if (fsdp2) {
    set("model.gradient_accumulation_fusion", "false");
    notes.push_back("torch FSDP2: gradient accumulation fusion off, as Megatron-LM requires of it; Megatron-Bridge's "
                    "config checks do not refuse FSDP2 with pipeline parallelism as Megatron-LM's arguments.py does");
  }
  if (p.zero == 2) notes.push_back("ZeRO-2 is Megatron-FSDP's optim_grads strategy");
  if (p.shard_group > 0) notes.push_back("hybrid sharding groups (parallelism.shard_group) are not exported");
  if (p.cp > 1 && p.cp_max_ctas > 0)
    notes.push_back(fmt::format("parallelism.cp_max_ctas {} is not exported: Megatron-Core takes it from the YAML its "
                                "nccl_communicator_config_path names ({}: max_ctas {}), as the Megatron-LM export "
                                "writes it",
                                p.cp_max_ctas, megatron_cp_process_group(p.cp_comm), p.cp_max_ctas));
  if (p.dp * p.cp > 1 && p.dp_max_ctas > 0)
    notes.push_back(fmt::format("parallelism.dp_max_ctas {} is not exported: Megatron-Core takes it from the YAML its "
                                "nccl_communicator_config_path names (dp and dp_cp: max_ctas {}), as the Megatron-LM "
                                "export writes it",
                                p.dp_max_ctas, p.dp_max_ctas));
  // A CommOverlapConfig of the layout's own (_target_: the override reader builds it), so that a
  // recipe's (Llama 3 70B's turns TP overlap on) does not stay.
  set("comm_overlap._target_", "megatron.bridge.training.comm_overlap.CommOverlapConfig");
  set("comm_overlap.tp_comm_overlap", boolean(p.tp_comm_overlap));
  set("comm_overlap.overlap_moe_expert_parallel_comm", boolean(p.ep_comm_overlap));
  set("mixed_precision", std::string(mixed_precision(t)));
  if (t.precision == models::Precision::fp8 && !t.fp8_backward)
    notes.push_back("training.fp8_backward false has no mixed-precision recipe of its own");
  if (t.fp8_attention)
    notes.push_back("training.fp8_attention is not exported: set the MixedPrecisionConfig's "
                    "fp8_dot_product_attention in the recipe");
  if (t.fp8_param_gather)
    notes.push_back("training.fp8_param_gather is not exported: the mixed-precision recipe named here gathers 16-bit "
                    "parameters; set its MixedPrecisionConfig's fp8_param_gather in the recipe");
  if (t.bf16_params)
    notes.push_back("training.bf16_params is not exported: Megatron-Core's optimizer keeps fp32 main parameters");
  if (t.defer_embedding_wgrad) {
    set("model.defer_embedding_wgrad_compute", "true");
    if (t.wgrad_deferral_limit > 0) num("model.wgrad_deferral_limit", t.wgrad_deferral_limit);
  }
  note_fsdp_sync_keys(t, "Megatron-Bridge", notes);
  note_repeat_kv(t, "Megatron-Bridge", notes);
  if (t.pipeline_runs > 1)
    notes.push_back(fmt::format("training.pipeline_runs {} is not exported: Megatron-Core runs a step's micro-batches "
                                "as one pipeline schedule",
                                t.pipeline_runs));
  if (!t.fp32_loss)
    notes.push_back("training.fp32_loss false has no Megatron-Bridge setting: Megatron-Core's cross-entropy upcasts to fp32");
  if (t.cross_entropy == models::CrossEntropyKernel::eager)
    notes.push_back("training.cross_entropy eager has no Megatron-Bridge setting: Megatron-Core's cross-entropy works in "
                    "place (inplace), or fused with model.cross_entropy_loss_fusion");
  else
    set("model.cross_entropy_loss_fusion", boolean(t.cross_entropy == models::CrossEntropyKernel::fused));
  if (models::rotary_positions(m)) set("model.apply_rope_fusion", boolean(t.rope_fusion));
  return o;
}

bool looks_like_number(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size();
}

// A value as YAML writes it: numbers, booleans, null and [lists] plain, strings as yaml_scalar.
std::string yaml_value(const std::string& v) {
  if (v == "true" || v == "false" || v == kNull || looks_like_number(v) || (v.starts_with('[') && v.ends_with(']'))) return v;
  return yaml_scalar(v);
}

std::string yaml_text(const NemoOverrides& o, std::string_view recipe) {
  std::string text = fmt::format("# Megatron-Bridge overrides of {} (written by clustersim; Megatron-Bridge @{})\n",
                                 recipe, kMegatronBridgeShortCommit);
  // Each top-level section once, in the order it first appears (a YAML key may not repeat).
  std::vector<std::pair<std::string, std::string>> ordered;
  std::vector<std::string> sections;
  for (const auto& kv : o.values) {
    const std::string section = kv.first.substr(0, kv.first.find('.'));
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) sections.push_back(section);
  }
  for (const std::string& section : sections)
    for (const auto& kv : o.values)
      if (kv.first.substr(0, kv.first.find('.')) == section) ordered.push_back(kv);
  std::vector<std::string> open;  // the mapping path of the previous key
  for (const auto& [key, value] : ordered) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const std::size_t dot = key.find('.', start);
      parts.push_back(key.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    std::size_t common = 0;
    while (common < open.size() && common + 1 < parts.size() && open[common] == parts[common]) ++common;
    for (std::size_t d = common; d + 1 < parts.size(); ++d) text += std::string(2 * d, ' ') + parts[d] + ":\n";
    open.assign(parts.begin(), parts.end() - 1);
    text += fmt::format("{}{}: {}\n", std::string(2 * (parts.size() - 1), ' '), parts.back(), yaml_value(value));
  }
  return text;
}

// A KEY=VALUE override of run_recipe.py (Hydra syntax), quoted for bash.
std::string cli_override(const std::string& key, const std::string& value) {
  std::string v = value;
  if (!(v == "true" || v == "false" || v == kNull || looks_like_number(v) || v.starts_with('[')) &&
      v.find_first_of("|*()[]{}:=,' ") != std::string::npos)
    v = "\"" + v + "\"";  // a Hydra quoted string
  const std::string word = key + "=" + v;
  return word.find_first_of("|*()[]{}\"' ") == std::string::npos ? word : "'" + word + "'";
}

std::string launch_text(const NemoOverrides& o, const models::ClusterSpec& cluster, std::string_view recipe) {
  const std::int64_t nodes = cluster.num_gpus / cluster.gpus_per_node;
  std::string text = "#!/bin/bash\n";
  text += fmt::format("torchrun --nnodes {} --nproc-per-node {}", nodes, cluster.gpus_per_node);
  if (nodes > 1) text += " --node-rank ${NODE_RANK} --master-addr ${MASTER_ADDR} --master-port 29500";
  text += fmt::format(" scripts/training/run_recipe.py \\\n  --recipe {} \\\n  --dataset mock", recipe);
  for (const auto& [key, value] : o.values) {
    // KEY=VALUE can only set fields of a comm_overlap the recipe has: those the layout turns on.
    if (key.starts_with("comm_overlap.") && value != "true") continue;
    text += " \\\n  " + cli_override(key, value);
  }
  return text + "\n";
}

}  // namespace

LaunchConfig export_nemo(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                         const planning::Layout& layout) {
  LaunchConfig config{.framework = Framework::nemo,
                      .source = fmt::format("NVIDIA-NeMo/Megatron-Bridge @{}", kMegatronBridgeShortCommit)};
  const std::string_view recipe = recipe_of(model.name);
  if (recipe == kGenericRecipe)
    config.notes.push_back(fmt::format("no Megatron-Bridge recipe of {}: {} with the model's shape overridden",
                                       model.name, kGenericRecipe));
  const NemoOverrides overrides = overrides_of(model, cluster, layout, config.notes);
  config.breaches = nemo_breaches(overrides);
  if (cluster.num_gpus / cluster.gpus_per_node > 1)
    config.notes.push_back("run the launch on every node with NODE_RANK and MASTER_ADDR set");
  config.notes.push_back("comm_overlap: overrides.yaml replaces the recipe's (a CommOverlapConfig by _target_); "
                         "run_recipe.sh's KEY=VALUE form sets only what the layout turns on, in the recipe's own, and "
                         "leaves the rest of it (Llama 3 70B's TP overlap) as the recipe has it");
  if (!config.breaches.empty()) return config;
  config.files.push_back({.name = "overrides.yaml", .content = yaml_text(overrides, recipe)});
  config.files.push_back({.name = "run_recipe.sh", .content = launch_text(overrides, cluster, recipe)});
  return config;
}

}  // namespace clustersim::handoff
