#include "handoff/frameworks/torchtitan_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "models/spec/attention_shape.hpp"
#include "models/spec/framework.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff::torchtitan {

namespace {

using Json = nlohmann::ordered_json;

std::string at(std::string_view file) { return fmt::format("torchtitan/{} @{}", file, kCommit); }

// models/llama3/__init__.py, llama3_args; vocab_size is TransformerModelArgs' default (model/args.py).
constexpr std::array kFlavors{
    Flavor{"llama3", "8B", 4096, 32, 32, 8, 1.3, 1024, 128256, "llama3-8b"},
    Flavor{"llama3", "70B", 8192, 80, 64, 8, 1.3, 4096, 128256, "llama3-70b"},
    Flavor{"llama3", "405B", 16384, 126, 128, 8, 1.2, 4096, 128256, "llama3-405b"},
    // models/qwen3/__init__.py, qwen3_args: every layer MoE, no shared experts, untied embeddings.
    Flavor{.name = "qwen3", .flavor = "30B-A3B", .dim = 2048, .n_layers = 48, .n_heads = 32, .n_kv_heads = 4,
           .vocab_size = 151936, .preset = "qwen3-30b-a3b", .hidden_dim = 6144, .head_dim = 128, .num_experts = 128,
           .top_k = 8, .moe_inter_dim = 768},
    Flavor{.name = "qwen3", .flavor = "235B-A22B", .dim = 4096, .n_layers = 94, .n_heads = 64, .n_kv_heads = 4,
           .vocab_size = 151936, .preset = "qwen3-235b-a22b", .hidden_dim = 12288, .head_dim = 128,
           .num_experts = 128, .top_k = 8, .moe_inter_dim = 1536},
};

// torch.distributed.pipelining's schedule names as torchtitan's get_schedule_class looks them up
// (pipeline_parallel.py imports them); the first two run one stage per rank.
constexpr std::array<std::string_view, 2> kSingleStage{"1F1B", "GPipe"};
constexpr std::array<std::string_view, 5> kMultiStage{"Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble",
                                                      "ZBVZeroBubble", "DualPipeV"};

/// A typed look-up of [section] key with a default, recording a breach for a value of the wrong type.
class JobReader {
 public:
  JobReader(const Json& job, std::vector<RuleBreach>& breaches) : job_(job), breaches_(breaches) {}

  const Json* find(std::string_view section, std::string_view key) const {
    const Json* table = &job_;
    std::string_view rest = section;
    while (!rest.empty()) {
      const std::size_t dot = rest.find('.');
      const std::string part(rest.substr(0, dot));
      if (!table->is_object() || !table->contains(part)) return nullptr;
      table = &(*table)[part];
      rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    }
    if (!table->is_object() || !table->contains(std::string(key))) return nullptr;
    return &(*table)[std::string(key)];
  }
  std::int64_t integer(std::string_view section, std::string_view key, std::int64_t fallback) {
    const Json* v = find(section, key);
    if (!v) return fallback;
    if (v->is_number_integer()) return v->get<std::int64_t>();
    wrong_type(section, key, "an integer");
    return fallback;
  }
  std::string text(std::string_view section, std::string_view key, std::string fallback) {
    const Json* v = find(section, key);
    if (!v) return fallback;
    if (v->is_string()) return v->get<std::string>();
    wrong_type(section, key, "a string");
    return fallback;
  }
  bool flag(std::string_view section, std::string_view key, bool fallback) {
    const Json* v = find(section, key);
    if (!v) return fallback;
    if (v->is_boolean()) return v->get<bool>();
    wrong_type(section, key, "a boolean");
    return fallback;
  }
  std::vector<std::string> strings(std::string_view section, std::string_view key) {
    const Json* v = find(section, key);
    std::vector<std::string> out;
    if (!v) return out;
    if (!v->is_array()) {
      wrong_type(section, key, "an array of strings");
      return out;
    }
    for (const Json& s : *v) {
      if (!s.is_string()) {
        wrong_type(section, key, "an array of strings");
        return {};
      }
      out.push_back(s.get<std::string>());
    }
    return out;
  }

