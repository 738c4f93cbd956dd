// Megatron-DeepSpeed: ds_config.json and the `deepspeed` launch of pretrain_gpt.py with model and
// layout flags (handoff/frameworks/deepspeed_rules.hpp says what maps to what), checked by parsing
// the written script back and applying DeepSpeed's and Megatron-DeepSpeed's rules.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"
#include "handoff/frameworks/deepspeed_rules.hpp"
#include "models/spec/attention_shape.hpp"

namespace clustersim::handoff {

namespace deepspeed {

using Json = nlohmann::ordered_json;

Json ds_config(const planning::Layout& layout, const models::ClusterSpec& cluster) {
  const auto& p = layout.parallelism;
  const auto& t = layout.training;
  (void)cluster;
  Json zero{{"stage", p.zero}};
  if (p.zero >= 1) {
    zero["overlap_comm"] = t.overlap_grad_reduce;
    zero["contiguous_gradients"] = true;
  }
  Json config{{"train_batch_size", t.global_batch},
              {"train_micro_batch_size_per_gpu", t.micro_batch},
              {"gradient_accumulation_steps", t.global_batch / (p.dp * t.micro_batch)},
              {"zero_optimization", zero},
              {"bf16", {{"enabled", true}}}};
  if (t.recompute == models::Recompute::full)
    config["activation_checkpointing"] = {{"partition_activations", false}, {"contiguous_memory_optimization", false}};
  return config;
}

std::vector<std::string> megatron_deepspeed_flags(const models::TransformerSpec& model, const planning::Layout& layout) {
  const auto& p = layout.parallelism;
  const auto& t = layout.training;
  std::vector<std::string> f{fmt::format("--tensor-model-parallel-size {}", p.tp)};
  if (p.pp > 1) f.push_back(fmt::format("--pipeline-model-parallel-size {}", p.pp));
  else f.emplace_back("--no-pipeline-parallel");
  if (p.sp && p.tp > 1) f.emplace_back("--sequence-parallel");
  f.push_back(fmt::format("--num-layers {}", model.layers));
  f.push_back(fmt::format("--hidden-size {}", model.hidden));
  f.push_back(fmt::format("--ffn-hidden-size {}", model.ffn_hidden));
  f.push_back(fmt::format("--num-attention-heads {}", model.heads));
  if (model.kv_heads != model.heads) f.push_back(fmt::format("--num-key-value-heads {}", model.kv_heads));
  f.push_back(fmt::format("--seq-length {}", t.seq_len));
  f.push_back(fmt::format("--max-position-embeddings {}", t.seq_len));
  f.emplace_back("--tokenizer-type NullTokenizer");
  f.push_back(fmt::format("--vocab-size {}", model.vocab));
  if (model.mlp == models::MlpKind::swiglu) {
    // Llama-style blocks, as examples_deepspeed/pretrain_llama2_distributed.sh sets them.
    f.emplace_back("--swiglu");
    f.emplace_back("--normalization rmsnorm");
    f.emplace_back("--use-rotary-position-embeddings");
    if (!model.expert_bias) f.emplace_back("--disable-bias-linear");  // all linear layers' biases or none
  }
  if (!model.tied_embeddings) f.emplace_back("--untie-embeddings-and-output-weights");
  f.push_back(fmt::format("--attention-dropout {}", model.dropout));
  f.push_back(fmt::format("--hidden-dropout {}", model.dropout));
  // Megatron-DeepSpeed's fused attention is the flash-attn package; without the flag it runs its
  // unfused core attention (megatron/model/transformer.py).
  if (t.attention != models::AttentionKernel::unfused) f.emplace_back("--use-flash-attn-v2");
  f.push_back(fmt::format("--micro-batch-size {}", t.micro_batch));
  f.push_back(fmt::format("--global-batch-size {}", t.global_batch));
  f.push_back(fmt::format("--train-iters {}", static_cast<std::int64_t>(std::ceil(
                                                  t.tokens / (static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len))))));
  switch (t.recompute) {
    case models::Recompute::none: break;
    case models::Recompute::selective: f.emplace_back("--recompute-granularity selective"); break;
    case models::Recompute::full:
      f.emplace_back("--recompute-granularity full");
      f.emplace_back("--recompute-method uniform");
      f.emplace_back("--recompute-num-layers 1");
      f.emplace_back("--deepspeed-activation-checkpointing");
      break;
    case models::Recompute::op: break;  // refused by map_layout
  }
  f.emplace_back("--bf16");
  if (t.precision == models::Precision::fp8) {
    f.emplace_back("--transformer-impl transformer_engine");
    f.emplace_back("--fp8-hybrid");
  }
  f.emplace_back("--deepspeed");
  f.emplace_back("--deepspeed_config ds_config.json");
  f.push_back(fmt::format("--zero-stage {}", p.zero));
  return f;
}

std::string launch_script(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                          const planning::Layout& layout) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# Megatron-DeepSpeed @{} with DeepSpeed @{}, written by clustersim\n", kMegatronDeepSpeedCommit,
                   kDeepSpeedCommit);
  if (layout.parallelism.sp && layout.parallelism.tp > 1)
    s += "# --sequence-parallel needs one CUDA connection (megatron/arguments.py)\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  s += "# Data, optimizer and checkpoint flags (--data-path, --lr, --save, ...) are the run's own: add them.\n";
  s += "cat <<EOT > ds_config.json\n" + ds_config(layout, cluster).dump(2) + "\nEOT\n";
  s += fmt::format("deepspeed --num_nodes {} --num_gpus {} pretrain_gpt.py", cluster.num_gpus / cluster.gpus_per_node,
                   cluster.gpus_per_node);
  for (const std::string& flag : megatron_deepspeed_flags(model, layout)) s += " \\\n  " + flag;
  return s + "\n";
}

}  // namespace deepspeed

