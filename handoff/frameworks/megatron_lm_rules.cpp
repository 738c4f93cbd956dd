#include "handoff/frameworks/megatron_lm_rules.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "handoff/frameworks/whole_integer.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff {

bool MegatronArguments::has(std::string_view flag) const {
  return std::any_of(flags.begin(), flags.end(), [&](const auto& f) { return f.first == flag; });
}

std::string MegatronArguments::value(std::string_view flag) const {
  for (auto it = flags.rbegin(); it != flags.rend(); ++it)
    if (it->first == flag) return it->second;
  return "";
}

std::int64_t MegatronArguments::integer(std::string_view flag, std::int64_t fallback) const {
  if (!has(flag)) return fallback;
  const std::string text = value(flag);
  const auto v = whole_integer(text);
  if (!v) throw std::invalid_argument(fmt::format("{}: must be an integer, got '{}'", flag, text));
  return *v;
}

std::vector<std::int64_t> recorded_megatron_split(std::int64_t layers, std::int64_t pp, std::int64_t vp,
                                                  std::vector<std::int64_t> layout_split,
                                                  const MegatronSplitSettings& settings) {
  if (layout_split.empty()) layout_split = megatron_core_split(layers, pp, vp, settings);
  return models::recorded_split(layers, pp, vp, std::move(layout_split));
}

std::int64_t recorded_microbatch_group(std::int64_t group, const models::ParallelismSpec& parallelism,
                                       std::string_view key, std::vector<std::string>& notes) {
  if (group <= 0 || group == parallelism.pp) return 0;
  if (parallelism.vp > 1) return group;
  notes.push_back(fmt::format("{} without interleaving: Megatron-Core does not read it, and neither does the scenario",
                              key));
  return 0;
}

models::CpComm megatron_cp_comm(std::string_view text) {
  std::optional<models::CpComm> type;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    models::CpComm one = models::CpComm::p2p;
    if (word == "p2p") one = models::CpComm::p2p;
    else if (word == "all_gather" || word == "allgather") one = models::CpComm::all_gather;
    else if (word == "a2a") one = models::CpComm::a2a;
    else if (word == "a2a+p2p") one = models::CpComm::a2a_p2p;
    else
      throw std::invalid_argument(fmt::format("'{}' is not a context-parallel communication type: p2p, all_gather, "
                                              "a2a or a2a+p2p",
                                              word));
    if (type && *type != one)
      throw std::invalid_argument("layers of different types are not modelled: one type for every layer");
    type = one;
  }
  return type.value_or(models::CpComm::p2p);
}

std::int64_t megatron_cp_a2a_ranks(std::string_view sizes, std::int64_t cp) {
  std::vector<std::int64_t> levels;
  std::string number;
  for (const char c : std::string(sizes) + " ") {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      number += c;
    } else if (!number.empty()) {
      const auto level = whole_integer(number);
      if (!level) throw std::invalid_argument(fmt::format("'{}' is not a list of sizes", sizes));
      levels.push_back(*level);
      number.clear();
    } else if (c != ' ' && c != ',' && c != '[' && c != ']') {
      throw std::invalid_argument(fmt::format("'{}' is not a list of sizes", sizes));
    }
  }
  std::int64_t product = 0;
  if (levels.size() != 2 || __builtin_mul_overflow(levels[0], levels[1], &product) || product != cp)
    throw std::invalid_argument(fmt::format("a2a+p2p takes two levels, the all-to-all group and the ring, whose "
                                            "product is the context-parallel size {} (got '{}')",
                                            cp, sizes));
  return levels[0];
}

