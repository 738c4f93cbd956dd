// torchtitan: the TOML job config of a layout (handoff/frameworks/torchtitan_rules.hpp says what
// maps to what), checked by parsing the written TOML back and applying torchtitan's job rules.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"
#include "handoff/frameworks/torchtitan_rules.hpp"
#include "handoff/toml/toml_subset.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff {

namespace torchtitan {

namespace {

using Json = nlohmann::ordered_json;

/// The first- and last-stage weights under which torchtitan's split equals `split`; nullopt if none.
std::optional<std::pair<std::int64_t, std::int64_t>> stage_weights(const std::vector<std::int64_t>& split, std::int64_t layers) {
  const std::int64_t stages = static_cast<std::int64_t>(split.size());
  const std::int64_t most = *std::max_element(split.begin(), split.end());
  // Equal weights first (the embedding and the output weigh alike, as torchtitan's defaults have it).
  for (std::int64_t w = 0; w <= most; ++w)
    if (stage_layers(stages, layers, w, w) == split) return std::pair{w, w};
  for (std::int64_t in = 0; in <= most; ++in)
    for (std::int64_t out = 0; out <= most; ++out)
      if (stage_layers(stages, layers, in, out) == split) return std::pair{in, out};
  return std::nullopt;
}

/// module_fqns_per_model_part spelling out `split` (the embedding first, the norm and output last).
Json explicit_parts(const std::vector<std::int64_t>& split) {
  Json parts = Json::array();
  std::int64_t layer = 0;
  for (std::size_t s = 0; s < split.size(); ++s) {
    Json names = Json::array();
    if (s == 0) names.push_back("tok_embeddings");
    for (std::int64_t i = 0; i < split[s]; ++i) names.push_back(fmt::format("layers.{}", layer++));
    if (s + 1 == split.size()) {
      names.push_back("norm");
      names.push_back("output");
    }
    parts.push_back(names);
  }
  return parts;
}

}  // namespace

Json job_document(const models::TransformerSpec& model, const planning::Layout& layout) {
  const auto& p = layout.parallelism;
  const auto& t = layout.training;
  const Flavor* flavor = flavor_of(model);
  Json model_table{{"name", flavor ? std::string(flavor->name) : std::string("llama3")},
                   {"flavor", flavor ? std::string(flavor->flavor) : model.name}};
  if (t.precision == models::Precision::fp8)
    model_table["converters"] = Json::array(
        {t.fp8_recipe == models::Fp8Recipe::mxfp8 ? "quantize.linear.mx" : "quantize.linear.float8"});

  const bool pipelined = p.pp > 1;
  const std::int64_t steps = static_cast<std::int64_t>(
      std::ceil(t.tokens / (static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len))));
  // Under a pipeline a local batch is one run of the schedule (training.pipeline_runs of them a step).
  Json training{{"local_batch_size", pipelined ? t.global_batch / (p.dp * t.pipeline_runs) : t.micro_batch},
                {"global_batch_size", t.global_batch},
                {"seq_len", t.seq_len},
                {"steps", steps},
                {"mixed_precision_param", "bfloat16"}};

  std::int64_t replicate = 1, shard = 1;
  std::string reshard = "default";
  if (p.zero == 0) {
    replicate = p.dp;
  } else if (p.zero == 3 && p.shard_group > 0) {
    shard = p.shard_group / p.cp;
    replicate = p.dp * p.cp / p.shard_group;
  } else {
    shard = p.dp;
  }
  if (p.dp * p.cp > 1 && p.zero >= 2) reshard = p.zero == 3 ? "always" : "never";
  Json parallelism{{"data_parallel_replicate_degree", replicate},
                   {"data_parallel_shard_degree", shard},
                   {"fsdp_reshard_after_forward", reshard},
                   {"tensor_parallel_degree", p.tp}};
  if (p.tp_comm_overlap) parallelism["enable_async_tensor_parallel"] = true;
  parallelism["pipeline_parallel_degree"] = p.pp;
  if (pipelined) {
    const std::vector<std::int64_t> split = models::chunk_layers(model.layers, p);
    parallelism["pipeline_parallel_schedule"] = p.vp > 1 ? "Interleaved1F1B" : t.schedule == models::Schedule::gpipe ? "GPipe" : "1F1B";
    parallelism["pipeline_parallel_microbatch_size"] = t.micro_batch;
    if (const auto weights = stage_weights(split, model.layers)) {
      const std::int64_t effective = model.layers + weights->first + weights->second;
      const std::int64_t stages = static_cast<std::int64_t>(split.size());
      const std::int64_t per_stage = (effective + stages - 1) / stages;
      parallelism["pipeline_parallel_first_stage_less_layers"] = weights->first;
      parallelism["pipeline_parallel_last_stage_less_layers"] = weights->second;
      if (p.vp > 1 && (effective + per_stage - 1) / per_stage == stages)
        parallelism["pipeline_parallel_layers_per_stage"] = per_stage;
      else if (p.vp > 1)
        parallelism["module_fqns_per_model_part"] = explicit_parts(split);
    } else {
      parallelism["module_fqns_per_model_part"] = explicit_parts(split);
    }
  }
  parallelism["context_parallel_degree"] = p.cp;
  // PyTorch's rotaters: one all-gather a pass, or the ring of blocks ("alltoall": a permute to the
  // next rank, as p2p).
  if (p.cp > 1)
    parallelism["context_parallel_rotate_method"] = p.cp_comm == models::CpComm::p2p ? "alltoall" : "allgather";
  if (p.ep > 1) {
    parallelism["expert_parallel_degree"] = p.ep;
    parallelism["expert_tensor_parallel_degree"] = p.etp;
  }