LaunchConfig export_deepspeed(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                              const planning::Layout& layout) {
  deepspeed::Mapping mapping = deepspeed::map_layout(model, cluster, layout);
  LaunchConfig config{.framework = Framework::deepspeed,
                      .source = fmt::format("deepspeedai/DeepSpeed @{}, deepspeedai/Megatron-DeepSpeed @{}",
                                            deepspeed::kDeepSpeedCommit, deepspeed::kMegatronDeepSpeedCommit),
                      .breaches = std::move(mapping.breaches),
                      .notes = std::move(mapping.notes)};
  if (model.alibi)
    config.notes.push_back("model.alibi is not exported: this Megatron-DeepSpeed has rotary or learned positions "
                           "only (BigScience's fork, which trained BLOOM, takes --position-embedding-type alibi)");
  if (model.qk_norm)
    config.notes.push_back("model.qk_norm is not exported: Megatron-DeepSpeed's GPT model has no QK-Norm");
  if (layout.training.rope_fusion && layout.training.elementwise == models::ElementwiseKernels::fused &&
      models::rotary_positions(model))
    config.notes.push_back("training.rope_fusion is not exported: Megatron-DeepSpeed applies RoPE op by op "
                           "(megatron/model/rotary_pos_embedding.py), as training.rope_fusion false models it");
  if (layout.training.pipeline_runs > 1)
    config.notes.push_back(fmt::format("training.pipeline_runs {} is not exported: DeepSpeed's pipeline engine runs a "
                                       "step's micro-batches as one schedule",
                                       layout.training.pipeline_runs));
  note_fsdp_sync_keys(layout.training, "DeepSpeed", config.notes);
  note_repeat_kv(layout.training, "DeepSpeed", config.notes);
  if (layout.training.defer_embedding_wgrad)
    config.notes.push_back("training.defer_embedding_wgrad is not exported: Megatron-DeepSpeed's pipeline engine has no "
                           "deferral of the output layer's weight gradients (Megatron-Core's "
                           "--defer-embedding-wgrad-compute)");
  const std::string script = deepspeed::launch_script(model, cluster, mapping.layout);
  // Checked as the launcher would run it: the written script parsed back.
  for (RuleBreach& b : deepspeed::check_launch(deepspeed::parse_launch_script(script, "pretrain_gpt.sh"))) {
    const bool known = std::any_of(config.breaches.begin(), config.breaches.end(),
                                   [&](const RuleBreach& seen) { return seen.rule == b.rule; });
    if (!known) config.breaches.push_back(std::move(b));
  }
  config.files.push_back({.name = "ds_config.json", .content = deepspeed::ds_config(mapping.layout, cluster).dump(2) + "\n"});
  config.files.push_back({.name = "pretrain_gpt.sh", .content = script});
  return config;
}

}  // namespace clustersim::handoff