std::vector<std::int64_t> megatron_core_split(std::int64_t layers, std::int64_t pp, std::int64_t vp,
                                              const MegatronSplitSettings& settings) {
  const bool uneven = settings.first > 0 || settings.last > 0;
  const bool slots = settings.embedding || settings.loss;
  if (pp < 2 || vp < 1 || (!uneven && !slots)) return {};
  if (uneven && slots)
    throw std::invalid_argument("uneven first or last stages and the embedding or loss counted as a layer cannot be "
                                "set together (transformer_block.py)");
  std::vector<std::int64_t> split(static_cast<std::size_t>(pp * vp));
  if (slots) {
    const std::int64_t counted = layers + (settings.embedding ? 1 : 0) + (settings.loss ? 1 : 0);
    if (counted % (pp * vp) != 0)
      throw std::invalid_argument(fmt::format("the {} layers counted with the embedding and the loss do not divide "
                                              "into pp x vp = {} chunks (transformer_block.py)",
                                              counted, pp * vp));
    std::fill(split.begin(), split.end(), counted / (pp * vp));
    if (settings.embedding) --split.front();
    if (settings.loss) --split.back();
    return split;
  }
  const auto refuse = [&] {
    return std::invalid_argument(fmt::format("first and last stages of {} and {} layers leave the {} layers no whole "
                                             "number a chunk of the other stages, over {} chunks a stage "
                                             "(transformer_block.py)",
                                             settings.first, settings.last, layers, vp));
  };
  const std::int64_t middle_stages = pp - (settings.first > 0) - (settings.last > 0);
  const std::int64_t rest = layers - settings.first - settings.last;
  if (rest < 0 || (middle_stages > 0 ? rest % middle_stages != 0 : rest != 0)) throw refuse();
  const std::int64_t middle = middle_stages > 0 ? rest / middle_stages : 0;
  for (std::int64_t s = 0; s < pp; ++s) {
    const std::int64_t stage = s == 0 && settings.first > 0        ? settings.first
                               : s == pp - 1 && settings.last > 0 ? settings.last
                                                                  : middle;
    if (stage % vp != 0) throw refuse();
    for (std::int64_t c = 0; c < vp; ++c) split[static_cast<std::size_t>(c * pp + s)] = stage / vp;
  }
  return split;
}

std::string pipeline_layout_text(const std::vector<std::int64_t>& layers_per_chunk) {
  std::string layout;
  for (std::size_t c = 0; c < layers_per_chunk.size(); ++c) {
    if (c > 0) layout += '|';
    if (c == 0) layout += 'E';
    if (layers_per_chunk[c] > 0) layout += fmt::format("t*{}", layers_per_chunk[c]);
    if (c + 1 == layers_per_chunk.size()) layout += 'L';
  }
  return layout;
}

std::vector<std::string> pipeline_layout_stages(std::string_view layout) {
  // Megatron-LM unrolls "(...)*n" first, then "x*n", then splits at '|'
  // (pipeline_parallel_layer_layout.py, parse_str_to_list).
  std::string text;
  for (const char c : layout)
    if (c != ',' && c != ' ') text += c;
  // The unrolled layout holds a letter a layer: past this many no model goes, and a count that
  // would unroll further is refused before it fills the memory.
  constexpr std::size_t kMaxLayoutLetters = 100000;
  const auto too_long = [&] {
    return std::invalid_argument(fmt::format("pipeline layout '{}': unrolls past {} layers", layout, kMaxLayoutLetters));
  };
  const auto read_count = [&](std::size_t& i) {
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i) throw std::invalid_argument(fmt::format("pipeline layout '{}': '*' must be followed by a count", layout));
    // Digits only, so no sign; a count past 64 bits reads as none and is refused with the rest.
    const auto n = whole_integer(std::string_view(text).substr(i, j - i));
    if (!n || static_cast<std::uint64_t>(*n) > kMaxLayoutLetters) throw too_long();
    i = j;
    return static_cast<std::size_t>(*n);
  };
  std::string expanded;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '(') {
      const std::size_t close = text.find(')', i);
      if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != '*')
        throw std::invalid_argument(fmt::format("pipeline layout '{}': '(' needs ')*N'", layout));
      const std::string group = text.substr(i + 1, close - i - 1);
      i = close + 2;
      const std::size_t n = read_count(i);
      if (expanded.size() + group.size() * n > kMaxLayoutLetters) throw too_long();
      for (std::size_t k = 0; k < n; ++k) expanded += group;
    } else {
      expanded += text[i++];
    }
  }
  std::string letters;
  for (std::size_t i = 0; i < expanded.size();) {
    const char c = expanded[i++];
    if (i < expanded.size() && expanded[i] == '*') {
      ++i;
      const std::size_t n = read_count(i);
      if (letters.size() + n > kMaxLayoutLetters) throw too_long();
      letters.append(n, c);
    } else {
      letters += c;
    }
  }
  std::vector<std::string> stages{""};
  for (const char c : letters) {
    if (c == '|') {
      stages.emplace_back();
    } else if (c == 'E' || c == 't' || c == 'm' || c == 'L') {
      stages.back() += c;
    } else {
      throw std::invalid_argument(fmt::format("pipeline layout '{}': unknown layer letter '{}' (E, t, m, L)", layout, c));
    }
  }
  return stages;
}

