#include "handoff/frameworks/deepspeed_rules.hpp"

#include <cctype>
#include <charconv>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/spec/layout_rules.hpp"

namespace clustersim::handoff::deepspeed {

namespace {

using Json = nlohmann::ordered_json;

std::string ds_at(std::string_view file) { return fmt::format("DeepSpeed {} @{}", file, kDeepSpeedCommit); }
std::string mds_at(std::string_view file) { return fmt::format("Megatron-DeepSpeed {} @{}", file, kMegatronDeepSpeedCommit); }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

/// $NAME and ${NAME} replaced by the variables assigned so far (others left as written).
std::string expand(std::string_view s, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    std::size_t j = i + 1;
    const bool braced = s[j] == '{';
    if (braced) ++j;
    std::size_t k = j;
    while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
    if (k == j || (braced && (k >= s.size() || s[k] != '}'))) {
      out += s[i];
      continue;
    }
    const auto it = vars.find(std::string(s.substr(j, k - j)));
    if (it == vars.end()) {
      out += s.substr(i, k + (braced ? 1 : 0) - i);
    } else {
      out += it->second;
    }
    i = k + (braced ? 1 : 0) - 1;
  }
  return out;
}

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::string word;
  char quote = 0;
  for (const char c : line) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

std::string unquote(std::string s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

bool is_assignment(std::string_view line, std::string* name, std::string* value) {
  std::size_t k = 0;
  while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '_')) ++k;
  if (k == 0 || k >= line.size() || line[k] != '=' || std::isdigit(static_cast<unsigned char>(line[0]))) return false;
  *name = std::string(line.substr(0, k));
  std::string rest = trim(line.substr(k + 1));
  if (!rest.empty() && rest.front() != '"' && rest.front() != '\'') {
    const std::size_t hash = rest.find(" #");
    rest = trim(rest.substr(0, hash == std::string::npos ? rest.size() : hash));
    if (rest.find(' ') != std::string::npos) return false;  // NAME=value command: not an assignment
  }
  *value = unquote(rest);
  return true;
}

std::optional<std::int64_t> integer(const std::string& s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

RuleBreach breach(std::string rule, std::string source, std::string message, std::string alternative = {}) {
  return {.rule = std::move(rule), .source = std::move(source), .message = std::move(message), .alternative = std::move(alternative)};
}

}  // namespace

const std::string* Launch::flag(std::string_view name) const {
  for (const auto& [k, v] : flags)
    if (k == name) return &v;
  return nullptr;
}