 private:
  void wrong_type(std::string_view section, std::string_view key, std::string_view type) {
    breaches_.push_back({.rule = "key-type",
                         .source = at("config/job_config.py (the JobConfig dataclasses)"),
                         .message = fmt::format("[{}] {} must be {}", section, key, type)});
  }
  const Json& job_;
  std::vector<RuleBreach>& breaches_;
};

RuleBreach breach(std::string rule, std::string_view file, std::string message, std::string alternative = {}) {
  return {.rule = std::move(rule), .source = at(file), .message = std::move(message), .alternative = std::move(alternative)};
}

bool contains(std::span<const std::string_view> names, std::string_view name) {
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

}  // namespace

std::span<const Flavor> flavors() { return kFlavors; }

std::int64_t ffn_hidden(const Flavor& f) {
  if (f.hidden_dim > 0) return f.hidden_dim;
  // FeedForward: hidden = 4 dim; int(2 hidden / 3); int(multiplier x hidden); round up to multiple_of.
  std::int64_t hidden = 2 * (4 * f.dim) / 3;
  hidden = static_cast<std::int64_t>(f.ffn_dim_multiplier * static_cast<double>(hidden));
  return f.multiple_of * ((hidden + f.multiple_of - 1) / f.multiple_of);
}

const Flavor* flavor_of(const models::TransformerSpec& m) {
  for (const Flavor& f : kFlavors) {
    const std::int64_t head_dim = f.head_dim > 0 ? f.head_dim : f.dim / f.n_heads;
    const bool same_moe = f.num_experts == 0
                              ? m.experts == 0
                              : m.experts == f.num_experts && m.experts_per_token == f.top_k &&
                                    m.expert_ffn_hidden == f.moe_inter_dim && m.shared_experts == 0 &&
                                    m.dense_layers == 0 && m.moe_layer_freq == 1;
    const bool same = m.layers == f.n_layers && m.hidden == f.dim && m.heads == f.n_heads && m.kv_heads == f.n_kv_heads &&
                      m.ffn_hidden == ffn_hidden(f) && m.vocab == f.vocab_size && m.mlp == models::MlpKind::swiglu &&
                      !m.tied_embeddings && same_moe && (m.head_dim == 0 ? m.hidden / m.heads : m.head_dim) == head_dim &&
                      m.attention != models::AttentionKind::mla && m.sliding_window == 0;
    if (same) return &f;
  }
  return nullptr;
}

const Flavor* find_flavor(std::string_view name, std::string_view flavor) {
  for (const Flavor& f : kFlavors)
    if (f.name == name && f.flavor == flavor) return &f;
  return nullptr;
}

bool known_schedule(std::string_view name) { return contains(kSingleStage, name) || contains(kMultiStage, name); }
bool single_stage_schedule(std::string_view name) { return contains(kSingleStage, name); }

std::int64_t interleaved_round(std::int64_t micro_batches, std::int64_t pp) {
  const std::int64_t rounds = std::max<std::int64_t>(1, pp > 0 ? micro_batches / pp : 1);
  return micro_batches % rounds == 0 ? micro_batches / rounds : 0;
}

std::vector<std::int64_t> stage_layers(std::int64_t stages, std::int64_t layers, std::int64_t input_weight,
                                       std::int64_t output_weight, std::string* why) {
  const auto refuse = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return std::vector<std::int64_t>{};
  };
  if (stages < 1) return refuse("at least one stage");
  if (stages == 1) return {layers};
  const std::int64_t effective = layers + input_weight + output_weight;
  if (stages > effective) return refuse(fmt::format("{} stages exceed the {} effective layers", stages, effective));
  const std::int64_t base = effective / stages;
  const std::int64_t extra = effective % stages;
  if (input_weight > base || output_weight > base)
    return refuse(fmt::format("the first and last stage weights ({}, {}) may not exceed the {} layers of the smallest stage",
                              input_weight, output_weight, base));
  std::vector<std::int64_t> split;
  std::int64_t placed = 0;
  for (std::int64_t s = 0; s < stages; ++s) {
    std::int64_t share = base + (s < extra ? 1 : 0);
    if (s == 0) share -= input_weight;
    else if (s == stages - 1) share -= output_weight;
    share = std::max<std::int64_t>(0, std::min(share, layers - placed));
    split.push_back(share);
    placed += share;
  }
  // torchtitan puts whatever is left on no stage: a split that drops layers is refused here.
  if (placed != layers) return refuse(fmt::format("the split places {} of the {} layers", placed, layers));
  return split;
}

