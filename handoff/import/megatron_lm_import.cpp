// Megatron-LM: a launch script, command line, arguments file or printed arguments block
// (megatron_lm_script.hpp) as a clustersim scenario. Defaults are Megatron-LM's where the
// configuration leaves a flag out (arguments.py and the config classes at the commit of
// handoff/frameworks/megatron_lm_rules.hpp): TP, PP, CP, EP 1; micro-batch 1; the global batch
// micro-batch x DP; dropout 0.1; the FFN 4 h (SwiGLU: 8 h / 3 rounded down to a multiple of 64);
// no recomputation, no distributed optimizer, no gradient-reduction overlap.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "handoff/frameworks/whole_integer.hpp"
#include "handoff/import/framework_imports.hpp"
#include "handoff/import/megatron_lm_script.hpp"
#include "handoff/import/scenario_json.hpp"
#include "handoff/import/yaml_subset.hpp"
#include "models/spec/moe.hpp"

namespace clustersim::handoff {

namespace {

// GPT-2's BPE vocabulary (the vocab file the GPT-3 examples name): 50257 tokens.
constexpr std::int64_t kGpt2Vocab = 50257;
// Megatron-LM pads the vocabulary to a multiple of this x TP (--make-vocab-size-divisible-by).
constexpr std::int64_t kVocabDivisibleBy = 128;
constexpr double kMegatronDropout = 0.1;
constexpr double kDefaultTokens = 1e12;

class Reader {
 public:
  Reader(const MegatronArguments& a, std::string_view source) : a_(a), source_(source) {}

  bool has(std::string_view flag) {
    used_.insert(std::string(flag));
    return a_.has(flag);
  }
  std::string value(std::string_view flag) {
    used_.insert(std::string(flag));
    return a_.value(flag);
  }
  std::int64_t integer(std::string_view flag, std::int64_t fallback) {
    used_.insert(std::string(flag));
    try {
      return a_.integer(flag, fallback);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: {}", source_, e.what()));
    }
  }
  std::int64_t required(std::string_view flag) {
    if (!a_.has(flag))
      throw ImportError(fmt::format("{}: {} is missing: Megatron-LM requires it (megatron/training/arguments.py)",
                                    source_, flag));
    return integer(flag, 0);
  }
  double real(std::string_view flag, double fallback) {
    used_.insert(std::string(flag));
    if (!a_.has(flag)) return fallback;
    try {
      std::size_t used = 0;
      const std::string v = a_.value(flag);
      const double d = std::stod(v, &used);
      if (used == v.size()) return d;
    } catch (const std::exception&) {
    }
    throw ImportError(fmt::format("{}: {} must be a number, got '{}'", source_, flag, a_.value(flag)));
  }
  // The flags nothing read, as given, in order.
  std::vector<std::string> unread() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& [flag, value] : a_.flags) {
      if (used_.contains(flag) || !seen.insert(flag).second) continue;
      out.push_back(value.empty() ? flag : flag + " " + value);
    }
    return out;
  }

 private:
  const MegatronArguments& a_;
  std::string_view source_;
  std::set<std::string> used_{};
};