Launch parse_launch_script(std::string_view text, std::string_view source) {
  // Lines, with backslash continuations joined; each keeps the number of its first line.
  std::vector<std::pair<std::size_t, std::string>> lines;
  {
    std::istringstream in{std::string(text)};
    std::string raw, joined;
    std::size_t number = 0, first = 0;
    while (std::getline(in, raw)) {
      ++number;
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      if (joined.empty()) first = number;
      if (!raw.empty() && raw.back() == '\\') {
        joined += raw.substr(0, raw.size() - 1) + " ";
        continue;
      }
      joined += raw;
      lines.emplace_back(first, joined);
      joined.clear();
    }
    if (!joined.empty()) lines.emplace_back(first, joined);
  }
  const auto fail = [&](std::size_t line, std::string_view what) {
    throw std::invalid_argument(fmt::format("{}:{}: {}", source, line, what));
  };
  Launch launch;
  std::map<std::string, std::string> vars;
  bool found_command = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& [number, raw] = lines[i];
    const std::string line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    std::string name, value;
    if (line.starts_with("export ")) {
      if (!is_assignment(trim(line.substr(7)), &name, &value)) fail(number, "export NAME=VALUE expected");
      value = expand(value, vars);
      vars[name] = value;
      launch.env.emplace_back(name, value);
      continue;
    }
    if (is_assignment(line, &name, &value)) {
      vars[name] = expand(value, vars);
      continue;
    }
    if (const std::size_t here = line.find("<<"); here != std::string::npos && line.starts_with("cat")) {
      // cat <<EOT > FILE, cat <<'EOT' > FILE or cat > FILE <<EOT: the body up to the terminator.
      std::vector<std::string> parts = words(line.substr(here + 2));
      if (parts.empty()) fail(number, "here-document without a terminator");
      std::string terminator = parts.front();
      if (!terminator.empty() && terminator.front() == '-') terminator.erase(0, 1);
      const std::size_t to = line.find('>');
      const std::string target = to == std::string::npos ? "" : expand(trim(words(line.substr(to + 1)).empty() ? "" : words(line.substr(to + 1)).front()), vars);
      std::string body;
      std::size_t j = i + 1;
      for (; j < lines.size() && trim(lines[j].second) != terminator; ++j) body += expand(lines[j].second, vars) + "\n";
      if (j == lines.size()) fail(number, fmt::format("here-document not closed by '{}'", terminator));
      i = j;
      if (target.ends_with(".json")) {
        try {
          launch.ds_config = Json::parse(body);
        } catch (const nlohmann::json::parse_error& e) {
          fail(number + 1, fmt::format("the DeepSpeed config written to {} is not JSON: {}", target, e.what()));
        }
        if (!launch.ds_config.is_object()) fail(number + 1, "the DeepSpeed config must be a JSON object");
        launch.has_ds_config = true;
      }
      continue;
    }
    const std::vector<std::string> tokens = words(expand(line, vars));
    if (tokens.empty() || (tokens.front() != "deepspeed" && tokens.front() != "torchrun")) continue;
    if (found_command) fail(number, "a second launcher command: one launch per script");
    found_command = true;
    std::size_t k = 1;
    for (; k < tokens.size() && !tokens[k].ends_with(".py"); ++k) {
      std::string key = tokens[k], val;
      if (const std::size_t eq = key.find('='); eq != std::string::npos) {
        val = key.substr(eq + 1);
        key.resize(eq);
      } else if (k + 1 < tokens.size() && !tokens[k + 1].starts_with("--") && !tokens[k + 1].ends_with(".py")) {
        val = tokens[++k];
      }
      std::int64_t* target = key == "--num_nodes" || key == "--nnodes" ? &launch.num_nodes
                             : key == "--num_gpus" || key == "--nproc_per_node" || key == "--nproc-per-node"
                                 ? &launch.num_gpus
                                 : nullptr;
      if (target) {
        const auto n = integer(val);
        if (!n || *n < 1) fail(number, fmt::format("{} must be a positive integer, got '{}'", key, val));
        *target = *n;
      }
    }
    if (k == tokens.size()) fail(number, "the launcher runs no .py script");
    for (++k; k < tokens.size(); ++k) {
      std::string key = tokens[k], val;
      if (!key.starts_with("--")) fail(number, fmt::format("'{}' is not a --flag", key));
      if (const std::size_t eq = key.find('='); eq != std::string::npos) {
        val = key.substr(eq + 1);
        key.resize(eq);
      } else {
        while (k + 1 < tokens.size() && !tokens[k + 1].starts_with("--")) val += (val.empty() ? "" : " ") + tokens[++k];
      }
      launch.flags.emplace_back(key, val);
    }
  }
  if (!found_command) throw std::invalid_argument(fmt::format("{}: no `deepspeed` or `torchrun` launcher command", source));
  return launch;
}

