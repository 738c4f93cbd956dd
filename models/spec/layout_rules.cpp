#include "models/spec/layout_rules.hpp"

#include <fmt/format.h>

namespace clustersim::models {

std::string_view field_path(LayoutField field) {
  switch (field) {
    case LayoutField::model_hidden: return "model.hidden";
    case LayoutField::model_heads: return "model.heads";
    case LayoutField::model_kv_heads: return "model.kv_heads";
    case LayoutField::parallelism: return "parallelism";
    case LayoutField::parallelism_tp: return "parallelism.tp";
    case LayoutField::parallelism_pp: return "parallelism.pp";
    case LayoutField::parallelism_dp: return "parallelism.dp";
    case LayoutField::parallelism_vp: return "parallelism.vp";
    case LayoutField::parallelism_microbatch_group: return "parallelism.microbatch_group";
    case LayoutField::parallelism_cp_comm: return "parallelism.cp_comm";
    case LayoutField::parallelism_cp_a2a_ranks: return "parallelism.cp_a2a_ranks";
    case LayoutField::parallelism_layers_per_chunk: return "parallelism.layers_per_chunk";
    case LayoutField::parallelism_sp: return "parallelism.sp";
    case LayoutField::parallelism_zero: return "parallelism.zero";
    case LayoutField::parallelism_shard_group: return "parallelism.shard_group";
    case LayoutField::parallelism_tp_comm_overlap: return "parallelism.tp_comm_overlap";
    case LayoutField::parallelism_ep: return "parallelism.ep";
    case LayoutField::parallelism_etp: return "parallelism.etp";
    case LayoutField::model_experts: return "model.experts";
    case LayoutField::model_experts_per_token: return "model.experts_per_token";
    case LayoutField::model_expert_ffn_hidden: return "model.expert_ffn_hidden";
    case LayoutField::model_dense_layers: return "model.dense_layers";
    case LayoutField::model_attention: return "model.attention";
    case LayoutField::parallelism_sharding: return "parallelism.sharding";
    case LayoutField::training_micro_batch: return "training.micro_batch";
    case LayoutField::training_global_batch: return "training.global_batch";
    case LayoutField::training_pipeline_runs: return "training.pipeline_runs";
    case LayoutField::training_seq_len: return "training.seq_len";
    case LayoutField::training_schedule: return "training.schedule";
    case LayoutField::training_precision: return "training.precision";
    case LayoutField::training_moe_capacity_factor: return "training.moe_capacity_factor";
    case LayoutField::training_fp8_recipe: return "training.fp8_recipe";
    case LayoutField::training_fp8_param_gather: return "training.fp8_param_gather";
    case LayoutField::training_fp8_backward: return "training.fp8_backward";
    case LayoutField::training_fp8_attention: return "training.fp8_attention";
    case LayoutField::training_defer_embedding_wgrad: return "training.defer_embedding_wgrad";
    case LayoutField::training_fsdp_sync_once: return "training.fsdp_sync_once";
    case LayoutField::training_fsdp_sync_every_micro_batch: return "training.fsdp_sync_every_micro_batch";
    case LayoutField::training_attention: return "training.attention";
    case LayoutField::cluster_num_gpus: return "cluster.num_gpus";
    case LayoutField::cluster_gpus_per_node: return "cluster.gpus_per_node";
    case LayoutField::cluster_nvlink_domain_gpus: return "cluster.nvlink_domain_gpus";
    case LayoutField::cluster_topology: return "cluster.topology";
    case LayoutField::cluster_failed_links: return "cluster.failed_links";
    case LayoutField::cluster_failed_link_names: return "cluster.failed_link_names";
  }
  return "?";
}

namespace {

/// The most chunk passes (pp x vp x micro-batches, each a forward and a backward) a step may
/// hold: the step's task graph and the engine's state grow with each, by about 400 bytes and 5 us
/// in the analytic fidelity (2^19 passes of the default scenario: 220 MB, 3 s). Megatron-LM's 1T
/// GPT (pp 64, 512 micro-batches, scenarios/validation/published_runs.csv) has 2^15. The flow
/// fidelity allows fewer (flow_graph_violation).
constexpr std::int64_t kMaxChunkPasses = std::int64_t{1} << 19;
constexpr std::int64_t kMaxFlowChunkPasses = std::int64_t{1} << 16;

// Keys whose ranges the schema checks for a scenario; checked here too, as every rule below
// divides by them and a layout built in code has not met the schema.
std::optional<LayoutViolation> divisor_violation(const TransformerSpec& m, const ParallelismSpec& p,
                                                 const TrainingSpec& t, const ClusterSpec& c) {
  if (m.heads < 1) return LayoutViolation{LayoutField::model_heads, fmt::format("must be >= 1, got {}", m.heads)};
  if (m.kv_heads < 1)
    return LayoutViolation{LayoutField::model_kv_heads, fmt::format("must be >= 1, got {}", m.kv_heads)};
  if (p.tp < 1 || p.pp < 1 || p.dp < 1 || p.cp < 1 || p.vp < 1)
    return LayoutViolation{LayoutField::parallelism, "tp, pp, dp, cp and vp must be >= 1"};
  if (p.zero < 0 || p.zero > 3)
    return LayoutViolation{LayoutField::parallelism_zero, fmt::format("{} is not a ZeRO stage (0-3)", p.zero)};
  if (t.micro_batch < 1)
    return LayoutViolation{LayoutField::training_micro_batch, fmt::format("must be >= 1, got {}", t.micro_batch)};
  if (c.gpus_per_node < 1)
    return LayoutViolation{LayoutField::cluster_gpus_per_node, fmt::format("must be >= 1, got {}", c.gpus_per_node)};
  return std::nullopt;
}

std::optional<LayoutViolation> moe_violation(const TransformerSpec& m, const ParallelismSpec& p, const TrainingSpec& t) {
  using F = LayoutField;
  auto broken = [](F field, std::string rule) { return LayoutViolation{field, std::move(rule)}; };
  if (p.ep < 1 || p.etp < 1) return broken(F::parallelism_ep, "ep and etp must be >= 1");
  if (m.experts <= 0) {
    if (p.ep > 1) return broken(F::parallelism_ep, fmt::format("ep={} needs a mixture-of-experts model (model.experts > 0)", p.ep));
    if (p.etp > 1) return broken(F::parallelism_etp, fmt::format("etp={} needs a mixture-of-experts model (model.experts > 0)", p.etp));
    return std::nullopt;
  }
  if (m.experts_per_token < 1 || m.experts_per_token > m.experts)
    return broken(F::model_experts_per_token,
                  fmt::format("must be in [1, experts={}] for a mixture-of-experts model, got {}", m.experts,
                              m.experts_per_token));
  if (m.expert_ffn_hidden < 1)
    return broken(F::model_expert_ffn_hidden,
                  fmt::format("must be >= 1 for a mixture-of-experts model, got {}", m.expert_ffn_hidden));
  if (m.dense_layers > m.layers)
    return broken(F::model_dense_layers, fmt::format("must be at most layers={}, got {}", m.layers, m.dense_layers));
  if (m.experts % p.ep != 0)
    return broken(F::parallelism_ep, fmt::format("{} does not divide experts={}", p.ep, m.experts));
  // Megatron-Core folds the expert layout onto the same ranks: ep x etp x expert-dp = tp x cp x dp
  // (megatron/core/parallel_state.py, initialize_model_parallel).
  if (const std::int64_t ranks = p.tp * p.cp * p.dp; ranks % (p.ep * p.etp) != 0)
    return broken(F::parallelism_ep, fmt::format("ep*etp = {}*{} must divide the stage's tp*cp*dp = {} ranks", p.ep,
                                                 p.etp, ranks));
  if (m.expert_ffn_hidden % p.etp != 0)
    return broken(F::parallelism_etp,
                  fmt::format("{} does not divide expert_ffn_hidden={}: each of an expert's etp ranks holds an equal "
                              "slice of its width",
                              p.etp, m.expert_ffn_hidden));
  // The DeepEP model counts a token once per rank holding whole experts (expert_holders_per_token);
  // how DeepEP combines with expert tensor parallelism is not modelled.
  if (p.etp > 1 && t.moe_dispatcher == MoeDispatcher::deepep)
    return broken(F::parallelism_etp, "the deepep dispatcher is modelled with whole experts per rank; use etp = 1 "
                                      "or training.moe_dispatcher = \"alltoall\"");
  // ZeRO-3 shards a MoE layer whole, its routed experts over the ranks that hold them
  // (torchtitan's and Megatron-FSDP's expert sharding); DeepSpeed's 2021 tensor units and hybrid
  // shard groups of experts are not modelled.
  if (p.zero >= 3 && p.sharding == ShardingFramework::deepspeed_zero3_2021)
    return broken(F::parallelism_sharding,
                  "DeepSpeed ZeRO-3 (2021) of a mixture-of-experts model is not modelled; use fsdp2, fsdp1 or "
                  "megatron_fsdp");
  if (p.zero >= 3 && p.shard_group > 0 && p.shard_group < p.dp * p.cp)
    return broken(F::parallelism_shard_group, "hybrid sharding of a mixture-of-experts model is not modelled yet");
  // Megatron-Core (megatron/training/arguments.py): "During training, performance may degrade if
  // MoE and tensor parallelism are enabled without also enabling sequence parallelism."; the MoE
  // layer here routes each rank's tokens/tp, which is what sequence parallelism hands it.
  if (p.tp > 1 && !p.sp)
    return broken(F::parallelism_sp, "a mixture-of-experts model with tp > 1 is modelled with sequence parallelism "
                                     "(parallelism.sp = true), as Megatron-Core runs it");
  if (t.moe_pad_to_capacity && !(t.moe_capacity_factor > 0.0))
    return broken(F::training_moe_capacity_factor, "moe_pad_to_capacity needs a capacity factor > 0 (0 is dropless)");
  return std::nullopt;
}

// The layers of the pp x vp model chunks: the job's own split (parallelism.layers_per_chunk), where
// only the chunks that also hold the embedding (the first) and the loss (the last) may hold no
// layer, or the even split, which needs a layer a chunk.
std::optional<LayoutViolation> chunk_split_violation(const TransformerSpec& m, const ParallelismSpec& p) {
  using F = LayoutField;
  const std::int64_t chunks = p.pp * p.vp;
  const std::vector<std::int64_t>& split = p.layers_per_chunk;
  if (split.empty()) {
    if (m.layers < chunks)
      return LayoutViolation{F::parallelism_pp,
                             fmt::format("pp*vp = {}*{} = {} exceeds layers={}: every pipeline chunk needs a layer "
                                         "(parallelism.layers_per_chunk may leave the first and the last chunk "
                                         "without one)",
                                         p.pp, p.vp, chunks, m.layers)};
    return std::nullopt;
  }
  if (static_cast<std::int64_t>(split.size()) != chunks)
    return LayoutViolation{F::parallelism_layers_per_chunk,
                           fmt::format("has {} entries, must have one per model chunk: pp*vp = {}*{} = {}",
                                       split.size(), p.pp, p.vp, chunks)};
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < split.size(); ++i) {
    const bool end = i == 0 || i + 1 == split.size();
    if (split[i] < 0)
      return LayoutViolation{F::parallelism_layers_per_chunk,
                             fmt::format("entry {} is {}: a layer count cannot be negative", i, split[i])};
    if (split[i] == 0 && !end)
      return LayoutViolation{F::parallelism_layers_per_chunk,
                             fmt::format("entry {} is 0: only the first chunk (with the embedding) and the last (with "
                                         "the loss) may hold no layer",
                                         i)};
    sum += split[i];
  }
  if (sum != m.layers)
    return LayoutViolation{F::parallelism_layers_per_chunk,
                           fmt::format("sums to {} layers, must sum to model.layers={}", sum, m.layers)};
  return std::nullopt;
}

}  // namespace