// The per-layer MoE flags of a --moe-layer-freq value: an integer N (every N-th layer), or a
// Python list expression of [..]*n terms joined by '+', optionally in ( )*n groups.
std::vector<int> layer_pattern(const std::string& text, std::int64_t layers, std::string_view source) {
  const auto fail = [&] {
    return ImportError(fmt::format("{}: --moe-layer-freq '{}': expected an integer or a list expression like "
                                   "([0]*3+[1]*58)", source, text));
  };
  std::vector<int> out;
  if (text.find('[') == std::string::npos) {
    const std::int64_t n = whole_integer(text).value_or(0);
    if (n < 1) throw fail();
    for (std::int64_t i = 0; i < layers; ++i) out.push_back(i % n == 0 ? 1 : 0);
    return out;
  }
  std::size_t i = 0;
  std::function<std::vector<int>()> sum;
  const auto skip = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  const auto count = [&]() -> std::int64_t {
    skip();
    if (i >= text.size() || text[i] != '*') return 1;
    ++i;
    skip();
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    const std::int64_t n = whole_integer(std::string_view(text).substr(i, j - i)).value_or(0);
    if (n < 1) throw fail();
    i = j;
    return n;
  };
  const auto term = [&]() -> std::vector<int> {
    skip();
    std::vector<int> items;
    if (i < text.size() && text[i] == '(') {
      ++i;
      items = sum();
      skip();
      if (i >= text.size() || text[i] != ')') throw fail();
      ++i;
    } else if (i < text.size() && text[i] == '[') {
      ++i;
      while (i < text.size() && text[i] != ']') {
        skip();
        if (i < text.size() && text[i] == ']') break;
        if (text[i] == '0' || text[i] == '1') items.push_back(text[i] - '0');
        else if (text[i] != ',') throw fail();
        ++i;
      }
      if (i >= text.size()) throw fail();
      ++i;
    } else {
      throw fail();
    }
    const std::int64_t n = count();
    std::vector<int> repeated;
    for (std::int64_t k = 0; k < n; ++k) repeated.insert(repeated.end(), items.begin(), items.end());
    return repeated;
  };
  sum = [&]() -> std::vector<int> {
    std::vector<int> all = term();
    skip();
    while (i < text.size() && text[i] == '+') {
      ++i;
      const std::vector<int> more = term();
      all.insert(all.end(), more.begin(), more.end());
      skip();
    }
    return all;
  };
  out = sum();
  if (i != text.size()) throw fail();
  return out;
}