std::vector<RuleBreach> check_launch(const Launch& launch) {
  std::vector<RuleBreach> out;
  const char* args_py = "megatron/arguments.py (validate_args)";
  const auto number = [&](std::string_view name, std::int64_t fallback) -> std::optional<std::int64_t> {
    const std::string* v = launch.flag(name);
    if (!v) return fallback;
    return integer(*v);
  };
  const auto bad_number = [&](std::string_view name) {
    out.push_back(breach("flag-value", mds_at(args_py), fmt::format("{} takes an integer", name)));
  };
  const auto tp = number("--tensor-model-parallel-size", 1), pp = number("--pipeline-model-parallel-size", 1),
             sp = number("--ds-sequence-parallel-size", 1), zero_flag = number("--zero-stage", 1);
  for (const auto& [name, v] : {std::pair{"--tensor-model-parallel-size", tp}, {"--pipeline-model-parallel-size", pp},
                                {"--ds-sequence-parallel-size", sp}, {"--zero-stage", zero_flag}})
    if (!v || *v < 0) bad_number(name);
  if (!out.empty()) return out;
  const std::int64_t world = launch.num_nodes * launch.num_gpus;
  if (launch.num_nodes < 1 || launch.num_gpus < 1) {
    out.push_back(breach("launcher-counts", ds_at("deepspeed/launcher/runner.py"),
                         "the launcher must give the node and GPU counts (--num_nodes, --num_gpus)"));
    return out;
  }
  if (!launch.has("--deepspeed") || !(launch.has("--deepspeed_config") || launch.has("--deepspeed-config")))
    out.push_back(breach("deepspeed-flags", mds_at("megatron/arguments.py (parse_args: deepspeed.add_config_arguments)"),
                         "Megatron-DeepSpeed runs DeepSpeed with --deepspeed and --deepspeed_config FILE"));
  const std::int64_t model_parallel = *tp * *pp * *sp;
  if (*tp < 1 || *pp < 1 || *sp < 1 || world % model_parallel != 0) {
    out.push_back(breach("world-divisible", mds_at(args_py),
                         fmt::format("the world size {} must be divisible by tensor x pipeline x sequence-parallel "
                                     "sizes ({} x {} x {})", world, *tp, *pp, *sp)));
    return out;
  }
  const std::int64_t dp = world / model_parallel;
  const bool no_pipeline = launch.has("--no-pipeline-parallel");
  if (no_pipeline && *pp != 1)
    out.push_back(breach("no-pipeline-pp-one", mds_at(args_py), "--no-pipeline-parallel needs pipeline size 1"));

  // deepspeed/runtime/config.py: the batch triple, completed as DeepSpeed completes it, then checked.
  const Json& c = launch.ds_config;
  const auto ds_int = [&](const char* key) -> std::optional<std::int64_t> {
    if (!c.contains(key)) return std::nullopt;
    if (!c[key].is_number_integer()) {
      out.push_back(breach("config-type", ds_at("deepspeed/runtime/config.py"), fmt::format("{} must be an integer", key)));
      return std::nullopt;
    }
    return c[key].get<std::int64_t>();
  };
  std::optional<std::int64_t> train = ds_int("train_batch_size"), micro = ds_int("train_micro_batch_size_per_gpu"),
                              accum = ds_int("gradient_accumulation_steps");
  const char* config_py = "deepspeed/runtime/config.py (DeepSpeedConfig._configure_train_batch_size)";
  if (!train && !micro) {
    out.push_back(breach("batch-given", ds_at(config_py), "train_batch_size or train_micro_batch_size_per_gpu must be given"));
  } else {
    if (train && micro && !accum) accum = *train / *micro / dp;
    else if (train && accum && !micro) micro = *train / dp / *accum;
    else if (micro && accum && !train) train = *micro * *accum * dp;
    else if (train && !micro) accum = 1, micro = *train / dp;
    else if (micro && !train) train = *micro * dp, accum = 1;
    if (*train <= 0 || *micro <= 0 || *accum <= 0 || *train != *micro * *accum * dp)
      out.push_back(breach("batch-product", ds_at(config_py),
                           fmt::format("train_batch_size {} must equal train_micro_batch_size_per_gpu {} x "
                                       "gradient_accumulation_steps {} x data-parallel ranks {}",
                                       *train, *micro, *accum, dp)));
    const auto mb = number("--micro-batch-size", -1), gb = number("--global-batch-size", -1);
    if (!mb || *mb < 1) out.push_back(breach("micro-batch-required", mds_at(args_py), "--micro-batch-size must be a positive integer"));
    else if (*mb != *micro || (gb && *gb > 0 && *gb != *train))
      out.push_back(breach("batch-agrees", mds_at("megatron/training.py (train)"),
                           fmt::format("--micro-batch-size {} / --global-batch-size {} must agree with the DeepSpeed "
                                       "config's {} / {}: Megatron-DeepSpeed sets the engine's batch from its own flags",
                                       *mb, gb ? *gb : -1, *micro, *train)));
  }
  std::int64_t stage = 0;
  if (c.contains("zero_optimization")) {
    const Json& z = c["zero_optimization"];
    if (z.is_object() && z.contains("stage") && z["stage"].is_number_integer()) stage = z["stage"].get<std::int64_t>();
    else if (z.is_boolean()) stage = z.get<bool>() ? 1 : 0;
  }
  if (stage < 0 || stage > 3)
    out.push_back(breach("zero-stage-max", ds_at("deepspeed/runtime/config.py (_do_error_check)"),
                         fmt::format("zero_optimization.stage {} must be 0 to 3", stage)));
  if (stage >= 2 && !no_pipeline)
    out.push_back(breach("zero-pipeline", ds_at("deepspeed/runtime/pipe/engine.py (PipelineEngine.__init__)"),
                         fmt::format("ZeRO-{} is refused by DeepSpeed's pipeline engine, which Megatron-DeepSpeed's "
                                     "GPTModelPipe runs on unless --no-pipeline-parallel (pipeline size 1)", stage),
                         "ZeRO-1 with the pipeline, or --no-pipeline-parallel at pipeline size 1"));
  if (launch.has("--zero-stage") && *zero_flag != stage)
    out.push_back(breach("zero-stage-agrees", mds_at("pretrain_gpt.py (model_provider: zero.Init at stage 3)"),
                         fmt::format("--zero-stage {} must equal the config's zero_optimization.stage {}", *zero_flag, stage)));
  const auto enabled = [&](const char* key) {
    return c.contains(key) && c[key].is_object() && c[key].value("enabled", false) == true;
  };
  if (enabled("bf16") && enabled("fp16"))
    out.push_back(breach("bf16-fp16", ds_at("deepspeed/runtime/config.py (DeepSpeedConfig._initialize_params)"),
                         "bf16 and fp16 cannot both be enabled"));
  if (launch.has("--bf16") && launch.has("--fp16"))
    out.push_back(breach("bf16-fp16", mds_at(args_py), "--bf16 and --fp16 exclude each other"));
  if (const std::string* per = launch.flag("--num-layers-per-virtual-pipeline-stage")) {
    const auto layers = number("--num-layers", 0);
    const auto chunk = integer(*per);
    if (*pp <= 2 || !chunk || *chunk < 1 || !layers || *layers % *chunk != 0)
      out.push_back(breach("interleaved-checks", mds_at(args_py),
                           "the interleaved schedule needs pipeline size > 2 and --num-layers divisible by "
                           "--num-layers-per-virtual-pipeline-stage"));
    if (!no_pipeline)
      out.push_back(breach("interleaved-deepspeed-pipeline",
                           ds_at("deepspeed/runtime/pipe/engine.py (one PipelineModule, TrainSchedule)"),
                           "under --deepspeed the pipeline is DeepSpeed's engine, which runs one model chunk per "
                           "stage in its own 1F1B order: no interleaved schedule",
                           "the 1F1B schedule (vp 1)"));
  }
  if (launch.has("--sequence-parallel") && *tp > 1) {
    bool env_set = false;
    for (const auto& [k, v] : launch.env) env_set = env_set || (k == "CUDA_DEVICE_MAX_CONNECTIONS" && v == "1");
    if (!env_set)
      out.push_back(breach("sequence-parallel-env", mds_at(args_py),
                           "--sequence-parallel needs the environment variable CUDA_DEVICE_MAX_CONNECTIONS=1"));
  }
  if (const std::string* g = launch.flag("--recompute-granularity"); g && *g == "selective" && launch.has("--recompute-method"))
    out.push_back(breach("selective-no-method", mds_at(args_py), "selective recompute takes no --recompute-method"));
  if (launch.has("--fp8-hybrid") || launch.has("--fp8-e4m3")) {
    const std::string* impl = launch.flag("--transformer-impl");
    if (!impl || *impl != "transformer_engine")
      out.push_back(breach("fp8-transformer-engine", mds_at(args_py), "fp8 needs --transformer-impl transformer_engine"));
  }
  const auto heads = number("--num-attention-heads", 0), kv = number("--num-key-value-heads", 0);
  if (heads && kv && *heads > 0 && (*heads % *tp != 0 || (launch.has("--num-key-value-heads") && *kv % *tp != 0)))
    out.push_back(breach("tp-divides-heads", mds_at("megatron/model/transformer.py (ParallelAttention: core.utils.divide)"),
                         "--tensor-model-parallel-size must divide the attention heads and the key/value heads"));
  if (heads && kv && *heads > 0 && *kv > 0 && *heads % *kv != 0)
    out.push_back(breach("gqa-heads", mds_at(args_py), "--num-attention-heads must be divisible by --num-key-value-heads"));
  return out;
}

