// NeMo 2 / Megatron-Bridge: a YAML of ConfigContainer overrides (yaml_subset.hpp) as a
// clustersim scenario. The file overrides a recipe this reader does not run: a field it leaves out
// takes Megatron-Core's default (TP, PP, CP, EP 1; no interleaving; no recomputation; no
// distributed optimizer), said in the notes, since the recipe may set another. The model's shape
// must be in the file (model.num_layers, hidden_size, num_attention_heads, vocab_size), as
// clustersim's export writes it. The cluster is ImportOptions' (the YAML does not say it).

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "handoff/frameworks/megatron_lm_rules.hpp"
#include "handoff/frameworks/nemo_rules.hpp"
#include "handoff/frameworks/whole_integer.hpp"
#include "handoff/import/framework_imports.hpp"
#include "handoff/import/scenario_json.hpp"
#include "handoff/import/yaml_subset.hpp"
#include "models/spec/moe.hpp"

namespace clustersim::handoff {

namespace {

constexpr double kCoreDropout = 0.1;  // TransformerConfig hidden_dropout / attention_dropout default
constexpr double kNemoDefaultTokens = 1e12;

class OverrideReader {
 public:
  OverrideReader(const NemoOverrides& o, std::string_view source) : o_(o), source_(source) {}

  bool has(std::string_view key) {
    used_.insert(std::string(key));
    return o_.has(key);
  }
  std::optional<std::string> text(std::string_view key) {
    used_.insert(std::string(key));
    return o_.text(key);
  }
  std::int64_t integer(std::string_view key, std::int64_t fallback, bool note_default = false) {
    used_.insert(std::string(key));
    if (note_default && !o_.has(key)) defaults_.push_back(fmt::format("{} {}", key, fallback));
    try {
      return o_.integer(key, fallback);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: {}", source_, e.what()));
    }
  }
  bool boolean(std::string_view key, bool fallback) {
    used_.insert(std::string(key));
    try {
      return o_.boolean(key, fallback);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: {}", source_, e.what()));
    }
  }
  double real(std::string_view key, double fallback) {
    const auto t = text(key);
    if (!t) return fallback;
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (end != t->c_str() + t->size()) throw ImportError(fmt::format("{}: {}: must be a number, got '{}'", source_, key, *t));
    return v;
  }
  std::int64_t required(std::string_view key, std::string_view alternative = {}) {
    if (o_.has(key)) return integer(key, 0);
    if (!alternative.empty() && o_.has(alternative)) return integer(alternative, 0);
    throw ImportError(fmt::format("{}: {} is missing: the file overrides a recipe's model without saying its shape, "
                                  "and clustersim does not run the recipe; add the model.* fields",
                                  source_, key));
  }
  std::vector<std::string> unread() const {
    std::vector<std::string> out;
    for (const auto& [key, value] : o_.values)
      if (!used_.contains(key)) out.push_back(fmt::format("{}: {}", key, value));
    return out;
  }
  const std::vector<std::string>& defaults() const { return defaults_; }