models::TransformerSpec read_model(Reader& r, std::int64_t tp, std::string_view source, std::vector<std::string>& notes,
                                   bool& vocab_known) {
  models::TransformerSpec m;
  m.layers = r.required("--num-layers");
  m.hidden = r.required("--hidden-size");
  m.heads = r.required("--num-attention-heads");
  m.mlp = r.has("--swiglu") ? models::MlpKind::swiglu : models::MlpKind::gelu;
  const std::int64_t default_ffn =
      m.mlp == models::MlpKind::swiglu ? (4 * m.hidden * 2 / 3) / 64 * 64 : 4 * m.hidden;  // validate_args
  m.ffn_hidden = r.integer("--ffn-hidden-size", default_ffn);
  if (r.has("--multi-latent-attention")) {
    m.attention = models::AttentionKind::mla;
    m.kv_heads = m.heads;
    // Megatron-LM's MLA defaults (arguments.py): no query latent, kv latent 32, heads 128 + 64, values 128.
    m.q_lora_rank = r.integer("--q-lora-rank", 0);
    m.kv_lora_rank = r.integer("--kv-lora-rank", 32);
    m.qk_nope_head_dim = r.integer("--qk-head-dim", 128);
    m.qk_rope_head_dim = r.integer("--qk-pos-emb-head-dim", 64);
    m.v_head_dim = r.integer("--v-head-dim", 128);
  } else {
    m.kv_heads = r.has("--group-query-attention") ? r.integer("--num-query-groups", 1) : m.heads;
    m.attention = m.kv_heads == m.heads ? models::AttentionKind::mha : models::AttentionKind::gqa;
  }
  const std::int64_t kv_channels = r.integer("--kv-channels", 0);
  if (kv_channels > 0 && kv_channels * m.heads != m.hidden) m.head_dim = kv_channels;
  m.tied_embeddings = !r.has("--untie-embeddings-and-output-weights");
  m.qk_norm = r.has("--qk-layernorm");
  m.dropout = r.real("--hidden-dropout", kMegatronDropout);
  if (r.real("--attention-dropout", kMegatronDropout) != m.dropout)
    notes.push_back("--attention-dropout differs from --hidden-dropout: clustersim has one dropout, the hidden one");
  vocab_known = true;
  if (r.has("--vocab-size")) {
    m.vocab = r.integer("--vocab-size", 0);
  } else if (r.value("--vocab-file").find("gpt2") != std::string::npos) {
    const std::int64_t multiple = r.integer("--make-vocab-size-divisible-by", kVocabDivisibleBy) * tp;
    m.vocab = (kGpt2Vocab + multiple - 1) / multiple * multiple;
    notes.push_back(fmt::format("vocabulary: GPT-2's {} tokens padded to a multiple of {} (Megatron-LM pads to "
                                "--make-vocab-size-divisible-by x TP): {}", kGpt2Vocab, multiple, m.vocab));
  } else {
    vocab_known = false;
  }
  if (r.has("--window-size")) {
    // "(left,right)" or "left,right" (arguments.py tuple_type); a window of left + 1 keys.
    std::string w = r.value("--window-size");
    std::erase_if(w, [](char c) { return c == '(' || c == ')' || c == ' '; });
    const std::size_t comma = w.find(',');
    std::int64_t left = -1;
    try {
      left = std::stoll(w.substr(0, comma));
    } catch (const std::exception&) {
      throw ImportError(fmt::format("{}: --window-size '{}': expected LEFT,RIGHT", source, r.value("--window-size")));
    }
    if (left >= 0) {
      m.sliding_window = left + 1;
      m.sliding_window_layers = 1;  // no --window-attn-skip-freq: every layer windowed
      if (r.has("--window-attn-skip-freq")) {
        const std::string freq = r.value("--window-attn-skip-freq");
        std::vector<int> windowed;
        if (freq.find('[') != std::string::npos) {
          windowed = layer_pattern(freq, m.layers, source);
        } else {
          const std::int64_t n = whole_integer(freq).value_or(0);  // layer number k windowed unless k % n == 0
          if (n < 1)
            throw ImportError(fmt::format("{}: --window-attn-skip-freq '{}': expected a positive integer or a list "
                                          "expression", source, freq));
          for (std::int64_t i = 0; i < m.layers; ++i) windowed.push_back((i + 1) % n != 0 ? 1 : 0);
        }
        std::int64_t period = 1;
        while (period < m.layers && windowed[static_cast<std::size_t>(period)] == 0) ++period;
        bool regular = static_cast<std::int64_t>(windowed.size()) == m.layers && windowed.front() == 1;
        for (std::int64_t i = 0; regular && i < m.layers; ++i)
          regular = (windowed[static_cast<std::size_t>(i)] == 1) == (i % period == 0);
        if (regular) {
          m.sliding_window_layers = period;
        } else {
          m.sliding_window = 0;
          m.sliding_window_layers = 0;
          notes.push_back(fmt::format("--window-attn-skip-freq {}: clustersim models one windowed layer every n from the "
                                      "first; imported without a window", freq));
        }
      }
    }
  }
  // Normalisation, positions and biases shape no cost clustersim counts: read, not mapped (the one
  // position scheme it costs, ALiBi, is not among Megatron-LM's).
  r.has("--normalization");
  r.has("--position-embedding-type");
  const bool linear_biases = !r.has("--disable-bias-linear");  // Megatron-LM's add_bias_linear default
  r.has("--group-query-attention");
  r.has("--max-position-embeddings");
  if (r.has("--num-experts")) {
    m.experts = r.integer("--num-experts", 0);
    m.experts_per_token = r.integer("--moe-router-topk", 2);
    m.expert_ffn_hidden = r.integer("--moe-ffn-hidden-size", m.ffn_hidden);
    m.expert_bias = linear_biases;
    const std::int64_t shared = r.integer("--moe-shared-expert-intermediate-size", 0);
    if (m.expert_ffn_hidden <= 0 || shared % m.expert_ffn_hidden != 0)
      throw ImportError(fmt::format("{}: --moe-shared-expert-intermediate-size {} is not a whole number of experts of "
                                    "--moe-ffn-hidden-size {}", source, shared, m.expert_ffn_hidden));
    m.shared_experts = shared / m.expert_ffn_hidden;
    const std::vector<int> pattern =
        layer_pattern(r.has("--moe-layer-freq") ? r.value("--moe-layer-freq") : "1", m.layers, source);
    if (static_cast<std::int64_t>(pattern.size()) != m.layers)
      throw ImportError(fmt::format("{}: --moe-layer-freq gives {} layers, --num-layers {}", source, pattern.size(),
                                    m.layers));
    std::int64_t dense = 0;
    while (dense < m.layers && pattern[static_cast<std::size_t>(dense)] == 0) ++dense;
    std::int64_t period = 1;
    while (dense + period < m.layers && pattern[static_cast<std::size_t>(dense + period)] == 0) ++period;
    m.dense_layers = dense;
    m.moe_layer_freq = period;
    for (std::int64_t i = 0; i < m.layers; ++i)
      if (models::is_moe_layer(m, i) != (pattern[static_cast<std::size_t>(i)] == 1))
        throw ImportError(fmt::format("{}: --moe-layer-freq: clustersim models leading dense layers then one MoE layer "
                                      "every N; layer {} breaks that", source, i));
  }
  return m;
}