Mapping map_layout(const models::TransformerSpec& model, const models::ClusterSpec& cluster, const planning::Layout& given) {
  Mapping m{.layout = given};
  auto& p = m.layout.parallelism;
  auto& t = m.layout.training;
  const char* args_py = "megatron/arguments.py (validate_args)";
  if (model.experts > 0)
    m.breaches.push_back(breach("moe-not-exported", "clustersim handoff",
                                "clustersim exports dense models to Megatron-DeepSpeed only; its DeepSpeed-MoE "
                                "settings (--num-experts, --moe-expert-parallel-size) are not written here"));
  if (p.cp > 1) {
    m.breaches.push_back(breach("no-context-parallel", mds_at(args_py),
                                "Megatron-DeepSpeed has no Megatron-style context parallelism (no "
                                "--context-parallel-size); its --ds-sequence-parallel-size is DeepSpeed-Ulysses "
                                "(parallelism.cp_comm a2a), which this export does not write",
                                fmt::format("the context ranks as data parallelism: DP {}", p.dp * p.cp)));
    p.dp *= p.cp;
    p.cp = 1;
    if (t.global_batch % (p.dp * t.micro_batch) != 0) t.micro_batch = 1;
  }
  if (p.pp > 1 && p.vp > 1) {
    m.breaches.push_back(breach("interleaved-deepspeed-pipeline",
                                ds_at("deepspeed/runtime/pipe/engine.py (one PipelineModule, TrainSchedule)"),
                                "under --deepspeed the pipeline is DeepSpeed's engine, one model chunk per stage in "
                                "its own 1F1B order: no interleaved schedule",
                                "the 1F1B schedule (vp 1)"));
    p.vp = 1;
    t.schedule = models::Schedule::one_f_one_b;
  }
  if (p.pp > 1 && t.schedule == models::Schedule::gpipe) {
    m.breaches.push_back(breach("pipeline-schedule", ds_at("deepspeed/runtime/pipe/schedule.py (TrainSchedule)"),
                                "DeepSpeed's pipeline engine runs only its TrainSchedule, 1F1B order: no GPipe",
                                "the 1F1B schedule"));
    t.schedule = models::Schedule::one_f_one_b;
  }
  if (p.pp == 1 && t.schedule == models::Schedule::gpipe) t.schedule = models::Schedule::one_f_one_b;
  if (p.pp > 1 && p.zero >= 2) {
    m.breaches.push_back(breach("zero-pipeline", ds_at("deepspeed/runtime/pipe/engine.py (PipelineEngine.__init__)"),
                                fmt::format("ZeRO-{} is refused by DeepSpeed's pipeline engine", p.zero),
                                "ZeRO-1 (optimizer state sharded) with the pipeline"));
    p.zero = 1;
  }
  if (p.shard_group > 0 && p.zero == 3) {
    m.breaches.push_back(breach("no-hybrid-sharding", ds_at("deepspeed/runtime/zero/config.py"),
                                "hybrid sharding (shard inside groups, replicate across) is not exported: DeepSpeed's "
                                "MiCS and hpZ partition differently from clustersim's shard groups",
                                "ZeRO-3 over all data-parallel ranks"));
  }
  if (p.zero < 3 || p.shard_group > 0) p.shard_group = 0;
  if (p.tp_comm_overlap) {
    m.breaches.push_back(breach("no-tp-comm-overlap", mds_at(args_py),
                                "Megatron-DeepSpeed turns the asynchronous tensor-parallel all-reduce off under "
                                "--deepspeed and has no TP communication overlap", "TP communication on the stream"));
    p.tp_comm_overlap = false;
  }
  if (p.ep_comm_overlap) p.ep_comm_overlap = false;
  if (t.recompute == models::Recompute::op) {
    m.breaches.push_back(breach("no-op-recompute", mds_at(args_py),
                                "recompute granularity is full or selective (the attention core): torchtitan's "
                                "op-level policy is none of them",
                                "selective recomputation (the attention core)"));
    t.recompute = models::Recompute::selective;
  }
  if (t.fp8_attention) {
    m.breaches.push_back(breach("no-fp8-attention", mds_at(args_py),
                                "Megatron-DeepSpeed runs its attention in bf16 (FlashAttention or the unfused "
                                "core): it has no FP8 attention", "bf16 attention"));
    t.fp8_attention = false;
  }
  if (t.precision == models::Precision::nvfp4) {
    m.breaches.push_back(breach("no-nvfp4", mds_at(args_py),
                                "Megatron-DeepSpeed's low precision is Transformer Engine's fp8 delayed scaling "
                                "(--fp8-hybrid): it has no FP4 flag", "fp8 delayed scaling"));
    t.precision = models::Precision::fp8;
    t.fp8_recipe = models::Fp8Recipe::delayed;
  }
  if (t.precision == models::Precision::fp8 && (t.fp8_recipe != models::Fp8Recipe::delayed || !t.fp8_backward)) {
    m.breaches.push_back(breach("fp8-recipe", mds_at(args_py),
                                "Megatron-DeepSpeed's fp8 is Transformer Engine's delayed scaling (--fp8-hybrid, "
                                "--fp8-amax-history-len): other recipes, and bf16 backward GEMMs, have no flag",
                                "delayed scaling, fp8 in the backward too"));
    t.fp8_recipe = models::Fp8Recipe::delayed;
    t.fp8_backward = true;
  }
  if (t.fp8_param_gather) {
    m.breaches.push_back(breach("fp8-param-gather", mds_at(args_py),
                                "DeepSpeed keeps and gathers 16-bit parameters: it has no fp8 parameter gather",
                                "16-bit parameter gathers"));
    t.fp8_param_gather = false;
  }
  if (t.attention == models::AttentionKernel::cudnn || t.attention == models::AttentionKernel::flash3 ||
      t.attention == models::AttentionKernel::sdpa_flash)
    m.notes.push_back(fmt::format("{} attention runs as flash-attn 2 (--use-flash-attn-v2), Megatron-DeepSpeed's "
                                  "fused attention", models::attention_kernel_name(t.attention)));
  if (p.zero == 3)
    m.notes.push_back("ZeRO-3 runs as DeepSpeed's stage 3 (zero.Init under --zero-stage 3), whatever "
                      "parallelism.sharding names");
  if (p.zero == 0 && p.dp > 1) m.notes.push_back("ZeRO-0: DeepSpeed's data-parallel all-reduce of the gradients");
  if (t.cuda_graphs) m.notes.push_back("CUDA graphs have no Megatron-DeepSpeed flag; not exported");
  if (auto v = models::layout_violation(model, p, t, cluster))
    m.notes.push_back(fmt::format("the layout offered breaks clustersim's rule: {}", v->rule));
  return m;
}

}  // namespace clustersim::handoff::deepspeed