  Json checkpointing{{"mode", t.recompute == models::Recompute::none   ? "none"
                              : t.recompute == models::Recompute::full ? "full"
                                                                       : "selective"}};
  if (t.recompute == models::Recompute::op) checkpointing["selective_ac_option"] = "op";
  Json compile{{"enable", p.tp_comm_overlap || t.elementwise == models::ElementwiseKernels::fused},
               {"components", Json::array({"model", "loss"})}};

  Json job{{"job", {{"dump_folder", "./outputs"}, {"description", fmt::format("{}: clustersim layout", model.name)}}},
           {"model", model_table},
           {"training", training},
           {"parallelism", parallelism},
           {"activation_checkpoint", checkpointing},
           {"compile", compile}};
  if (t.precision == models::Precision::fp8) {
    if (t.fp8_recipe == models::Fp8Recipe::mxfp8)
      job["quantize"] = {{"linear", {{"mx", {{"recipe_name", "mxfp8_cublas"}}}}}};
    else if (t.fp8_param_gather)
      job["quantize"] = {{"linear",
                          {{"float8",
                            {{"recipe_name", "tensorwise"},
                             {"enable_fsdp_float8_all_gather", true},
                             {"precompute_float8_dynamic_scale_for_fsdp", true}}}}}};
    else
      job["quantize"] = {{"linear", {{"float8", {{"recipe_name", "tensorwise"}}}}}};
  }
  return job;
}

}  // namespace torchtitan

LaunchConfig export_torchtitan(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                               const planning::Layout& layout) {
  torchtitan::Mapping mapping = torchtitan::map_layout(model, cluster, layout);
  LaunchConfig config{.framework = Framework::torchtitan,
                      .source = fmt::format("pytorch/torchtitan @{}", torchtitan::kCommit),
                      .breaches = std::move(mapping.breaches),
                      .notes = std::move(mapping.notes)};
  if (model.alibi) config.notes.push_back("model.alibi is not exported: torchtitan's models use rotary positions");
  if (model.qk_norm)
    config.notes.push_back("model.qk_norm is not exported: the Llama 3 model the export writes has no QK-Norm");
  note_fsdp_sync_keys(layout.training, "torchtitan", config.notes);
  note_repeat_kv(layout.training, "torchtitan", config.notes);
  if (layout.training.defer_embedding_wgrad)
    config.notes.push_back("training.defer_embedding_wgrad is not exported: PyTorch's pipelining has no deferral of the "
                           "output layer's weight gradients (Megatron-Core's --defer-embedding-wgrad-compute)");
  const auto& p = mapping.layout.parallelism;
  const std::vector<std::string> header{
      fmt::format("torchtitan job config (pytorch/torchtitan @{}) written by clustersim", torchtitan::kCommit),
      fmt::format("layout: TP {} x PP {} x DP {} x CP {}, vp {}, ZeRO {}{}", p.tp, p.pp, p.dp, p.cp, p.vp, p.zero,
                  config.breaches.empty() ? "" : " (the layout offered instead of the one given)"),
      fmt::format("launch: torchrun --nnodes {} --nproc_per_node {} -m torchtitan.train --job.config_file job.toml",
                  cluster.num_gpus / cluster.gpus_per_node, cluster.gpus_per_node)};
  const std::string toml = write_toml(torchtitan::job_document(model, mapping.layout), header);
  // Checked as torchtitan reads it: the written text parsed back, not the document it came from.
  for (RuleBreach& b : torchtitan::check_job(parse_toml_subset(toml, "job.toml"), cluster.num_gpus)) {
    const bool known = std::any_of(config.breaches.begin(), config.breaches.end(),
                                   [&](const RuleBreach& seen) { return seen.rule == b.rule; });
    if (!known) config.breaches.push_back(std::move(b));
  }
  config.files.push_back({.name = "job.toml", .content = toml});
  return config;
}

}  // namespace clustersim::handoff