/// The CTA limits an NCCL options file sets for the groups the step model holds to a few CTAs.
struct NcclCtaLimits {
  std::int64_t cp = 0;  // ParallelismSpec::cp_max_ctas
  std::int64_t dp = 0;  // ParallelismSpec::dp_max_ctas
};

/// The max_ctas of the NCCL options file Megatron-Core reads (parallel_state.get_nccl_options:
/// options per process group name) for the group the context-parallel exchange runs on
/// (megatron_cp_process_group of `comm`) and for the data-parallel groups (dp_cp, which the
/// distributed optimizer and DDP run on, else dp); 0 where the file cannot be read or sets none.
/// The other groups' options are listed as not modelled.
NcclCtaLimits nccl_config_cta_limits(const std::string& name, models::CpComm comm, std::string_view source,
                                     const ImportOptions& options, ImportedScenario& result) {
  const std::string flag = "--nccl-communicator-config-path " + name;
  const std::optional<std::string> text = options.read_named_file ? options.read_named_file(name) : std::nullopt;
  if (!text) {
    result.unmapped.push_back(flag + " (the file was not read: no CTA limits taken)");
    return {};
  }
  std::vector<std::pair<std::string, std::string>> entries;
  try {
    entries = flatten_yaml(parse_yaml(*text));
  } catch (const YamlError& e) {
    throw ImportError(fmt::format("{}: --nccl-communicator-config-path {}: {}", source, name, e.what()));
  }
  const std::string cp_key = fmt::format("{}.max_ctas", megatron_cp_process_group(comm));
  const auto ctas_of = [&](const std::string& key, const std::string& value) {
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc{} || end != value.data() + value.size() || parsed < 1 || parsed > 64)
      throw ImportError(fmt::format("{}: --nccl-communicator-config-path {}: {} must be an integer in "
                                    "1..64 (NCCL's MAXCHANNELS), got '{}'",
                                    source, name, key, value));
    return parsed;
  };
  NcclCtaLimits limits;
  std::int64_t dp = 0, dp_cp = 0;
  for (const auto& [key, value] : entries) {
    if (key == cp_key) {
      limits.cp = ctas_of(key, value);
    } else if (key == "dp_cp.max_ctas") {
      dp_cp = ctas_of(key, value);
    } else if (key == "dp.max_ctas") {
      dp = ctas_of(key, value);
    } else {
      result.unmapped.push_back(fmt::format("{}: {} {}", flag, key, value));
    }
  }
  limits.dp = dp_cp > 0 ? dp_cp : dp;
  if (limits.cp > 0) result.notes.push_back(fmt::format("{}: {} {} is parallelism.cp_max_ctas", flag, cp_key, limits.cp));
  if (limits.dp > 0)
    result.notes.push_back(fmt::format("{}: {} {} is parallelism.dp_max_ctas", flag,
                                       dp_cp > 0 ? "dp_cp.max_ctas" : "dp.max_ctas", limits.dp));
  return limits;
}

}  // namespace