std::vector<RuleBreach> check_job(const Json& job, std::int64_t world_size) {
  std::vector<RuleBreach> out;
  JobReader r(job, out);
  const std::int64_t replicate = r.integer("parallelism", "data_parallel_replicate_degree", 1);
  std::int64_t shard = r.integer("parallelism", "data_parallel_shard_degree", -1);
  const std::int64_t tp = r.integer("parallelism", "tensor_parallel_degree", 1);
  const std::int64_t pp = r.integer("parallelism", "pipeline_parallel_degree", 1);
  const std::int64_t cp = r.integer("parallelism", "context_parallel_degree", 1);
  const std::int64_t ep = r.integer("parallelism", "expert_parallel_degree", 1);
  const std::int64_t etp = r.integer("parallelism", "expert_tensor_parallel_degree", 1);
  const char* dims = "distributed/parallel_dims.py (ParallelDims._validate)";
  if (replicate < 1 || tp < 1 || pp < 1 || cp < 1 || ep < 1 || etp < 1 || (shard != -1 && shard < 1)) {
    out.push_back(breach("degrees-positive", dims,
                         "every parallelism degree is at least 1, except data_parallel_shard_degree, which may be -1 "
                         "(the ranks left over)"));
    return out;
  }
  if (shard == -1) shard = world_size / (replicate * cp * tp * pp);
  if (shard < 1 || replicate * shard * cp * tp * pp != world_size) {
    out.push_back(breach("degrees-product", dims,
                         fmt::format("data_parallel_replicate x data_parallel_shard x context x tensor x pipeline "
                                     "degrees ({} x {} x {} x {} x {}) must equal the world size {}",
                                     replicate, shard, cp, tp, pp, world_size)));
    return out;
  }
  if (ep > 1 && etp != tp && etp != 1)
    out.push_back(breach("etp-tp-or-one", dims, "expert_tensor_parallel_degree must be 1 or the tensor_parallel_degree"));
  if ((shard * cp * tp) % (ep * etp) != 0)
    out.push_back(breach("ep-divides-dense-mesh", "distributed/parallel_dims.py (ParallelDims.build_mesh)",
                         "expert x expert-tensor degrees must divide data_parallel_shard x context x tensor degrees "
                         "(the expert mesh is carved from them)"));
  const bool fsdp = shard > 1 || cp > 1;
  if (replicate > 1 && !fsdp && replicate != world_size)
    out.push_back(breach("ddp-one-dimension", "models/llama3/infra/parallelize.py (parallelize_llama)",
                         "DDP (data_parallel_replicate_degree without sharding) runs only as the sole parallelism",
                         "shard instead: data_parallel_shard_degree (FSDP2)"));

  const std::int64_t seq_len = r.integer("training", "seq_len", 2048);
  if (seq_len < 1 || seq_len % (tp * 2 * cp) != 0)
    out.push_back(breach("seq-len-divisor", "models/llama3/infra/parallelize.py (parallelize_llama)",
                         fmt::format("seq_len {} must be divisible by tensor degree x 2 x context degree ({})", seq_len,
                                     tp * 2 * cp)));
  const std::int64_t local = r.integer("training", "local_batch_size", 8);
  std::int64_t global = r.integer("training", "global_batch_size", -1);
  const std::int64_t batch_degree = replicate * shard;
  if (global < 0) global = local * batch_degree;
  if (local < 1 || global < 1 || global % (local * batch_degree) != 0)
    out.push_back(breach("global-batch-multiple", "train.py (Trainer.__init__)",
                         fmt::format("global_batch_size {} must be a positive multiple of local_batch_size {} x the "
                                     "data-parallel degree {}", global, local, batch_degree)));

  const std::string reshard = r.text("parallelism", "fsdp_reshard_after_forward", "default");
  if (reshard != "default" && reshard != "always" && reshard != "never")
    out.push_back(breach("reshard-policy", "config/job_config.py (Parallelism.fsdp_reshard_after_forward)",
                         fmt::format("fsdp_reshard_after_forward must be default, always or never, not '{}'", reshard)));
  const std::string mode = r.text("activation_checkpoint", "mode", "selective");
  const std::string option = r.text("activation_checkpoint", "selective_ac_option", "2");
  const bool option_ok = option == "op" || (!option.empty() && option.find_first_not_of("0123456789") == std::string::npos &&
                                            option != "0" && option.front() != '0');
  if ((mode != "selective" && mode != "full" && mode != "memory_budget" && mode != "none") ||
      (mode == "selective" && !option_ok))
    out.push_back(breach("ac-mode", "config/job_config.py (ActivationCheckpoint)",
                         fmt::format("activation_checkpoint.mode must be selective, full, memory_budget or none, and "
                                     "selective_ac_option 'op' or a positive layer interval (got '{}', '{}')",
                                     mode, option)));
  if (const std::string rotate = r.text("parallelism", "context_parallel_rotate_method", "allgather");
      rotate != "allgather" && rotate != "alltoall")
    out.push_back(breach("cp-rotate-method", "config/job_config.py (Parallelism.context_parallel_rotate_method)",
                         fmt::format("context_parallel_rotate_method must be allgather or alltoall (got '{}')",
                                     rotate)));
  const bool compile = r.flag("compile", "enable", false);
  const std::vector<std::string> components = r.strings("compile", "components");
  const bool compiles_model =
      compile && (r.find("compile", "components") == nullptr ||
                  std::find(components.begin(), components.end(), "model") != components.end());
  if (r.flag("parallelism", "enable_async_tensor_parallel", false) && !compiles_model)
    out.push_back(breach("async-tp-compile", "distributed/tensor_parallel.py (maybe_enable_async_tp)",
                         "enable_async_tensor_parallel needs compile.enable with 'model' in compile.components"));

  for (const std::string& converter : r.strings("model", "converters"))
    if (converter != "quantize.linear.float8" && converter != "quantize.linear.mx" &&
        converter != "quantize.grouped_mm.float8" && converter != "quantize.grouped_mm.mx")
      out.push_back(breach("converter-known", "components/quantization/float8.py, mx.py (register_model_converter)",
                           fmt::format("model.converters holds '{}'; torchtitan registers quantize.linear.float8, "
                                       "quantize.linear.mx, quantize.grouped_mm.float8, quantize.grouped_mm.mx",
                                       converter)));
  if (const Json* recipe = r.find("quantize.linear.float8", "recipe_name"); recipe && recipe->is_string()) {
    const std::string name = recipe->get<std::string>();
    if (name != "tensorwise" && name != "rowwise" && name != "rowwise_with_gw_hp")
      out.push_back(breach("converter-known", "config/job_config.py (Float8Linear.recipe_name)",
                           fmt::format("quantize.linear.float8.recipe_name must be tensorwise, rowwise or "
                                       "rowwise_with_gw_hp, not '{}'", name)));
  }

  const std::string name = r.text("model", "name", "llama3");
  const std::string flavor_name = r.text("model", "flavor", "debugmodel");
  const Flavor* flavor = find_flavor(name, flavor_name);
  if (!flavor)
    out.push_back(breach("model-flavor", "models/llama3/__init__.py (llama3_args)",
                         fmt::format("model {} flavor {} is not one torchtitan defines (llama3: 8B, 70B, 405B here)",
                                     name, flavor_name),
                         "register the flavor's TransformerModelArgs in the model's __init__.py"));

  if (flavor && flavor->num_experts > 0 && flavor->num_experts % ep != 0)
    out.push_back(breach("ep-divides-experts", "distributed/expert_parallel.py (ExpertParallel: token counts viewed as ep x experts / ep)",
                         fmt::format("expert_parallel_degree {} must divide the {} experts", ep, flavor->num_experts)));
  if (flavor && (flavor->n_heads % tp != 0 || flavor->n_kv_heads % tp != 0))
    out.push_back(breach("tp-divides-kv-heads", "models/llama3/infra/parallelize.py (apply_tp), models/llama3/model/model.py",
                         fmt::format("TP shards the query and key/value projections by columns and each rank views its "
                                     "shard as whole heads: tensor_parallel_degree {} must divide the {} query and {} "
                                     "key/value heads", tp, flavor->n_heads, flavor->n_kv_heads)));
  if (pp > 1) {
    const std::string schedule = r.text("parallelism", "pipeline_parallel_schedule", "1F1B");
    const char* pipe = "distributed/pipeline_parallel.py (pipeline_llm, build_pipeline_schedule)";
    if (!known_schedule(schedule)) {
      out.push_back(breach("pp-schedule-known", pipe,
                           fmt::format("pipeline_parallel_schedule '{}' is not a torch.distributed.pipelining schedule "
                                       "(1F1B, GPipe, Interleaved1F1B, LoopedBFS, InterleavedZeroBubble, "
                                       "ZBVZeroBubble, DualPipeV)", schedule)));
      return out;
    }
    const std::int64_t micro = r.integer("parallelism", "pipeline_parallel_microbatch_size", 1);
    if (micro < 1 || local % micro != 0)
      out.push_back(breach("pp-microbatch-divides", pipe,
                           fmt::format("local_batch_size {} must be divisible by pipeline_parallel_microbatch_size {}",
                                       local, micro)));
    const std::int64_t in_w = r.integer("parallelism", "pipeline_parallel_first_stage_less_layers", 1);
    const std::int64_t out_w = r.integer("parallelism", "pipeline_parallel_last_stage_less_layers", 1);
    const bool single = single_stage_schedule(schedule);
    std::int64_t stages = pp * (single ? 1 : 2);
    if (const Json* lps = r.find("parallelism", "pipeline_parallel_layers_per_stage"); lps && flavor) {
      if (!lps->is_number_integer() || lps->get<std::int64_t>() < 1) {
        out.push_back(breach("key-type", "config/job_config.py (Parallelism)",
                             "pipeline_parallel_layers_per_stage must be a positive integer"));
        return out;
      }
      const std::int64_t per = lps->get<std::int64_t>();
      stages = (flavor->n_layers + in_w + out_w + per - 1) / per;
    }
    const Json* parts = r.find("parallelism", "module_fqns_per_model_part");
    if (parts && parts->is_array()) stages = static_cast<std::int64_t>(parts->size());
    const std::int64_t per_rank = stages / pp;
    const bool v_style = schedule == "ZBVZeroBubble" || schedule == "DualPipeV";
    if (stages % pp != 0 || (single && per_rank != 1) || (!single && per_rank < 2) || (v_style && per_rank != 2))
      out.push_back(breach("pp-stages-per-rank", pipe,
                           fmt::format("{} stages on {} ranks: the number of stages must be a multiple of the "
                                       "pipeline degree, with one stage per rank for 1F1B and GPipe, two or more for "
                                       "the looped schedules, exactly two for the V schedules", stages, pp)));
    else if (flavor && !(parts && parts->is_array())) {
      std::string why;
      if (stage_layers(stages, flavor->n_layers, in_w, out_w, &why).empty())
        out.push_back(breach("pp-stage-split", "distributed/pipeline_parallel.py (generate_llm_fqn_per_model_part)",
                             fmt::format("the layers cannot be split over {} stages: {}", stages, why)));
    }
  }
  return out;
}