std::optional<LayoutViolation> layout_violation(const TransformerSpec& m, const ParallelismSpec& p,
                                                const TrainingSpec& t, const ClusterSpec& c) {
  if (auto violation = divisor_violation(m, p, t, c)) return violation;
  using F = LayoutField;
  auto broken = [](F field, std::string rule) { return LayoutViolation{field, std::move(rule)}; };

  const bool mla = m.attention == AttentionKind::mla;
  if (m.head_dim == 0 && !mla && m.hidden % m.heads != 0)
    return broken(F::model_hidden,
                  fmt::format("must be divisible by heads={} (or set model.head_dim), got {}", m.heads, m.hidden));
  if (m.attention == AttentionKind::mha && m.kv_heads != m.heads)
    return broken(F::model_kv_heads,
                  fmt::format("must equal heads={} for multi-head attention (gqa groups them), got {}", m.heads, m.kv_heads));
  if (!mla && m.heads % m.kv_heads != 0)
    return broken(F::model_kv_heads, fmt::format("must divide heads={}, got {}", m.heads, m.kv_heads));
  if (mla && (m.kv_lora_rank < 1 || m.qk_rope_head_dim < 1 || m.qk_nope_head_dim < 1 || m.v_head_dim < 1))
    return broken(F::model_attention, "mla needs kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim and v_head_dim >= 1");
  if (m.heads % p.tp != 0) return broken(F::parallelism_tp, fmt::format("{} does not divide heads={}", p.tp, m.heads));
  if (!mla && m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    return broken(F::parallelism_tp, fmt::format("{} and kv_heads={} must divide one another", p.tp, m.kv_heads));
  if (c.num_gpus % c.gpus_per_node != 0)
    return broken(F::cluster_num_gpus,
                  fmt::format("must be a multiple of gpus_per_node={}, got {}", c.gpus_per_node, c.num_gpus));
  // An NVLink domain joins whole nodes (GB200 NVL72: 18 trays of 4), and a job fills whole domains
  // or part of one: ranks are placed domain by domain, so a partial last domain would break the
  // symmetry every group's placement relies on.
  if (c.nvlink_domain_gpus < 0 || (c.nvlink_domain_gpus > 0 && c.nvlink_domain_gpus % c.gpus_per_node != 0))
    return broken(F::cluster_nvlink_domain_gpus,
                  fmt::format("must be 0 (one node) or a multiple of gpus_per_node={}, got {}", c.gpus_per_node,
                              c.nvlink_domain_gpus));
  if (const std::int64_t domain = nvlink_domain(c); c.num_gpus % domain != 0)
    return broken(F::cluster_num_gpus, fmt::format("must be at most nvlink_domain_gpus={} or a multiple of it, got {}",
                                                   c.nvlink_domain_gpus, c.num_gpus));
  // In double: four degrees of up to 2^20 each overflow an int64; a product past 2^53 is not num_gpus anyway.
  if (const double product = static_cast<double>(p.tp) * static_cast<double>(p.pp) * static_cast<double>(p.dp) *
                             static_cast<double>(p.cp);
      product != static_cast<double>(c.num_gpus))
    return broken(F::parallelism, fmt::format("tp*pp*dp*cp = {}*{}*{}*{} = {} must equal cluster.num_gpus={}", p.tp,
                                              p.pp, p.dp, p.cp, product, c.num_gpus));
  if (const auto split = chunk_split_violation(m, p)) return split;
  const bool interleaved = t.schedule == Schedule::interleaved;
  if (p.vp > 1 && !interleaved)
    return broken(F::parallelism_vp, fmt::format("vp={} needs training.schedule \"interleaved\"", p.vp));
  if (interleaved && p.vp < 2) return broken(F::training_schedule, "\"interleaved\" needs parallelism.vp > 1");
  if (const std::int64_t per_step = p.dp * t.micro_batch; t.global_batch % per_step != 0)
    return broken(F::training_global_batch, fmt::format("must be divisible by dp*micro_batch = {}*{} = {}, got {}",
                                                        p.dp, t.micro_batch, per_step, t.global_batch));
  if (t.pipeline_runs < 1)
    return broken(F::training_pipeline_runs, fmt::format("must be >= 1, got {}", t.pipeline_runs));
  const std::int64_t micro_batches = micro_batches_per_step(p, t);
  if (micro_batches % t.pipeline_runs != 0)
    return broken(F::training_pipeline_runs,
                  fmt::format("must divide the micro-batches per step, global_batch/(dp*micro_batch) = {}, got {}",
                              micro_batches, t.pipeline_runs));
  if (p.microbatch_group < 0)
    return broken(F::parallelism_microbatch_group, fmt::format("must be >= 0 (0: pp), got {}", p.microbatch_group));
  if (p.microbatch_group > 0 && !interleaved)
    return broken(F::parallelism_microbatch_group,
                  "groups the micro-batches of the interleaved schedule: it needs parallelism.vp > 1");
  if (interleaved) {
    const std::int64_t per_run = micro_batches / t.pipeline_runs;
    const std::int64_t group = microbatch_group_size(p);
    if (p.microbatch_group > 0 && (group < p.pp || group > per_run))
      return broken(F::parallelism_microbatch_group,
                    fmt::format("must be in [pp, micro-batches of a pipeline run] = [{}, {}], got {}", p.pp, per_run,
                                group));
    if (!interleaved_groups_hold(per_run, p.pp, group))  // the group is in range: the last group is short
      return broken(p.microbatch_group > 0 ? F::parallelism_microbatch_group : F::training_global_batch,
                    p.microbatch_group > 0
                        ? fmt::format("the interleaved schedule needs the micro-batches of each pipeline run, "
                                      "global_batch/(dp*micro_batch*pipeline_runs) = {}, to be a multiple of "
                                      "microbatch_group={} or to leave a last group of at least pp={} (it leaves {})",
                                      per_run, group, p.pp, per_run % group)
                        : fmt::format("the interleaved schedule needs the micro-batches of each pipeline run, "
                                      "global_batch/(dp*micro_batch*pipeline_runs) = {}, to be a multiple of pp={}",
                                      per_run, p.pp));
  }
  if (const std::int64_t passes = p.pp * p.vp * micro_batches; passes > kMaxChunkPasses)
    return broken(F::training_global_batch,
                  fmt::format("pp*vp*micro-batches = {}*{}*{} = {} chunk passes a step: at most {} are simulated (one "
                              "pipeline's task graph grows with each; raise micro_batch or dp)",
                              p.pp, p.vp, micro_batches, passes, kMaxChunkPasses));
  if (t.seq_len % p.cp != 0)
    return broken(F::training_seq_len, fmt::format("must be divisible by cp={}, got {}", p.cp, t.seq_len));
  // a2a+p2p's all-to-all groups (Megatron-Core: the hierarchical sizes multiply to cp).
  const bool hierarchical = p.cp_comm == CpComm::a2a_p2p;
  if (p.cp_a2a_ranks != 0 && !hierarchical)
    return broken(F::parallelism_cp_a2a_ranks, "sizes the all-to-all groups of cp_comm a2a+p2p: 0 otherwise");
  if (p.cp > 1 && hierarchical && (p.cp_a2a_ranks < 2 || p.cp_a2a_ranks >= p.cp || p.cp % p.cp_a2a_ranks != 0))
    return broken(F::parallelism_cp_a2a_ranks,
                  fmt::format("a2a+p2p needs all-to-all groups of 2 to cp/2 ranks that divide cp={}, got {}", p.cp,
                              p.cp_a2a_ranks));
  // Ulysses splits each TP rank's heads over its all-to-all group (Transformer Engine's a2a: the
  // query and the key/value heads each divided by the group's size).
  if (p.cp > 1 && (p.cp_comm == CpComm::a2a || hierarchical)) {
    const std::int64_t ranks = p.tp * (hierarchical ? p.cp_a2a_ranks : p.cp);
    const std::string_view over = hierarchical ? "tp*cp_a2a_ranks" : "tp*cp";
    if (m.heads % ranks != 0)
      return broken(F::parallelism_cp_comm, fmt::format("{} splits the heads over {} = {} ranks: heads={} is not a "
                                                        "multiple",
                                                        cp_comm_name(p.cp_comm), over, ranks, m.heads));
    if (m.attention != AttentionKind::mla && m.kv_heads % ranks != 0)
      return broken(F::parallelism_cp_comm, fmt::format("{} splits the key/value heads over {} = {} ranks: "
                                                        "kv_heads={} is not a multiple",
                                                        cp_comm_name(p.cp_comm), over, ranks, m.kv_heads));
  }
  if (p.sp && p.tp < 2)
    return broken(F::parallelism_sp,
                  "sequence parallelism splits activations over the TP group: it needs parallelism.tp > 1");
  if (p.sp && t.seq_len % (p.tp * p.cp) != 0)
    return broken(F::training_seq_len, fmt::format("must be divisible by tp*cp = {} with sequence parallelism, got {}",
                                                   p.tp * p.cp, t.seq_len));
  // Megatron-LM (megatron/training/arguments.py): "Tensor parallel communication/GEMM overlap can
  // happen only when sequence parallelism is enabled".
  if (p.tp_comm_overlap && !p.sp)
    return broken(F::parallelism_tp_comm_overlap,
                  "overlapping tensor-parallel communication with the GEMMs needs sequence parallelism "
                  "(parallelism.sp = true)");
  if (p.shard_group < 0 || (p.shard_group > 0 && (p.dp * p.cp) % p.shard_group != 0))
    return broken(F::parallelism_shard_group,
                  fmt::format("must divide the dp*cp = {} data-parallel ranks (0: shard over all of them), got {}",
                              p.dp * p.cp, p.shard_group));
  if (p.shard_group > 0 && p.zero < 3)
    return broken(F::parallelism_shard_group, "hybrid sharding shards parameters: it needs parallelism.zero = 3");
  if (auto violation = moe_violation(m, p, t)) return violation;
  if (mla && p.zero >= 3 && p.sharding == ShardingFramework::deepspeed_zero3_2021)
    return broken(F::parallelism_sharding, "DeepSpeed ZeRO-3 (2021) shards parameter tensors, whose shapes under "
                                           "multi-head latent attention are not modelled; use fsdp2, fsdp1 or "
                                           "megatron_fsdp");
  if (const bool fp8 = t.precision == Precision::fp8;
      low_precision_gemms(t.precision) && !(tensor_peak_flops_per_s(c.gpu, t.precision) > 0))
    return broken(F::training_precision,
                  fmt::format("{} needs a GPU with {} tensor cores; {} has {}_tflops=0", precision_name(t.precision),
                              fp8 ? "FP8" : "FP4", c.gpu.name.empty() ? std::string("this GPU") : c.gpu.name,
                              fp8 ? "fp8" : "fp4"));
  // Transformer Engine's NVFP4BlockScaling runs the forward, dgrad and wgrad GEMMs in FP4 alike.
  if (t.precision == Precision::nvfp4 && !t.fp8_backward)
    return broken(F::training_fp8_backward, "applies to fp8 only: nvfp4 runs the backward GEMMs in FP4 too "
                                            "(Transformer Engine's NVFP4BlockScaling); keep it true");
  if (t.fp8_attention) {
    const GpuGeneration generation = gpu_generation(c.gpu.name);
    if (!low_precision_gemms(t.precision))
      return broken(F::training_fp8_attention, "FP8 attention runs inside an fp8 or nvfp4 recipe: set "
                                               "training.precision to fp8 or nvfp4");
    if (t.attention != AttentionKernel::cudnn)
      return broken(F::training_fp8_attention, "FP8 attention is cuDNN's kernel (Transformer Engine's FP8 "
                                               "DotProductAttention): set training.attention to cudnn");
    if (generation != GpuGeneration::hopper && generation != GpuGeneration::blackwell)
      return broken(F::training_fp8_attention,
                    fmt::format("FP8 attention is measured on Hopper and Blackwell only; {} is neither",
                                c.gpu.name.empty() ? std::string("this GPU") : c.gpu.name));
  }
  if (t.fp8_param_gather && t.precision != Precision::fp8)
    return broken(F::training_fp8_param_gather, "fp8 parameter gathers need training.precision = fp8");
  if (t.fp8_param_gather && p.zero < 1)
    return broken(F::training_fp8_param_gather,
                  "fp8 parameter gathers need a distributed optimizer or sharded parameters: parallelism.zero >= 1 "
                  "(Megatron-LM's --fp8-param-gather rule)");
  if (t.fp8_param_gather && p.zero >= 3 && p.sharding == ShardingFramework::deepspeed_zero3_2021)
    return broken(F::training_fp8_param_gather,
                  "DeepSpeed ZeRO-3 (2021) gathers 16-bit parameters; fp8 parameter gathers need fsdp2, fsdp1 or "
                  "megatron_fsdp, or ZeRO 1-2");
  if (t.defer_embedding_wgrad) {
    if (p.pp <= 1)
      return broken(F::training_defer_embedding_wgrad,
                    "deferring the output layer's weight gradients to the pipeline's drain needs a pipeline: "
                    "parallelism.pp > 1 (Megatron-Core's ModelParallelConfig rule)");
    if (t.framework != Framework::megatron_core)
      return broken(F::training_defer_embedding_wgrad,
                    fmt::format("is Megatron-Core's --defer-embedding-wgrad-compute; training.framework is {}",
                                framework_name(t.framework)));
    if (t.grad_accumulation != GradAccumulation::fused)
      return broken(F::training_defer_embedding_wgrad,
                    "the deferred weight-gradient GEMMs accumulate into the gradient buffer themselves: it needs "
                    "training.grad_accumulation = fused (Megatron-Core's gradient_accumulation_fusion rule)");
    if (t.pipeline_runs > 1)
      return broken(F::training_defer_embedding_wgrad,
                    "Megatron-Core runs one pipeline schedule a step: it needs training.pipeline_runs = 1");
  }
  if (t.fsdp_sync_once && (p.zero < 3 || !sharding_parameters(p.sharding, false).pipeline_gathers_once))
    return broken(F::training_fsdp_sync_once,
                  fmt::format("gathering and reducing once a step needs sharded parameters that stay gathered "
                              "through the micro-batches: parallelism.zero = 3 with fsdp2 sharding (zero is {}, "
                              "sharding {})",
                              p.zero, sharding_name(p.sharding)));
  if (t.fsdp_sync_every_micro_batch) {
    if (p.zero < 3 || !sharding_parameters(p.sharding, false).pipeline_gathers_once || p.pp < 2)
      return broken(F::training_fsdp_sync_every_micro_batch,
                    fmt::format("reducing every micro-batch under a pipeline needs parallelism.zero = 3 with fsdp2 "
                                "sharding and pp > 1 (zero is {}, sharding {}, pp {}); without a pipeline FSDP2 "
                                "reduces every micro-batch unless training.fsdp_sync_once",
                                p.zero, sharding_name(p.sharding), p.pp));
    if (t.fsdp_sync_once)
      return broken(F::training_fsdp_sync_every_micro_batch,
                    "contradicts training.fsdp_sync_once (once a step): set at most one of them");
  }
  const bool blackwell = gpu_generation(c.gpu.name) == GpuGeneration::blackwell;
  if (t.precision == Precision::fp8 && t.fp8_recipe == Fp8Recipe::mxfp8 && !blackwell)
    return broken(F::training_fp8_recipe,
                  fmt::format("mxfp8 needs a Blackwell GPU (b200, gb200, b300, gb300): its 1x32 block scales are applied by "
                              "Blackwell's tensor cores; {} is not one (use delayed, current or blockwise)",
                              c.gpu.name.empty() ? std::string("this GPU") : c.gpu.name));
  const bool hopper = gpu_generation(c.gpu.name) == GpuGeneration::hopper;
  if (t.attention == AttentionKernel::flash3 && !hopper)
    return broken(F::training_attention,
                  fmt::format("flash3 (FlashAttention-3) runs on Hopper only (h100, h200); {} is not one (use cudnn or "
                              "flash2)",
                              c.gpu.name.empty() ? std::string("this GPU") : c.gpu.name));
  return std::nullopt;
}

std::optional<LayoutViolation> flow_graph_violation(const ParallelismSpec& p, const TrainingSpec& t) {
  if (p.dp <= 0 || t.micro_batch <= 0) return std::nullopt;  // layout_violation names those
  const std::int64_t micro_batches = micro_batches_per_step(p, t);
  const std::int64_t passes = p.pp * p.vp * micro_batches;
  if (passes <= kMaxFlowChunkPasses) return std::nullopt;
  return LayoutViolation{LayoutField::training_global_batch,
                         fmt::format("pp*vp*micro-batches = {}*{}*{} = {} chunk passes a step: the flow fidelity "
                                     "simulates at most {} (use simulation.fidelity \"analytic\", or raise micro_batch "
                                     "or dp)",
                                     p.pp, p.vp, micro_batches, passes, kMaxFlowChunkPasses)};
}

std::optional<LayoutViolation> derive_dp(ParallelismSpec& p, const ClusterSpec& c) {
  const std::int64_t model_parallel = p.tp * p.pp * p.cp;
  if (model_parallel <= 0 || c.num_gpus % model_parallel != 0) {
    return LayoutViolation{LayoutField::parallelism_dp,
                           fmt::format("cannot derive dp: num_gpus={} is not divisible by tp*pp*cp = {}*{}*{} = {}",
                                       c.num_gpus, p.tp, p.pp, p.cp, model_parallel)};
  }
  p.dp = c.num_gpus / model_parallel;
  return std::nullopt;
}

}  // namespace clustersim::models