 private:
  const NemoOverrides& o_;
  std::string_view source_;
  std::set<std::string> used_{};
  std::vector<std::string> defaults_{};
};

std::vector<int> moe_layer_list(const std::string& text, std::int64_t layers, std::string_view source) {
  std::vector<int> out;
  if (text.starts_with('[')) {
    for (const char c : text)
      if (c == '0' || c == '1') out.push_back(c - '0');
      else if (c != '[' && c != ']' && c != ',' && c != ' ')
        throw ImportError(fmt::format("{}: model.moe_layer_freq: a list of 0 and 1, got '{}'", source, text));
  } else {
    const std::int64_t n = whole_integer(text).value_or(0);
    if (n < 1) throw ImportError(fmt::format("{}: model.moe_layer_freq must be a list or an integer of at least 1, got '{}'",
                                             source, text));
    for (std::int64_t i = 0; i < layers; ++i) out.push_back(i % n == 0 ? 1 : 0);
  }
  if (static_cast<std::int64_t>(out.size()) != layers)
    throw ImportError(fmt::format("{}: model.moe_layer_freq lists {} layers, model.num_layers {}", source, out.size(), layers));
  return out;
}

}  // namespace

ImportedScenario import_nemo(std::string_view text, std::string_view source, const ImportOptions& options) {
  NemoOverrides o;
  try {
    o.values = flatten_yaml(parse_yaml(text));
  } catch (const YamlError& e) {
    throw ImportError(fmt::format("{}: {}", source, e.what()));
  }
  ImportedScenario result;
  OverrideReader r(o, source);

  models::TransformerSpec m;
  m.layers = r.required("model.num_layers");
  m.hidden = r.required("model.hidden_size");
  m.heads = r.required("model.num_attention_heads");
  m.vocab = r.required("model.vocab_size", "tokenizer.vocab_size");
  r.has("tokenizer.vocab_size");
  r.has("tokenizer.tokenizer_type");
  m.ffn_hidden = r.integer("model.ffn_hidden_size", 4 * m.hidden);
  m.mlp = r.boolean("model.gated_linear_unit", false) ? models::MlpKind::swiglu : models::MlpKind::gelu;
  m.qk_norm = r.boolean("model.qk_layernorm", false);
  if (r.boolean("model.multi_latent_attention", false)) {
    m.attention = models::AttentionKind::mla;
    m.kv_heads = m.heads;
    m.q_lora_rank = r.integer("model.q_lora_rank", 0);
    m.kv_lora_rank = r.integer("model.kv_lora_rank", 512);  // MLATransformerConfig defaults
    m.qk_nope_head_dim = r.integer("model.qk_head_dim", 128);
    m.qk_rope_head_dim = r.integer("model.qk_pos_emb_head_dim", 64);
    m.v_head_dim = r.integer("model.v_head_dim", 128);
  } else {
    m.kv_heads = r.integer("model.num_query_groups", m.heads);
    m.attention = m.kv_heads == m.heads ? models::AttentionKind::mha : models::AttentionKind::gqa;
  }
  const std::int64_t kv_channels = r.integer("model.kv_channels", 0);
  if (kv_channels > 0 && kv_channels * m.heads != m.hidden) m.head_dim = kv_channels;
  m.tied_embeddings = r.boolean("model.share_embeddings_and_output_weights", true);
  m.dropout = r.real("model.hidden_dropout", kCoreDropout);
  if (r.real("model.attention_dropout", kCoreDropout) != m.dropout)
    result.notes.push_back("model.attention_dropout differs from hidden_dropout: clustersim has one dropout, the hidden one");
  if (const auto window = r.text("model.window_size")) {
    // "[left, right]": a window of left + 1 keys (megatron/core/transformer/transformer_config.py window_size).
    std::string w = *window;
    std::erase_if(w, [](char c) { return c == '[' || c == ']' || c == '(' || c == ')' || c == ' '; });
    std::int64_t left = -1;
    try {
      left = std::stoll(w.substr(0, w.find(',')));
    } catch (const std::exception&) {
      throw ImportError(fmt::format("{}: model.window_size '{}': expected [LEFT, RIGHT]", source, *window));
    }
    if (left >= 0) {
      m.sliding_window = left + 1;
      m.sliding_window_layers = 1;
      if (const auto freq = r.text("model.window_attn_skip_freq")) {
        std::vector<int> windowed;
        if (freq->starts_with('[')) {
          for (const char c : *freq)
            if (c == '0' || c == '1') windowed.push_back(c - '0');
        } else {
          const std::int64_t n = whole_integer(*freq).value_or(0);
          if (n < 1)
            throw ImportError(fmt::format("{}: model.window_attn_skip_freq '{}': expected a list or a positive integer",
                                          source, *freq));
          for (std::int64_t i = 0; i < m.layers; ++i) windowed.push_back((i + 1) % n != 0 ? 1 : 0);
        }
        std::int64_t period = 1;
        while (period < m.layers && period < static_cast<std::int64_t>(windowed.size()) &&
               windowed[static_cast<std::size_t>(period)] == 0)
          ++period;
        bool regular = static_cast<std::int64_t>(windowed.size()) == m.layers && windowed.front() == 1;
        for (std::int64_t i = 0; regular && i < m.layers; ++i)
          regular = (windowed[static_cast<std::size_t>(i)] == 1) == (i % period == 0);
        if (regular) {
          m.sliding_window_layers = period;
        } else {
          m.sliding_window = 0;
          m.sliding_window_layers = 0;
          result.notes.push_back("model.window_attn_skip_freq: clustersim models one windowed layer every n from the "
                                 "first; imported without a window");
        }
      }
    }
  }
  for (const char* shape_only : {"model.activation_func", "model.normalization", "model.position_embedding_type",
                                 "model.moe_grouped_gemm", "model.moe_router_padding_for_quantization"})
    r.has(shape_only);  // no cost clustersim counts depends on them
  // Megatron-Core's TransformerConfig.add_bias_linear (default true): every linear layer's bias,
  // the experts' among them.
  const bool linear_biases = r.boolean("model.add_bias_linear", true);
  if (r.has("model.num_moe_experts")) {
    m.experts = r.integer("model.num_moe_experts", 0);
    m.expert_bias = linear_biases;
    m.experts_per_token = r.integer("model.moe_router_topk", 2);
    m.expert_ffn_hidden = r.integer("model.moe_ffn_hidden_size", m.ffn_hidden);
    const std::int64_t shared = r.integer("model.moe_shared_expert_intermediate_size", 0);
    if (m.expert_ffn_hidden <= 0 || shared % m.expert_ffn_hidden != 0)
      throw ImportError(fmt::format("{}: model.moe_shared_expert_intermediate_size {} is not a whole number of experts "
                                    "of {}", source, shared, m.expert_ffn_hidden));
    m.shared_experts = shared / m.expert_ffn_hidden;
    const std::vector<int> pattern = moe_layer_list(r.text("model.moe_layer_freq").value_or("1"), m.layers, source);
    std::int64_t dense = 0;
    while (dense < m.layers && pattern[static_cast<std::size_t>(dense)] == 0) ++dense;
    std::int64_t period = 1;
    while (dense + period < m.layers && pattern[static_cast<std::size_t>(dense + period)] == 0) ++period;
    m.dense_layers = dense;
    m.moe_layer_freq = period;
    for (std::int64_t i = 0; i < m.layers; ++i)
      if (models::is_moe_layer(m, i) != (pattern[static_cast<std::size_t>(i)] == 1))
        throw ImportError(fmt::format("{}: model.moe_layer_freq: clustersim models leading dense layers then one MoE "
                                      "layer every N; layer {} breaks that", source, i));
  }

  models::ParallelismSpec p;
  p.tp = r.integer("model.tensor_model_parallel_size", 1, true);
  p.pp = r.integer("model.pipeline_model_parallel_size", 1, true);
  p.cp = r.integer("model.context_parallel_size", 1, true);
  if (const auto type = r.text("model.cp_comm_type"); type && *type != "null") {
    try {
      p.cp_comm = megatron_cp_comm(*type);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: model.cp_comm_type: {}", source, e.what()));
    }
  }
  if (p.cp_comm == models::CpComm::a2a_p2p) {
    try {
      p.cp_a2a_ranks =
          megatron_cp_a2a_ranks(r.text("model.hierarchical_context_parallel_sizes").value_or(""), p.cp);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: model.hierarchical_context_parallel_sizes: {}", source, e.what()));
    }
  } else {
    r.has("model.hierarchical_context_parallel_sizes");
  }
  const ImportedCluster cluster = imported_cluster(options, 0, 0, 0, result.notes);
  const std::int64_t model_parallel = p.tp * p.pp * p.cp;
  if (model_parallel <= 0 || cluster.num_gpus() % model_parallel != 0)
    throw ImportError(fmt::format("{}: {} GPUs are not a multiple of TP x PP x CP = {} (Megatron-Bridge "
                                  "src/megatron/bridge/training/config.py); give --nodes / --gpus-per-node",
                                  source, cluster.num_gpus(), model_parallel));
  p.dp = cluster.num_gpus() / model_parallel;
  std::vector<std::int64_t> asked_split;  // layers of each model chunk, where the configuration gives them
  if (const auto layout = r.text("model.pipeline_model_parallel_layout")) {
    std::vector<std::string> stages;
    try {
      stages = pipeline_layout_stages(*layout);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: model.pipeline_model_parallel_layout: {}", source, e.what()));
    }
    if (stages.size() % static_cast<std::size_t>(p.pp) != 0)
      throw ImportError(fmt::format("{}: model.pipeline_model_parallel_layout has {} stages, not a multiple of {}",
                                    source, stages.size(), p.pp));
    p.vp = static_cast<std::int64_t>(stages.size()) / p.pp;
    for (const std::string& stage : stages) asked_split.push_back(std::count(stage.begin(), stage.end(), 't'));
  } else {
    p.vp = r.integer("model.virtual_pipeline_model_parallel_size", 1);
  }
  r.has("model.virtual_pipeline_model_parallel_size");
  // Without a layout, Megatron-Core's uneven stages or its embedding and loss slots.
  const MegatronSplitSettings settings{.first = r.integer("model.num_layers_in_first_pipeline_stage", 0),
                                       .last = r.integer("model.num_layers_in_last_pipeline_stage", 0),
                                       .embedding = r.boolean("model.account_for_embedding_in_pipeline_split", false),
                                       .loss = r.boolean("model.account_for_loss_in_pipeline_split", false)};
  try {
    p.layers_per_chunk = recorded_megatron_split(m.layers, p.pp, p.vp, std::move(asked_split), settings);
  } catch (const std::invalid_argument& e) {
    throw ImportError(fmt::format("{}: the pipeline split: {}", source, e.what()));
  }
  constexpr std::string_view group_key = "model.microbatch_group_size_per_vp_stage";
  p.microbatch_group = recorded_microbatch_group(r.integer(group_key, 0), p, group_key, result.notes);
  p.sp = r.boolean("model.sequence_parallel", false) && p.tp > 1;
  p.tp_comm_overlap = r.boolean("comm_overlap.tp_comm_overlap", false) && p.sp;
  r.has("comm_overlap._target_");
  const bool fsdp2 = r.boolean("dist.use_torch_fsdp2", false);
  // Either of a pair turns the feature on (config.py syncs them); both are read.
  const bool ddp_mfsdp = r.boolean("ddp.use_megatron_fsdp", false);
  const bool mfsdp = r.boolean("dist.use_megatron_fsdp", false) || ddp_mfsdp;
  const bool ddp_dist_opt = r.boolean("ddp.use_distributed_optimizer", false);
  const bool dist_opt = r.boolean("optimizer.use_distributed_optimizer", false) || ddp_dist_opt;
  if (fsdp2) {
    p.zero = 3;
    p.sharding = models::ShardingFramework::fsdp2;
  } else if (mfsdp) {
    const std::string strategy = r.text("ddp.data_parallel_sharding_strategy").value_or("no_shard");
    p.zero = strategy == "optim_grads_params" ? 3 : strategy == "optim_grads" ? 2 : strategy == "optim" ? 1 : 0;
    if (p.zero == 3) p.sharding = models::ShardingFramework::megatron_fsdp;
  } else {
    p.zero = dist_opt ? 1 : 0;
  }
  r.has("ddp.data_parallel_sharding_strategy");
  r.has("checkpoint.ckpt_format");
  if (m.experts > 0) {
    p.ep = r.integer("model.expert_model_parallel_size", 1);
    const std::int64_t etp = r.integer("model.expert_tensor_parallel_size", p.tp);
    if (etp != 1)
      result.unmapped.push_back(fmt::format("model.expert_tensor_parallel_size {}: clustersim models expert tensor "
                                            "parallelism 1 only; imported as 1", etp));
    p.etp = 1;
  }
  const bool ep_overlap = r.boolean("comm_overlap.overlap_moe_expert_parallel_comm", false);
  p.ep_comm_overlap = ep_overlap && m.experts > 0;

  models::TrainingSpec t;
  t.seq_len = r.required("model.seq_length", "dataset.seq_length");
  r.has("dataset.seq_length");
  t.micro_batch = r.integer("train.micro_batch_size", 1, true);
  t.global_batch = r.required("train.global_batch_size");
  const std::string precision = r.text("mixed_precision").value_or("bf16_mixed");
  if (precision.find("nvfp4") != std::string::npos) {
    t.precision = models::Precision::nvfp4;
  } else if (precision.find("fp8") != std::string::npos || precision.find("mxfp8") != std::string::npos) {
    t.precision = models::Precision::fp8;
    t.fp8_recipe = precision.find("mxfp8") != std::string::npos     ? models::Fp8Recipe::mxfp8
                   : precision.find("current") != std::string::npos  ? models::Fp8Recipe::current
                   : precision.find("subchannel") != std::string::npos ? models::Fp8Recipe::blockwise
                                                                       : models::Fp8Recipe::delayed;
  } else if (precision != "bf16_mixed") {
    result.notes.push_back(fmt::format("mixed_precision {}: clustersim models it as bf16", precision));
  }
  if (!o.has("mixed_precision")) result.notes.push_back("mixed_precision not in the file: bf16_mixed");
  const std::string granularity = r.text("model.recompute_granularity").value_or("");
  t.recompute = granularity == "full"        ? models::Recompute::full
                : granularity == "selective" ? models::Recompute::selective
                                             : models::Recompute::none;
  const std::string method = r.text("model.recompute_method").value_or("");
  const std::int64_t recompute_layers = r.integer("model.recompute_num_layers", 1);
  if (t.recompute == models::Recompute::full && (method != "uniform" || recompute_layers != 1))
    result.notes.push_back(fmt::format("full recomputation by {} of {} layers: clustersim recomputes every layer",
                                       method.empty() ? "no method" : method, recompute_layers));
  t.schedule = p.vp > 1 ? models::Schedule::interleaved : models::Schedule::one_f_one_b;
  if (r.has("train.train_iters")) {
    t.tokens = static_cast<double>(r.integer("train.train_iters", 0)) * static_cast<double>(t.global_batch) *
               static_cast<double>(t.seq_len);
  } else if (r.has("train.train_samples")) {
    t.tokens = static_cast<double>(r.integer("train.train_samples", 0)) * static_cast<double>(t.seq_len);
  } else {
    t.tokens = kNemoDefaultTokens;
    result.notes.push_back("neither train.train_iters nor train.train_samples: training.tokens 1e12");
  }
  t.overlap_grad_reduce = fsdp2 || r.boolean("ddp.overlap_grad_reduce", false);
  t.overlap_param_gather = fsdp2 || r.boolean("ddp.overlap_param_gather", false);
  r.has("optimizer.overlap_param_gather");
  t.grad_dtype = r.boolean("ddp.grad_reduce_in_fp32", true) ? models::GradDtype::fp32 : models::GradDtype::bf16;
  t.cross_entropy = r.boolean("model.cross_entropy_loss_fusion", false) ? models::CrossEntropyKernel::fused
                                                                         : models::CrossEntropyKernel::inplace;
  // Absent, the framework set's fused RoPE stays.
  if (r.has("model.apply_rope_fusion")) t.rope_fusion = r.boolean("model.apply_rope_fusion", true);
  const bool accumulation_fused = r.boolean("model.gradient_accumulation_fusion", true);
  t.grad_accumulation = !accumulation_fused && p.zero < 2 ? models::GradAccumulation::main_grad_add
                                                          : models::GradAccumulation::fused;
  t.grad_bucket_params = r.integer("ddp.bucket_size", 0);
  t.defer_embedding_wgrad = r.boolean("model.defer_embedding_wgrad_compute", false) && p.pp > 1;
  t.wgrad_deferral_limit = r.integer("model.wgrad_deferral_limit", 0);
  const std::string graphs = r.text("model.cuda_graph_impl").value_or("none");
  t.cuda_graphs = graphs != "none";
  if (m.experts > 0) {
    const std::string dispatcher = r.text("model.moe_token_dispatcher_type").value_or("allgather");
    const std::string backend = r.text("model.moe_flex_dispatcher_backend").value_or("deepep");
    t.moe_dispatcher = dispatcher == "flex" && backend == "deepep" ? models::MoeDispatcher::deepep
                                                                   : models::MoeDispatcher::alltoall;
    if (dispatcher == "allgather")
      result.notes.push_back("model.moe_token_dispatcher_type allgather (Megatron-Core's default): modelled as alltoall");
    t.moe_capacity_factor = r.real("model.moe_expert_capacity_factor", 0.0);
    t.moe_pad_to_capacity = r.boolean("model.moe_pad_expert_input_to_capacity", false);
  }

  if (!r.defaults().empty()) {
    std::string list;
    for (const std::string& d : r.defaults()) list += (list.empty() ? "" : ", ") + d;
    result.notes.push_back(fmt::format("not in the file, Megatron-Core's defaults taken (the recipe may set others): {}",
                                       list));
  }
  const std::optional<std::string> preset = matching_model_preset(m);
  m.name = preset ? *preset : "imported";
  std::vector<std::string> unread = r.unread();
  unread.insert(unread.end(), result.unmapped.begin(), result.unmapped.end());
  result.unmapped = std::move(unread);
  const std::string name = fmt::format("imported from {}", std::filesystem::path(std::string(source)).filename().string());
  result.scenario = scenario_json(name, m, preset, cluster, p, t);
  return result;
}

}  // namespace clustersim::handoff