namespace {

std::int64_t tp(const MegatronArguments& a) { return a.integer("--tensor-model-parallel-size", 1); }
std::int64_t pp(const MegatronArguments& a) { return a.integer("--pipeline-model-parallel-size", 1); }
std::int64_t cp(const MegatronArguments& a) { return a.integer("--context-parallel-size", 1); }
std::int64_t ep(const MegatronArguments& a) { return a.integer("--expert-model-parallel-size", 1); }
std::int64_t layers(const MegatronArguments& a) { return a.integer("--num-layers", 0); }
std::int64_t dp(const MegatronArguments& a) {
  const std::int64_t model = tp(a) * pp(a) * cp(a);
  return model > 0 ? a.world_size / model : 0;
}
bool fsdp2(const MegatronArguments& a) { return a.has("--use-torch-fsdp2"); }
bool megatron_fsdp(const MegatronArguments& a) { return a.has("--use-megatron-fsdp"); }
bool uneven(const MegatronArguments& a) {
  return a.has("--decoder-first-pipeline-num-layers") || a.has("--decoder-last-pipeline-num-layers");
}
std::string ckpt_format(const MegatronArguments& a) {
  return a.has("--ckpt-format") ? a.value("--ckpt-format") : "torch_dist";  // training_config.py default
}
std::string recompute_granularity(const MegatronArguments& a) {
  if (a.has("--recompute-granularity")) return a.value("--recompute-granularity");
  return a.has("--recompute-activations") ? "selective" : "";
}
// Model chunks per pipeline rank as validate_args derives them (1: not interleaved).
std::int64_t virtual_stages(const MegatronArguments& a) {
  if (a.has("--pipeline-model-parallel-layout")) {
    const auto stages = pipeline_layout_stages(a.value("--pipeline-model-parallel-layout"));
    return pp(a) > 0 ? static_cast<std::int64_t>(stages.size()) / pp(a) : 1;
  }
  if (a.has("--num-virtual-stages-per-pipeline-rank")) return a.integer("--num-virtual-stages-per-pipeline-rank", 1);
  if (a.has("--num-layers-per-virtual-pipeline-stage")) {
    const std::int64_t per_chunk = a.integer("--num-layers-per-virtual-pipeline-stage", 1);
    return per_chunk > 0 && pp(a) > 0 ? layers(a) / pp(a) / per_chunk : 1;
  }
  return 1;
}
std::int64_t query_groups(const MegatronArguments& a) {
  const std::int64_t heads = a.integer("--num-attention-heads", 1);
  return a.has("--group-query-attention") ? a.integer("--num-query-groups", 1) : heads;
}

constexpr std::string_view kArguments = "megatron/training/arguments.py";
constexpr std::string_view kParallelConfig = "megatron/core/model_parallel_config.py";
constexpr std::string_view kTransformerConfig = "megatron/core/transformer/transformer_config.py";
constexpr std::string_view kLayoutFile = "megatron/core/transformer/pipeline_parallel_layer_layout.py";
constexpr std::string_view kMicrobatches = "megatron/core/num_microbatches_calculator.py";
constexpr std::string_view kSchedules = "megatron/core/pipeline_parallel/schedules.py";
constexpr std::string_view kMegatronFsdpForm =
    "Megatron-FSDP: --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format "
    "fsdp_dtensor (runs with pipeline and expert parallelism and tied embeddings)";

const MegatronRule kRules[] = {
    {"required-model-arguments", kArguments,
     "--num-layers, --hidden-size, --num-attention-heads and --max-position-embeddings must be given", "",
     [](const MegatronArguments& a) {
       return a.has("--num-layers") && a.has("--hidden-size") && a.has("--num-attention-heads") &&
              a.has("--max-position-embeddings");
     }},
    {"world-size-divisible", kArguments,
     "the world size must be a multiple of tensor x pipeline x context parallel sizes", "",
     [](const MegatronArguments& a) {
       const std::int64_t model = tp(a) * pp(a) * cp(a);
       return model > 0 && a.world_size > 0 && a.world_size % model == 0;
     }},
    {"global-batch-divisible", kMicrobatches,
     "the global batch must be a whole number (at least 1) of micro-batch x data-parallel size", "",
     [](const MegatronArguments& a) {
       const std::int64_t mb = a.integer("--micro-batch-size", 1);
       const std::int64_t gb = a.integer("--global-batch-size", mb * dp(a));
       return mb > 0 && dp(a) > 0 && gb % (mb * dp(a)) == 0 && gb >= mb * dp(a);
     }},
    {"one-virtual-pipeline-option", kArguments,
     "at most one of --num-layers-per-virtual-pipeline-stage, --num-virtual-stages-per-pipeline-rank and "
     "--pipeline-model-parallel-layout may be set", "",
     [](const MegatronArguments& a) {
       return int(a.has("--num-layers-per-virtual-pipeline-stage")) +
                  int(a.has("--num-virtual-stages-per-pipeline-rank")) + int(a.has("--pipeline-model-parallel-layout")) <=
              1;
     }},
    {"virtual-stage-size-even-only", kArguments,
     "--num-layers-per-virtual-pipeline-stage cannot be combined with --decoder-first/last-pipeline-num-layers",
     "an uneven interleaved split: --pipeline-model-parallel-layout (one stage per model chunk, split by '|')",
     [](const MegatronArguments& a) { return !(a.has("--num-layers-per-virtual-pipeline-stage") && uneven(a)); }},
    {"layers-divisible-by-pipeline", kArguments,
     "without an uneven split or a layout, the layers must divide evenly over the pipeline stages",
     "--decoder-first/last-pipeline-num-layers or --pipeline-model-parallel-layout for an uneven split",
     [](const MegatronArguments& a) {
       if (uneven(a) || a.has("--pipeline-model-parallel-layout")) return true;
       return pp(a) > 0 && layers(a) % pp(a) == 0;
     }},
    {"virtual-stage-divides-stage", kArguments,
     "--num-layers-per-virtual-pipeline-stage must divide the layers of one pipeline stage", "",
     [](const MegatronArguments& a) {
       if (!a.has("--num-layers-per-virtual-pipeline-stage") || pp(a) <= 0) return true;
       const std::int64_t per_chunk = a.integer("--num-layers-per-virtual-pipeline-stage", 1);
       return per_chunk > 0 && layers(a) % pp(a) == 0 && (layers(a) / pp(a)) % per_chunk == 0;
     }},
    {"uneven-split-stages", kTransformerConfig,
     "--decoder-first/last-pipeline-num-layers must be positive, leave the middle stages an equal whole number "
     "of layers (or no middle stage and no layer), and each be a multiple of the model chunks per rank",
     "--pipeline-model-parallel-layout for a split the first/last form cannot say",
     [](const MegatronArguments& a) {
       if (!uneven(a) || a.has("--pipeline-model-parallel-layout")) return true;
       const std::int64_t vp = virtual_stages(a);
       std::int64_t rest = layers(a), stages = pp(a);
       for (const char* flag : {"--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers"}) {
         if (!a.has(flag)) continue;
         const std::int64_t n = a.integer(flag, 0);
         if (n <= 0 || n % vp != 0) return false;
         rest -= n;
         stages -= 1;
       }
       if ((rest != 0) != (stages > 0)) return false;
       return stages <= 0 || (rest % stages == 0 && (rest / stages) % vp == 0);
     }},
    {"layout-excludes-other-splits", kTransformerConfig,
     "--pipeline-model-parallel-layout cannot be combined with --decoder-first/last-pipeline-num-layers", "",
     [](const MegatronArguments& a) { return !(a.has("--pipeline-model-parallel-layout") && uneven(a)); }},
    {"layout-stages", kLayoutFile,
     "a pipeline layout must have a multiple of the pipeline size in stages, the embedding (E) first and the loss "
     "(L) last, each once, and as many decoder layers (t) as --num-layers", "",
     [](const MegatronArguments& a) {
       if (!a.has("--pipeline-model-parallel-layout")) return true;
       const auto stages = pipeline_layout_stages(a.value("--pipeline-model-parallel-layout"));
       std::string flat;
       for (const auto& s : stages) flat += s;
       return pp(a) > 0 && static_cast<std::int64_t>(stages.size()) % pp(a) == 0 && !flat.empty() &&
              flat.front() == 'E' && flat.back() == 'L' && std::count(flat.begin(), flat.end(), 'E') == 1 &&
              std::count(flat.begin(), flat.end(), 'L') == 1 && std::count(flat.begin(), flat.end(), 't') == layers(a);
     }},
    {"hierarchical-context-parallel", kArguments,
     "--cp-comm-type a2a+p2p needs --hierarchical-context-parallel-sizes, the all-to-all group and the ring, whose "
     "product is --context-parallel-size", "",
     [](const MegatronArguments& a) {
       const bool hierarchical = a.value("--cp-comm-type").find("a2a+p2p") != std::string::npos;
       if (!a.has("--hierarchical-context-parallel-sizes")) return !hierarchical;
       try {
         megatron_cp_a2a_ranks(a.value("--hierarchical-context-parallel-sizes"), cp(a));
         return true;
       } catch (const std::invalid_argument&) {
         return false;
       }
     }},
    {"interleaving-needs-pipeline", kArguments,
     "the interleaved schedule needs pipeline parallelism (more than 2 stages with --no-overlap-p2p-communication)",
     "", [](const MegatronArguments& a) {
       if (virtual_stages(a) <= 1) return true;
       return a.has("--no-overlap-p2p-communication") ? pp(a) > 2 : pp(a) > 1;
     }},
    {"interleaved-microbatch-groups", kSchedules,
     "with the interleaved schedule the micro-batches per step run in groups of "
     "--microbatch-group-size-per-virtual-pipeline-stage (the pipeline size by default), from the pipeline size to "
     "the micro-batches per step, which must be a multiple of the group or leave a last group of at least the "
     "pipeline size", "",
     [](const MegatronArguments& a) {
       if (virtual_stages(a) <= 1) return true;
       const std::int64_t mb = a.integer("--micro-batch-size", 1);
       const std::int64_t gb = a.integer("--global-batch-size", mb * dp(a));
       if (mb <= 0 || dp(a) <= 0) return false;
       return models::interleaved_groups_hold(gb / (mb * dp(a)), pp(a),
                                              a.integer("--microbatch-group-size-per-virtual-pipeline-stage", 0));
     }},
    {"heads-divisible-by-tp", kTransformerConfig, "the attention heads must be a multiple of the tensor-parallel size",
     "", [](const MegatronArguments& a) { return tp(a) > 0 && a.integer("--num-attention-heads", 0) % tp(a) == 0; }},
    {"query-groups-and-tp", kTransformerConfig,
     "the query groups must be a multiple or a divisor of the tensor-parallel size", "",
     [](const MegatronArguments& a) {
       const std::int64_t g = query_groups(a);
       return g > 0 && tp(a) > 0 && (g % tp(a) == 0 || tp(a) % g == 0);
     }},
    {"head-width-given", kArguments,
     "without --kv-channels the hidden size must be a multiple of the attention heads",
     "--kv-channels for heads of their own width",
     [](const MegatronArguments& a) {
       if (a.has("--kv-channels")) return true;
       const std::int64_t heads = a.integer("--num-attention-heads", 0);
       return heads > 0 && a.integer("--hidden-size", 0) % heads == 0;
     }},
    {"latent-attention-not-grouped", kArguments,
     "--multi-latent-attention and --group-query-attention exclude each other", "",
     [](const MegatronArguments& a) { return !(a.has("--multi-latent-attention") && a.has("--group-query-attention")); }},
    {"positions-cover-sequence", kArguments, "--max-position-embeddings must be at least --seq-length", "",
     [](const MegatronArguments& a) {
       return a.integer("--max-position-embeddings", 0) >= a.integer("--seq-length", 0);
     }},
    {"context-parallel-sequence", kArguments,
     "with context parallelism the sequence length must be a multiple of 2 x the context-parallel size (each rank "
     "takes two balanced chunks)", "",
     [](const MegatronArguments& a) { return cp(a) <= 1 || a.integer("--seq-length", 0) % (2 * cp(a)) == 0; }},
    {"sequence-parallel-needs-tp", kParallelConfig,
     "sequence parallelism needs tensor parallelism (arguments.py switches it off with a warning at TP 1)", "",
     [](const MegatronArguments& a) { return !a.has("--sequence-parallel") || tp(a) > 1; }},
    {"tp-comm-overlap-needs-sp", kArguments, "--tp-comm-overlap needs --sequence-parallel", "",
     [](const MegatronArguments& a) { return !a.has("--tp-comm-overlap") || a.has("--sequence-parallel"); }},
    {"selective-recompute-has-no-method", kArguments,
     "selective recomputation takes no --recompute-method (that is for full recomputation)", "",
     [](const MegatronArguments& a) { return recompute_granularity(a) != "selective" || !a.has("--recompute-method"); }},
    {"full-recompute-settings", kTransformerConfig,
     "full recomputation needs --recompute-method (block or uniform) and --recompute-num-layers; selective takes no "
     "--recompute-num-layers", "",
     [](const MegatronArguments& a) {
       const std::string g = recompute_granularity(a);
       if (a.has("--recompute-method") && a.value("--recompute-method") != "block" && a.value("--recompute-method") != "uniform")
         return false;
       if (g == "full") return a.has("--recompute-method") && a.has("--recompute-num-layers");
       return g != "selective" || !a.has("--recompute-num-layers");
     }},
    {"expert-overlap-conditions", kTransformerConfig,
     "--overlap-moe-expert-parallel-comm needs expert parallelism, the alltoall or flex dispatcher, interleaving when "
     "pipelined, bf16 or fp16, and no full recomputation (no --recompute-method, no --recompute-num-layers)", "",
     [](const MegatronArguments& a) {
       if (!a.has("--overlap-moe-expert-parallel-comm")) return true;
       const std::string dispatcher =
           a.has("--moe-token-dispatcher-type") ? a.value("--moe-token-dispatcher-type") : "allgather";
       return ep(a) > 1 && (dispatcher == "alltoall" || dispatcher == "flex") && (pp(a) <= 1 || virtual_stages(a) > 1) &&
              (a.has("--bf16") || a.has("--fp16")) && recompute_granularity(a) != "full" &&
              !a.has("--recompute-method") && !a.has("--recompute-num-layers");
     }},
    {"overlap-param-gather-needs-sharding", kArguments,
     "--overlap-param-gather needs the distributed optimizer or Megatron-FSDP, and --overlap-grad-reduce", "",
     [](const MegatronArguments& a) {
       if (!a.has("--overlap-param-gather")) return true;
       return (a.has("--use-distributed-optimizer") || megatron_fsdp(a)) && a.has("--overlap-grad-reduce");
     }},
    {"fsdp2-no-pipeline", kArguments, "--use-torch-fsdp2 is not supported with pipeline parallelism", kMegatronFsdpForm,
     [](const MegatronArguments& a) { return !fsdp2(a) || pp(a) == 1; }},
    {"fsdp2-no-expert-parallel", kArguments, "--use-torch-fsdp2 is not supported with expert parallelism",
     kMegatronFsdpForm, [](const MegatronArguments& a) { return !fsdp2(a) || ep(a) == 1; }},
    {"fsdp2-no-distributed-optimizer", kArguments,
     "--use-torch-fsdp2 shards the optimizer itself: no --use-distributed-optimizer", "",
     [](const MegatronArguments& a) { return !fsdp2(a) || !a.has("--use-distributed-optimizer"); }},
    {"fsdp2-no-gradient-accumulation-fusion", kArguments,
     "--use-torch-fsdp2 needs --no-gradient-accumulation-fusion", "",
     [](const MegatronArguments& a) { return !fsdp2(a) || a.has("--no-gradient-accumulation-fusion"); }},
    {"fsdp2-untied-embeddings", kArguments, "--use-torch-fsdp2 needs --untie-embeddings-and-output-weights",
     kMegatronFsdpForm,
     [](const MegatronArguments& a) { return !fsdp2(a) || a.has("--untie-embeddings-and-output-weights"); }},
    {"fsdp2-checkpoint-format", kArguments, "--use-torch-fsdp2 needs --ckpt-format torch_dist or torch_dcp", "",
     [](const MegatronArguments& a) {
       return !fsdp2(a) || ckpt_format(a) == "torch_dist" || ckpt_format(a) == "torch_dcp";
     }},
    {"fsdp-one-implementation", kArguments, "--use-torch-fsdp2 and --use-megatron-fsdp exclude each other", "",
     [](const MegatronArguments& a) { return !(fsdp2(a) && megatron_fsdp(a)); }},
    {"megatron-fsdp-checkpoint-format", kArguments, "Megatron-FSDP needs --ckpt-format fsdp_dtensor", "",
     [](const MegatronArguments& a) { return !megatron_fsdp(a) || ckpt_format(a) == "fsdp_dtensor"; }},
    {"fsdp-dtensor-needs-megatron-fsdp", kArguments, "--ckpt-format fsdp_dtensor is only for Megatron-FSDP", "",
     [](const MegatronArguments& a) { return ckpt_format(a) != "fsdp_dtensor" || megatron_fsdp(a); }},
    {"megatron-fsdp-sharding-strategy", kArguments,
     "--data-parallel-sharding-strategy is one of no_shard, optim, optim_grads, optim_grads_params", "",
     [](const MegatronArguments& a) {
       if (!a.has("--data-parallel-sharding-strategy")) return true;
       const std::string s = a.value("--data-parallel-sharding-strategy");
       return s == "no_shard" || s == "optim" || s == "optim_grads" || s == "optim_grads_params";
     }},
    {"fsdp-device-connections", kArguments,
     "FSDP (torch FSDP2 or Megatron-FSDP) needs CUDA_DEVICE_MAX_CONNECTIONS unset or above 1", "",
     [](const MegatronArguments& a) {
       if (!fsdp2(a) && !megatron_fsdp(a)) return true;
       const auto it = a.env.find("CUDA_DEVICE_MAX_CONNECTIONS");
       return it == a.env.end() || it->second != "1";
     }},
    {"model-parallel-device-connections", kArguments,
     "tensor or context parallelism without FSDP needs CUDA_DEVICE_MAX_CONNECTIONS=1 (before Blackwell), so that "
     "the communication kernels run in issue order", "",
     [](const MegatronArguments& a) {
       if ((tp(a) <= 1 && cp(a) <= 1) || fsdp2(a) || megatron_fsdp(a)) return true;
       const auto it = a.env.find("CUDA_DEVICE_MAX_CONNECTIONS");
       return it != a.env.end() && it->second == "1";
     }},
    {"expert-parallel-needs-experts", kArguments,
     "expert parallelism needs --num-experts, a multiple of --expert-model-parallel-size", "",
     [](const MegatronArguments& a) {
       if (ep(a) <= 1) return true;
       const std::int64_t experts = a.integer("--num-experts", 0);
       return experts > 0 && experts % ep(a) == 0;
     }},
    {"cuda-graph-one-flag", kArguments, "--enable-cuda-graph (deprecated) and --cuda-graph-impl exclude each other",
     "--cuda-graph-impl local",
     [](const MegatronArguments& a) { return !(a.has("--enable-cuda-graph") && a.has("--cuda-graph-impl")); }},
    {"fp8-param-gather-needs-sharding", kArguments,
     "--fp8-param-gather only with --use-distributed-optimizer, --use-torch-fsdp2 or --use-megatron-fsdp",
     "--use-distributed-optimizer",
     [](const MegatronArguments& a) {
       return !a.has("--fp8-param-gather") || a.has("--use-distributed-optimizer") || a.has("--use-torch-fsdp2") ||
              a.has("--use-megatron-fsdp");
     }},
    {"router-padding-needs-low-precision", kTransformerConfig,
     "--moe-router-padding-for-quantization (or its alias --moe-router-padding-for-fp8) needs --fp8-format or "
     "--fp4-format",
     "",
     [](const MegatronArguments& a) {
       return !(a.has("--moe-router-padding-for-fp8") || a.has("--moe-router-padding-for-quantization")) ||
              a.has("--fp8-format") || a.has("--fp4-format");
     }},
    {"defer-embedding-wgrad-needs-pipeline", kParallelConfig,
     "--defer-embedding-wgrad-compute needs --pipeline-model-parallel-size > 1 and gradient accumulation fusion (no "
     "--no-gradient-accumulation-fusion)",
     "",
     [](const MegatronArguments& a) {
       return !a.has("--defer-embedding-wgrad-compute") ||
              (pp(a) > 1 && !a.has("--no-gradient-accumulation-fusion"));
     }},
    {"one-half-precision", kArguments, "--fp16 and --bf16 exclude each other", "",
     [](const MegatronArguments& a) { return !(a.has("--fp16") && a.has("--bf16")); }},
    {"fp8-format-known", kTransformerConfig,
     "--fp8-format is e4m3 or hybrid and --fp8-recipe one of tensorwise, delayed, mxfp8, blockwise, custom", "",
     [](const MegatronArguments& a) {
       if (a.has("--fp8-format") && a.value("--fp8-format") != "e4m3" && a.value("--fp8-format") != "hybrid") return false;
       if (!a.has("--fp8-recipe")) return true;
       const std::string r = a.value("--fp8-recipe");
       return r == "tensorwise" || r == "delayed" || r == "mxfp8" || r == "blockwise" || r == "custom";
     }},
};

}  // namespace

std::span<const MegatronRule> megatron_lm_rules() { return kRules; }

std::vector<RuleBreach> megatron_lm_breaches(const MegatronArguments& arguments) {
  std::vector<RuleBreach> breaches;
  for (const MegatronRule& rule : kRules) {
    if (rule.holds(arguments)) continue;
    breaches.push_back({.rule = std::string(rule.id),
                        .source = fmt::format("{} @{}", rule.source, kMegatronLmShortCommit),
                        .message = std::string(rule.requirement),
                        .alternative = std::string(rule.alternative)});
  }
  return breaches;
}

}  // namespace clustersim::handoff