Mapping map_layout(const models::TransformerSpec& model, const models::ClusterSpec& cluster, const planning::Layout& given) {
  Mapping m{.layout = given};
  auto& p = m.layout.parallelism;
  auto& t = m.layout.training;
  if (model.experts > 0 && !flavor_of(model))
    m.breaches.push_back({.rule = "moe-not-exported",
                          .source = "clustersim handoff",
                          .message = fmt::format("{} has the shape of no torchtitan MoE flavor clustersim knows (qwen3 "
                                                 "30B-A3B, 235B-A22B); torchtitan's other MoE models (deepseek_v3, "
                                                 "llama4, gpt_oss) are not exported", model.name)});
  else if (!flavor_of(model))
    m.breaches.push_back(breach(
        "model-flavor", "models/llama3/__init__.py (llama3_args)",
        fmt::format("torchtitan defines models in code; {} has the shape of no llama3 flavor (8B, 70B, 405B)", model.name),
        fmt::format("register a flavor \"{}\" in llama3_args: TransformerModelArgs(dim={}, n_layers={}, n_heads={}, "
                    "n_kv_heads={}, vocab_size={}) with ffn_dim_multiplier and multiple_of giving {} (the job config "
                    "below names it)", model.name, model.hidden, model.layers, model.heads, model.kv_heads, model.vocab,
                    model.ffn_hidden)));
  if (p.tp > 1 && !p.sp) {
    m.breaches.push_back(breach("tp-sequence-parallel", "models/llama3/infra/parallelize.py (apply_tp)",
                                "torchtitan's tensor parallelism always shards the norms along the sequence "
                                "(SequenceParallel), so TP without sequence parallelism cannot be run",
                                "the same layout with sequence parallelism"));
    p.sp = true;
  }
  const bool data_sharded = p.dp * p.cp > 1;
  // With one data-parallel rank no stage shards anything; torchtitan's job config then says ZeRO-0.
  if (!data_sharded && p.zero != 0) {
    m.notes.push_back(fmt::format("ZeRO-{} over one data-parallel rank shards nothing: written as plain training "
                                  "(ZeRO-0)", p.zero));
    p.zero = 0;
  }
  if (p.zero == 1 && data_sharded) {
    m.breaches.push_back(breach("no-zero-1", "models/llama3/infra/parallelize.py (apply_fsdp)",
                                "torchtitan shards data parallelism with FSDP2 (fully_shard), which shards gradients "
                                "with the optimizer state: ZeRO-1 (optimizer state only) is no torchtitan mode",
                                "ZeRO-2: FSDP2 with fsdp_reshard_after_forward \"never\" (one parameter all-gather "
                                "per step, gradients reduce-scattered)"));
    p.zero = 2;
  }
  if (p.zero == 0 && data_sharded && (p.tp > 1 || p.pp > 1 || p.cp > 1)) {
    m.breaches.push_back(breach("ddp-one-dimension", "models/llama3/infra/parallelize.py (parallelize_llama)",
                                "torchtitan runs plain data parallelism (DDP) only without TP, PP or CP (with CP it "
                                "always shards with FSDP2)",
                                "ZeRO-2: FSDP2 with fsdp_reshard_after_forward \"never\""));
    p.zero = 2;
  }
  if (p.zero == 0 && data_sharded && p.shard_group > 0) p.shard_group = 0;
  if (p.zero == 3 && p.shard_group > 0 && p.shard_group % p.cp != 0) {
    m.breaches.push_back(breach("hsdp-shard-group", "distributed/parallel_dims.py (ParallelDims.build_mesh)",
                                "torchtitan's FSDP group is data_parallel_shard x context degrees, so a hybrid shard "
                                "group must be a multiple of the context degree", "one FSDP group of all ranks"));
    p.shard_group = 0;
  }
  if (p.zero < 3 && p.shard_group > 0) p.shard_group = 0;  // hybrid sharding is read with ZeRO-3 only
  if (t.recompute == models::Recompute::selective) {
    m.breaches.push_back(breach("no-attention-core-recompute", "config/job_config.py (ActivationCheckpoint)",
                                "torchtitan checkpoints whole layers (full, or every n-th layer) or per op "
                                "(selective_ac_option \"op\"); recomputing only the attention core (Megatron's "
                                "selective) is no torchtitan mode",
                                "op-level selective checkpointing (recompute op)"));
    t.recompute = models::Recompute::op;
  }
  if (t.fp8_attention) {
    m.breaches.push_back(breach("no-fp8-attention", "config/job_config.py (Quantize.linear: float8 and mx)",
                                "torchtitan quantises linear layers only; its attention (SDPA or FlexAttention) "
                                "runs bf16", "bf16 attention"));
    t.fp8_attention = false;
  }
  if (t.precision == models::Precision::nvfp4) {
    m.breaches.push_back(breach("no-nvfp4", "config/job_config.py (Quantize.linear: float8 and mx)",
                                "torchtitan quantises linear layers to float8 or MX (mxfp8); it has no NVFP4 training "
                                "recipe", "fp8 with current (tensorwise) scaling"));
    t.precision = models::Precision::fp8;
    t.fp8_recipe = models::Fp8Recipe::current;
  }
  if (model.experts > 0 && t.precision == models::Precision::fp8) {
    m.breaches.push_back(breach("fp8-routed-experts", "components/quantization/float8.py, mx.py (register_model_converter)",
                                "torchtitan's linear converters leave the routed experts' grouped GEMMs in bf16, and "
                                "its grouped_mm converters quantise them apart (row-wise float8 scales, or MX blocks) "
                                "for the expert modules their fqns name: not the one recipe for every GEMM that "
                                "clustersim models",
                                "bf16 training"));
    t.precision = models::Precision::bf16;
    t.fp8_param_gather = false;
  }
  if (t.precision == models::Precision::fp8) {
    if (t.fp8_recipe == models::Fp8Recipe::delayed || t.fp8_recipe == models::Fp8Recipe::blockwise) {
      m.breaches.push_back(breach("fp8-recipe", "config/job_config.py (Float8Linear.recipe_name)",
                                  fmt::format("torchtitan's float8 recipes are tensorwise, rowwise and "
                                              "rowwise_with_gw_hp (and mxfp8 for MX): {} scaling is none of them",
                                              models::fp8_recipe_name(t.fp8_recipe)),
                                  "current (tensorwise) scaling"));
      t.fp8_recipe = models::Fp8Recipe::current;
    }
    if (t.fp8_param_gather && t.fp8_recipe == models::Fp8Recipe::mxfp8) {
      m.breaches.push_back(breach("fp8-param-gather", "config/job_config.py (Float8Linear.enable_fsdp_float8_all_gather)",
                                  "FSDP's float8 all-gather belongs to the float8 (tensorwise) converter: the MX "
                                  "converter gathers 16-bit weights",
                                  "16-bit parameter gathers"));
      t.fp8_param_gather = false;
    }
    if (!t.fp8_backward) {
      m.breaches.push_back(breach("fp8-recipe", "config/job_config.py (Float8Linear.recipe_name)",
                                  "torchtitan's recipes run the backward GEMMs in fp8 (rowwise_with_gw_hp keeps only "
                                  "the weight gradient in bf16): fp8 forward with bf16 backward is none of them",
                                  "fp8 in the backward too"));
      t.fp8_backward = true;
    }
  }
  if (p.ep > 1 && p.etp != 1 && p.etp != p.tp) {
    m.breaches.push_back(breach("etp-tp-or-one", "distributed/parallel_dims.py (ParallelDims._validate)",
                                "torchtitan's expert tensor parallelism is either 1 or the tensor degree",
                                "expert tensor parallelism 1"));
    p.etp = 1;
  }
  if (p.ep_comm_overlap) {
    m.breaches.push_back(breach("ep-overlap", "config/job_config.py (pipeline_parallel_expert_parallel_overlap)",
                                "torchtitan overlaps expert all-to-alls only inside the DualPipeV schedule",
                                "the all-to-alls on the stream"));
    p.ep_comm_overlap = false;
  }
  if (t.schedule == models::Schedule::gpipe && p.pp == 1) t.schedule = models::Schedule::one_f_one_b;
  if (p.tp_comm_overlap)
    m.notes.push_back("async TP (tp_comm_overlap) needs torch.compile of the model: compile.enable is set, which also "
                      "fuses the elementwise ops");
  if (p.zero == 3)
    m.notes.push_back("ZeRO-3 runs as FSDP2 (fully_shard per transformer block, reshard after forward), whatever "
                      "parallelism.sharding names");
  if (p.zero == 2)
    m.notes.push_back("ZeRO-2 is FSDP2 with fsdp_reshard_after_forward \"never\": parameters are sharded between "
                      "steps and held gathered from the forward to the backward, so peak memory is that of "
                      "unsharded parameters, as ZeRO-2's");
  if (p.cp > 1 && (p.cp_comm == models::CpComm::a2a || p.cp_comm == models::CpComm::a2a_p2p)) {
    m.breaches.push_back(breach("cp-rotate-method", "config/job_config.py (Parallelism.context_parallel_rotate_method)",
                                "torchtitan's context parallelism rotates key/value blocks (allgather or alltoall); "
                                "it has no DeepSpeed-Ulysses all-to-all of heads",
                                "parallelism.cp_comm all_gather (its default)"));
    p.cp_comm = models::CpComm::all_gather;
    p.cp_a2a_ranks = 0;
  }
  if (p.vp > 1) {
    // PyTorch's interleaved schedule picks its rounds from the micro-batches of a run.
    const std::int64_t per_run = t.global_batch / (p.dp * t.micro_batch * t.pipeline_runs);
    const char* schedules = "torch/distributed/pipelining/schedules.py (ScheduleInterleaved1F1B)";
    if (const std::int64_t round = interleaved_round(per_run, p.pp); round == 0) {
      m.breaches.push_back(breach("interleaved-rounds", schedules,
                                  fmt::format("PyTorch's interleaved schedule needs the {} micro-batches of a run to be "
                                              "a multiple of its max(1, {} / {}) rounds",
                                              per_run, per_run, p.pp)));
    } else if (round != models::microbatch_group_size(p)) {
      m.breaches.push_back(breach(
          "interleaved-rounds", schedules,
          fmt::format("PyTorch's interleaved schedule runs {} micro-batches a run in rounds of {} through each model "
                      "chunk, not groups of {}",
                      per_run, round, models::microbatch_group_size(p)),
          fmt::format("parallelism.microbatch_group {}", round)));
      p.microbatch_group = round == p.pp ? 0 : round;
    }
  }
  if (p.pp > 1 && t.global_batch / (p.dp * t.micro_batch) < p.pp * p.vp)
    m.notes.push_back("fewer micro-batches than pipeline stages: torchtitan warns of the bubble but runs it");
  if (t.cuda_graphs) m.notes.push_back("CUDA graphs have no torchtitan setting at this commit; not exported");
  if (p.cp > 1 && p.cp_max_ctas > 0)
    m.notes.push_back(fmt::format("parallelism.cp_max_ctas {} has no torchtitan setting (NCCL_MAX_CTAS in the "
                                  "environment would hold every communicator, not the context-parallel one alone); "
                                  "not exported",
                                  p.cp_max_ctas));
  if (p.dp * p.cp > 1 && p.dp_max_ctas > 0)
    m.notes.push_back(fmt::format("parallelism.dp_max_ctas {} has no torchtitan setting (NCCL_MAX_CTAS in the "
                                  "environment would hold every communicator, not the data-parallel ones alone); "
                                  "not exported",
                                  p.dp_max_ctas));
  if (t.bf16_params)
    m.notes.push_back("training.bf16_params is not exported: torchtitan keeps the fp32 model FSDP2 shards and casts "
                      "it to bf16 for compute (mixed_precision_param)");
  if (!t.fp32_loss)
    m.notes.push_back("training.fp32_loss false has no torchtitan setting: its cross_entropy_loss upcasts the logits "
                      "to fp32 (components/loss.py)");
  if (t.cross_entropy != models::framework_cross_entropy(models::framework_parameters(models::Framework::torchtitan),
                                                          t.elementwise))
    m.notes.push_back(fmt::format("training.cross_entropy {} has no torchtitan setting: its loss is compiled with the "
                                  "model, so it is {} with compile {} (components/loss.py)",
                                  models::cross_entropy_name(t.cross_entropy),
                                  t.elementwise == models::ElementwiseKernels::fused ? "fused" : "eager",
                                  t.elementwise == models::ElementwiseKernels::fused ? "on" : "off"));
  if (models::rotary_positions(model) &&
      t.rope_fusion != models::framework_rope_fusion(models::framework_parameters(models::Framework::torchtitan),
                                                     t.elementwise))
    m.notes.push_back(fmt::format("training.rope_fusion {} has no torchtitan setting: its RoPE is fused with "
                                  "torch.compile (training.elementwise fused) and op by op without it",
                                  t.rope_fusion ? "true" : "false"));
  if (auto v = models::layout_violation(model, p, t, cluster))
    m.notes.push_back(fmt::format("the layout offered breaks clustersim's rule: {}", v->rule));
  return m;
}

}  // namespace clustersim::handoff::torchtitan