ImportedScenario import_megatron_lm(std::string_view text, std::string_view source, const ImportOptions& options) {
  MegatronScript script = [&] {
    try {
      return read_megatron_script(text);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: {}", source, e.what()));
    }
  }();
  ImportedScenario result;
  result.notes = script.notes;
  Reader r(script.arguments, source);

  models::ParallelismSpec p;
  p.tp = r.integer("--tensor-model-parallel-size", 1);
  p.pp = r.integer("--pipeline-model-parallel-size", 1);
  p.cp = r.integer("--context-parallel-size", 1);
  if (r.has("--cp-comm-type")) {
    try {
      p.cp_comm = megatron_cp_comm(r.value("--cp-comm-type"));
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: --cp-comm-type: {}", source, e.what()));
    }
  }
  if (p.cp_comm == models::CpComm::a2a_p2p) {
    try {
      p.cp_a2a_ranks = megatron_cp_a2a_ranks(r.value("--hierarchical-context-parallel-sizes"), p.cp);
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: --hierarchical-context-parallel-sizes: {}", source, e.what()));
    }
  }
  if (r.has("--nccl-communicator-config-path")) {
    const NcclCtaLimits limits =
        nccl_config_cta_limits(r.value("--nccl-communicator-config-path"), p.cp_comm, source, options, result);
    p.cp_max_ctas = limits.cp;
    p.dp_max_ctas = limits.dp;
  }
  bool vocab_known = true;
  models::TransformerSpec model = read_model(r, p.tp, source, result.notes, vocab_known);

  const ImportedCluster cluster = imported_cluster(options, script.nnodes, script.nproc_per_node,
                                                   script.arguments.world_size, result.notes);
  const std::int64_t model_parallel = p.tp * p.pp * p.cp;
  if (model_parallel <= 0 || cluster.num_gpus() % model_parallel != 0)
    throw ImportError(fmt::format("{}: {} GPUs ({} nodes of {}) are not a multiple of TP x PP x CP = {} "
                                  "(megatron/training/arguments.py); give --nodes / --gpus-per-node",
                                  source, cluster.num_gpus(), cluster.nodes, cluster.gpus_per_node, model_parallel));
  p.dp = cluster.num_gpus() / model_parallel;

  // Model chunks per pipeline rank, and the split the configuration asks for.
  std::vector<std::int64_t> asked_split;
  const std::int64_t embedding_slot = r.has("--account-for-embedding-in-pipeline-split") ? 1 : 0;
  const std::int64_t loss_slot = r.has("--account-for-loss-in-pipeline-split") ? 1 : 0;
  if (r.has("--pipeline-model-parallel-layout")) {
    std::vector<std::string> stages;
    try {
      stages = pipeline_layout_stages(r.value("--pipeline-model-parallel-layout"));
    } catch (const std::invalid_argument& e) {
      throw ImportError(fmt::format("{}: --pipeline-model-parallel-layout: {}", source, e.what()));
    }
    if (p.pp <= 0 || stages.size() % static_cast<std::size_t>(p.pp) != 0)
      throw ImportError(fmt::format("{}: --pipeline-model-parallel-layout has {} stages, not a multiple of the "
                                    "pipeline size {} (pipeline_parallel_layer_layout.py)", source, stages.size(), p.pp));
    p.vp = static_cast<std::int64_t>(stages.size()) / p.pp;
    for (const std::string& s : stages) asked_split.push_back(std::count(s.begin(), s.end(), 't'));
  } else if (r.has("--num-virtual-stages-per-pipeline-rank")) {
    p.vp = r.integer("--num-virtual-stages-per-pipeline-rank", 1);
  } else if (r.has("--num-layers-per-virtual-pipeline-stage")) {
    const std::int64_t per_chunk = r.integer("--num-layers-per-virtual-pipeline-stage", 1);
    if (per_chunk <= 0 || (model.layers + embedding_slot + loss_slot) % (p.pp * per_chunk) != 0)
      throw ImportError(fmt::format("{}: --num-layers-per-virtual-pipeline-stage {} does not divide the {} layers of "
                                    "{} stages (megatron/training/arguments.py)", source, per_chunk,
                                    model.layers + embedding_slot + loss_slot, p.pp));
    p.vp = (model.layers + embedding_slot + loss_slot) / p.pp / per_chunk;
  }
  // Without a layout, Megatron-Core's uneven stages or its embedding and loss slots.
  const MegatronSplitSettings settings{.first = r.integer("--decoder-first-pipeline-num-layers", 0),
                                       .last = r.integer("--decoder-last-pipeline-num-layers", 0),
                                       .embedding = embedding_slot > 0,
                                       .loss = loss_slot > 0};
  try {
    p.layers_per_chunk = recorded_megatron_split(model.layers, p.pp, p.vp, std::move(asked_split), settings);
  } catch (const std::invalid_argument& e) {
    throw ImportError(fmt::format("{}: the pipeline split: {}", source, e.what()));
  }
  constexpr std::string_view group_flag = "--microbatch-group-size-per-virtual-pipeline-stage";
  p.microbatch_group = recorded_microbatch_group(r.integer(group_flag, 0), p, group_flag, result.notes);

  const bool sp = r.has("--sequence-parallel");
  p.sp = sp && p.tp > 1;
  if (sp && p.tp == 1) result.notes.push_back("--sequence-parallel at TP 1: Megatron-LM switches it off, and so does the scenario");
  p.tp_comm_overlap = r.has("--tp-comm-overlap") && p.sp;

  // Data-parallel sharding.
  const bool dist_opt = r.has("--use-distributed-optimizer");
  if (r.has("--use-torch-fsdp2")) {
    p.zero = 3;
    p.sharding = models::ShardingFramework::fsdp2;
  } else if (r.has("--use-megatron-fsdp")) {
    const std::string strategy =
        r.has("--data-parallel-sharding-strategy") ? r.value("--data-parallel-sharding-strategy") : "optim_grads_params";
    p.zero = strategy == "optim_grads_params" ? 3 : strategy == "optim_grads" ? 2 : strategy == "optim" ? 1 : 0;
    if (p.zero == 3) p.sharding = models::ShardingFramework::megatron_fsdp;
  } else {
    p.zero = dist_opt ? 1 : 0;
  }
  r.has("--ckpt-format");

  if (model.experts > 0) {
    p.ep = r.integer("--expert-model-parallel-size", 1);
    const std::int64_t etp = r.integer("--expert-tensor-parallel-size", p.tp);
    if (etp != 1)
      result.unmapped.push_back(fmt::format("--expert-tensor-parallel-size {}{}: clustersim models expert tensor "
                                            "parallelism 1 only; imported as 1", etp,
                                            r.has("--expert-tensor-parallel-size") ? "" : " (Megatron-LM's default, the TP size)"));
    p.etp = 1;
    p.ep_comm_overlap = r.has("--overlap-moe-expert-parallel-comm");
  }

  models::TrainingSpec t;
  t.seq_len = r.required("--seq-length");
  t.micro_batch = r.integer("--micro-batch-size", 1);
  t.global_batch = r.integer("--global-batch-size", t.micro_batch * p.dp);
  if (r.has("--fp8-format")) {
    t.precision = models::Precision::fp8;
    const std::string recipe = r.has("--fp8-recipe") ? r.value("--fp8-recipe") : "delayed";
    if (recipe == "tensorwise") t.fp8_recipe = models::Fp8Recipe::current;
    else if (recipe == "blockwise") t.fp8_recipe = models::Fp8Recipe::blockwise;
    else if (recipe == "mxfp8") t.fp8_recipe = models::Fp8Recipe::mxfp8;
    else if (recipe == "delayed") t.fp8_recipe = models::Fp8Recipe::delayed;
    else result.unmapped.push_back(fmt::format("--fp8-recipe {}: imported as delayed scaling", recipe));
    t.fp8_param_gather = r.has("--fp8-param-gather") && p.zero >= 1;
    if (r.has("--fp8-param-gather") && p.zero < 1)
      result.unmapped.push_back("--fp8-param-gather without --use-distributed-optimizer or FSDP: Megatron-LM refuses "
                                "it (arguments.py); imported with 16-bit gathers");
  }
  if (r.has("--fp4-format")) {
    const std::string recipe = r.has("--fp4-recipe") ? r.value("--fp4-recipe") : "nvfp4";
    if (recipe == "nvfp4") {
      t.precision = models::Precision::nvfp4;
    } else {
      result.unmapped.push_back(fmt::format("--fp4-recipe {}: clustersim models NVFP4 only; imported as bf16", recipe));
    }
    if (r.has("--first-last-layers-bf16"))
      result.unmapped.push_back("--first-last-layers-bf16: clustersim runs every layer's GEMMs in NVFP4");
  }
  t.defer_embedding_wgrad = r.has("--defer-embedding-wgrad-compute") && p.pp > 1;
  t.wgrad_deferral_limit = r.integer("--wgrad-deferral-limit", 0);
  if (!r.has("--bf16")) {
    result.notes.push_back(r.has("--fp16") ? "--fp16: clustersim models bf16 (the same bytes and tensor-core rate)"
                                           : "no --bf16: Megatron-LM would train in fp32, which clustersim does not "
                                             "model; bf16");
  }
  const std::string granularity =
      r.has("--recompute-granularity") ? r.value("--recompute-granularity") : r.has("--recompute-activations") ? "selective" : "";
  t.recompute = granularity == "full" ? models::Recompute::full
                : granularity == "selective" ? models::Recompute::selective
                                             : models::Recompute::none;
  if (granularity == "full") {
    const std::string method = r.value("--recompute-method");
    const std::int64_t n = r.integer("--recompute-num-layers", 1);
    if (method != "uniform" || n != 1)
      result.notes.push_back(fmt::format("full recomputation by {} of {} layers: clustersim recomputes every layer "
                                         "from its input", method.empty() ? "no method" : method, n));
  }
  t.schedule = p.vp > 1 ? models::Schedule::interleaved : models::Schedule::one_f_one_b;
  if (r.has("--train-samples")) {
    t.tokens = static_cast<double>(r.integer("--train-samples", 0)) * static_cast<double>(t.seq_len);
  } else if (r.has("--train-iters")) {
    t.tokens = static_cast<double>(r.integer("--train-iters", 0)) * static_cast<double>(t.global_batch) *
               static_cast<double>(t.seq_len);
  } else {
    t.tokens = kDefaultTokens;
    result.notes.push_back("neither --train-samples nor --train-iters: training.tokens 1e12");
  }
  const bool fsdp2 = p.zero == 3 && p.sharding == models::ShardingFramework::fsdp2;
  t.overlap_grad_reduce = fsdp2 || r.has("--overlap-grad-reduce");
  t.overlap_param_gather = fsdp2 || r.has("--overlap-param-gather");
  t.grad_dtype = r.has("--grad-reduce-in-bf16") ? models::GradDtype::bf16 : models::GradDtype::fp32;
  // The flag matters where a whole gradient buffer accumulates: ZeRO 0-1.
  t.grad_accumulation = r.has("--no-gradient-accumulation-fusion") && p.zero < 2 ? models::GradAccumulation::main_grad_add
                                                                                 : models::GradAccumulation::fused;
  t.grad_bucket_params = r.integer("--ddp-bucket-size", 0);
  t.cross_entropy = r.has("--cross-entropy-loss-fusion") ? models::CrossEntropyKernel::fused
                                                          : models::CrossEntropyKernel::inplace;
  t.rope_fusion = !r.has("--no-rope-fusion");
  const std::string graphs = r.value("--cuda-graph-impl");
  t.cuda_graphs = (!graphs.empty() && graphs != "none") || r.has("--enable-cuda-graph") || r.has("--external-cuda-graph");
  const std::string backend = r.value("--attention-backend");
  t.attention = backend == "flash" ? models::AttentionKernel::flash2
                : backend == "unfused" || backend == "local" ? models::AttentionKernel::unfused
                                                             : models::AttentionKernel::cudnn;
  if (model.experts > 0) {
    const std::string dispatcher = r.value("--moe-token-dispatcher-type");
    t.moe_dispatcher = dispatcher == "flex" && (r.value("--moe-flex-dispatcher-backend") == "deepep" ||
                                                !r.has("--moe-flex-dispatcher-backend"))
                           ? models::MoeDispatcher::deepep
                           : models::MoeDispatcher::alltoall;
    t.moe_capacity_factor = r.real("--moe-expert-capacity-factor", 0.0);
    t.moe_pad_to_capacity = r.has("--moe-pad-expert-input-to-capacity");
    r.has("--moe-grouped-gemm");
    // Padding each expert's rows in the routing map is how the model pads them under fp8 or fp4.
    r.has("--moe-router-padding-for-fp8");
    r.has("--moe-router-padding-for-quantization");
  }

  std::optional<std::string> preset = matching_model_preset(model, !vocab_known);
  if (!vocab_known) {
    if (!preset)
      throw ImportError(fmt::format("{}: the vocabulary size is not given (--vocab-size) and the shape matches no "
                                    "model preset; add --vocab-size", source));
    result.notes.push_back(fmt::format("vocabulary: not given; the preset {}'s", *preset));
  }
  model.name = preset ? *preset : "imported";
  result.unmapped = [&] {
    std::vector<std::string> all = r.unread();
    all.insert(all.end(), result.unmapped.begin(), result.unmapped.end());
    return all;
  }();
  for (const auto& [name, value] : script.arguments.env)
    if (name != "CUDA_DEVICE_MAX_CONNECTIONS") result.unmapped.push_back(fmt::format("export {}={}", name, value));
  const std::string name = fmt::format("imported from {}", std::filesystem::path(std::string(source)).filename().string());
  result.scenario = scenario_json(name, model, preset, cluster, p, t);
  return result;
}

}  // namespace clustersim::handoff
