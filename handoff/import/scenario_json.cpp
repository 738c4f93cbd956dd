#include "handoff/import/scenario_json.hpp"

#include <fmt/format.h>

#include "scenarios/presets.hpp"

namespace clustersim::handoff {

std::optional<std::string> matching_model_preset(const models::TransformerSpec& model, bool ignore_vocab) {
  for (const std::string& name : scenarios::model_preset_names()) {
    models::TransformerSpec preset = scenarios::model_preset(name);
    models::TransformerSpec candidate = model;
    candidate.name = preset.name;
    if (ignore_vocab) candidate.vocab = preset.vocab;
    if (candidate == preset) return name;
  }
  return std::nullopt;
}

ImportedCluster imported_cluster(const ImportOptions& options, std::int64_t config_nodes,
                                 std::int64_t config_gpus_per_node, std::int64_t config_world_size,
                                 std::vector<std::string>& notes) {
  ImportedCluster c;
  c.gpu = options.gpu.empty() ? "h100-sxm" : options.gpu;
  if (options.gpu.empty()) notes.push_back("GPU: the configuration does not say; h100-sxm (give --gpu)");
  c.gpus_per_node = options.gpus_per_node > 0 ? options.gpus_per_node
                    : config_gpus_per_node > 0 ? config_gpus_per_node
                                               : 8;
  if (options.nodes > 0) {
    c.nodes = options.nodes;
  } else if (config_nodes > 0) {
    c.nodes = config_nodes;
  } else if (config_world_size > 0 && config_world_size % c.gpus_per_node == 0) {
    c.nodes = config_world_size / c.gpus_per_node;
  } else {
    c.nodes = 1;
    notes.push_back("nodes: the configuration does not say; one node (give --nodes)");
  }
  return c;
}

namespace {

std::string_view mlp_name(models::MlpKind k) { return k == models::MlpKind::swiglu ? "swiglu" : "gelu"; }
std::string_view attention_name(models::AttentionKind k) {
  switch (k) {
    case models::AttentionKind::mha: return "mha";
    case models::AttentionKind::gqa: return "gqa";
    case models::AttentionKind::mla: return "mla";
  }
  return "gqa";
}

}  // namespace

nlohmann::ordered_json scenario_json(std::string_view name, const models::TransformerSpec& m,
                                     const std::optional<std::string>& preset, const ImportedCluster& cluster,
                                     const models::ParallelismSpec& p, const models::TrainingSpec& t) {
  nlohmann::ordered_json model;
  if (preset) {
    model["preset"] = *preset;
  } else {
    model = {{"layers", m.layers},
             {"hidden", m.hidden},
             {"ffn_hidden", m.ffn_hidden},
             {"heads", m.heads},
             {"kv_heads", m.kv_heads},
             {"head_dim", m.head_dim},
             {"attention", attention_name(m.attention)},
             {"q_lora_rank", m.q_lora_rank},
             {"kv_lora_rank", m.kv_lora_rank},
             {"qk_rope_head_dim", m.qk_rope_head_dim},
             {"qk_nope_head_dim", m.qk_nope_head_dim},
             {"v_head_dim", m.v_head_dim},
             {"sliding_window", m.sliding_window},
             {"sliding_window_layers", m.sliding_window_layers},
             {"vocab", m.vocab},
             {"mlp", mlp_name(m.mlp)},
             {"tied_embeddings", m.tied_embeddings},
             {"dropout", m.dropout},
             {"experts", m.experts},
             {"experts_per_token", m.experts_per_token},
             {"shared_experts", m.shared_experts},
             {"expert_ffn_hidden", m.expert_ffn_hidden},
             {"expert_bias", m.expert_bias},
             {"dense_layers", m.dense_layers},
             {"moe_layer_freq", m.moe_layer_freq}};
  }
  return {{"name", name},
          {"model", model},
          {"cluster", {{"gpu", cluster.gpu}, {"num_gpus", cluster.num_gpus()}, {"gpus_per_node", cluster.gpus_per_node}}},
          {"parallelism",
           {{"tp", p.tp},
            {"pp", p.pp},
            {"dp", p.dp},
            {"cp", p.cp},
            {"cp_comm", models::cp_comm_name(p.cp_comm)},
            {"cp_a2a_ranks", p.cp_a2a_ranks},
            {"cp_max_ctas", p.cp_max_ctas},
            {"dp_max_ctas", p.dp_max_ctas},
            {"vp", p.vp},
            {"microbatch_group", p.microbatch_group},
            {"sp", p.sp},
            {"zero", p.zero},
            {"sharding", models::sharding_name(p.sharding)},
            {"tp_comm_overlap", p.tp_comm_overlap},
            {"ep", p.ep},
            {"etp", p.etp},
            {"ep_comm_overlap", p.ep_comm_overlap},
            {"layers_per_chunk", p.layers_per_chunk}}},
          {"training",
           {{"seq_len", t.seq_len},
            {"micro_batch", t.micro_batch},
            {"global_batch", t.global_batch},
            {"precision", models::precision_name(t.precision)},
            {"fp8_recipe", models::fp8_recipe_name(t.fp8_recipe)},
            {"fp8_param_gather", t.fp8_param_gather},
            {"defer_embedding_wgrad", t.defer_embedding_wgrad},
            {"wgrad_deferral_limit", t.wgrad_deferral_limit},
            {"fsdp_sync_once", t.fsdp_sync_once},
            {"fsdp_sync_every_micro_batch", t.fsdp_sync_every_micro_batch},
            {"recompute", models::recompute_name(t.recompute)},
            {"attention", models::attention_kernel_name(t.attention)},
            {"schedule", models::schedule_name(t.schedule)},
            {"grad_dtype", t.grad_dtype == models::GradDtype::bf16 ? "bf16" : "fp32"},
            {"grad_accumulation", models::grad_accumulation_name(t.grad_accumulation)},
            {"tokens", t.tokens},
            {"overlap_grad_reduce", t.overlap_grad_reduce},
            {"overlap_param_gather", t.overlap_param_gather},
            {"grad_bucket_params", t.grad_bucket_params},
            {"cuda_graphs", t.cuda_graphs},
            {"cross_entropy", models::cross_entropy_name(t.cross_entropy)},
            {"rope_fusion", t.rope_fusion},
            {"repeat_kv", t.repeat_kv},
            {"moe_capacity_factor", t.moe_capacity_factor},
            {"moe_pad_to_capacity", t.moe_pad_to_capacity},
            {"moe_dispatcher", t.moe_dispatcher == models::MoeDispatcher::deepep ? "deepep" : "alltoall"}}}};
}

}  // namespace clustersim::handoff
