// DeepSpeed JSON config, or a Megatron-DeepSpeed launch script, -> scenario: the mapping of
// handoff/frameworks/deepspeed_rules.hpp read backwards. A JSON config holds the batch sizes,
// the ZeRO stage, precision and activation checkpointing; the model and its TP and PP sizes are
// pretrain_gpt.py flags, read from a launch script (which may write the JSON in a here-document).

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "handoff/frameworks/deepspeed_rules.hpp"
#include "handoff/frameworks/whole_integer.hpp"
#include "handoff/import/framework_imports.hpp"
#include "scenarios/presets.hpp"

namespace clustersim::handoff {

namespace {

using Json = nlohmann::ordered_json;

std::int64_t stage_of(const Json& config) {
  if (!config.contains("zero_optimization")) return 0;
  const Json& z = config["zero_optimization"];
  if (z.is_boolean()) return z.get<bool>() ? 1 : 0;
  return z.is_object() && z.contains("stage") && z["stage"].is_number_integer() ? z["stage"].get<std::int64_t>() : 0;
}

/// The DeepSpeed config keys clustersim reads; every other top-level key is listed as not modelled.
const std::set<std::string> kReadKeys{"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
                                      "zero_optimization", "bf16", "fp16", "activation_checkpointing"};

void unread_config_keys(const Json& config, std::vector<std::string>& out) {
  for (const auto& [key, v] : config.items())
    if (!kReadKeys.contains(key)) out.push_back(fmt::format("ds_config {} = {}", key, v.dump()));
}

Json model_of(const deepspeed::Launch& launch, std::string_view source, std::set<std::string>& used,
              std::vector<std::string>& notes) {
  const auto value = [&](std::string_view flag) -> std::optional<std::int64_t> {
    const std::string* v = launch.flag(flag);
    if (!v) return std::nullopt;
    used.insert(std::string(flag));
    const auto n = whole_integer(*v);
    if (!n) throw ImportError(fmt::format("{}: {} must be an integer, got '{}'", source, flag, *v));
    return n;
  };
  const auto need = [&](std::string_view flag) {
    const auto v = value(flag);
    if (!v || *v < 1) throw ImportError(fmt::format("{}: {} is needed for the model's shape (a positive integer)", source, flag));
    return *v;
  };
  models::TransformerSpec m{.name = "megatron-deepspeed-model"};
  m.layers = need("--num-layers");
  m.hidden = need("--hidden-size");
  m.heads = need("--num-attention-heads");
  m.kv_heads = value("--num-key-value-heads").value_or(m.heads);
  m.ffn_hidden = value("--ffn-hidden-size").value_or(4 * m.hidden);
  const auto vocab = value("--vocab-size");
  m.mlp = launch.has("--swiglu") ? models::MlpKind::swiglu : models::MlpKind::gelu;
  m.tied_embeddings = !launch.has("--untie-embeddings-and-output-weights");
  if (const std::string* d = launch.flag("--hidden-dropout")) {
    try {
      m.dropout = std::stod(*d);
    } catch (const std::exception&) {
      throw ImportError(fmt::format("{}: --hidden-dropout must be a number, got '{}'", source, *d));
    }
  } else {
    notes.push_back("no --hidden-dropout: Megatron's default of 0.1 is not modelled; the model trains without dropout");
  }
  used.insert("--hidden-dropout");
  used.insert("--attention-dropout");
  used.insert("--swiglu");
  used.insert("--untie-embeddings-and-output-weights");
  for (const std::string& name : scenarios::model_preset_names()) {
    const models::TransformerSpec p = scenarios::model_preset(name);
    if (p.experts == 0 && p.layers == m.layers && p.hidden == m.hidden && p.heads == m.heads && p.kv_heads == m.kv_heads &&
        p.ffn_hidden == m.ffn_hidden && p.mlp == m.mlp && p.tied_embeddings == m.tied_embeddings && p.dropout == m.dropout &&
        (!vocab || *vocab == p.vocab)) {
      if (!vocab) notes.push_back(fmt::format("no --vocab-size (the tokenizer sets it): {}'s vocabulary assumed", name));
      return {{"preset", name}};
    }
  }
  std::int64_t vocab_size = vocab.value_or(0);
  if (!vocab) {
    const std::string* tokenizer = launch.flag("--tokenizer-type");
    if (!tokenizer || *tokenizer != "GPTSentencePieceTokenizer")
      throw ImportError(fmt::format("{}: the flags match no model preset and give no --vocab-size", source));
    // The tokenizer file sets the vocabulary; the Llama and Llama 2 SentencePiece model has 32000.
    vocab_size = 32000;
    notes.push_back("no --vocab-size: GPTSentencePieceTokenizer's file sets it; 32000 (the Llama / Llama 2 "
                    "SentencePiece vocabulary) assumed: set model.vocab");
  }
  return {{"layers", m.layers},          {"hidden", m.hidden},
          {"ffn_hidden", m.ffn_hidden}, {"heads", m.heads},          {"kv_heads", m.kv_heads},
          {"vocab", vocab_size},           {"mlp", m.mlp == models::MlpKind::swiglu ? "swiglu" : "gelu"},
          {"tied_embeddings", m.tied_embeddings}, {"dropout", m.dropout}};
}

}  // namespace

ImportedScenario import_deepspeed(std::string_view text, std::string_view source, const ImportOptions& options) {
  ImportedScenario result;
  std::string_view body = text;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front()))) body.remove_prefix(1);
  const bool json_only = body.starts_with("{");
  deepspeed::Launch launch;
  if (json_only) {
    try {
      launch.ds_config = Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw ImportError(fmt::format("{}: not JSON: {}", source, e.what()));
    }
    launch.has_ds_config = true;
  } else {
    try {
      launch = deepspeed::parse_launch_script(text, source);
    } catch (const std::invalid_argument& e) {
      throw ImportError(e.what());
    }
  }
  if (options.nodes > 0) launch.num_nodes = options.nodes;
  if (options.gpus_per_node > 0) launch.num_gpus = options.gpus_per_node;
  if (launch.num_gpus == 0) launch.num_gpus = 8;
  if (launch.num_nodes == 0) {
    if (!json_only) throw ImportError(fmt::format("{}: the launcher gives no node count: give --nodes", source));
    launch.num_nodes = 1;
    result.notes.push_back("no --nodes: one node assumed");
  }
  const std::int64_t world = launch.num_nodes * launch.num_gpus;
  const Json& c = launch.ds_config;
  const auto config_int = [&](const char* key) -> std::optional<std::int64_t> {
    if (!c.contains(key)) return std::nullopt;
    if (!c[key].is_number_integer() || c[key].get<std::int64_t>() < 1)
      throw ImportError(fmt::format("{}: {} must be a positive integer", source, key));
    return c[key].get<std::int64_t>();
  };
  Json parallelism, training{{"framework", "megatron-deepspeed"}, {"schedule", "1f1b"}};
  Json model;
  if (json_only) {
    // Only the batch sizes say how many data-parallel ranks there are: train = micro x accumulation x dp.
    const auto train = config_int("train_batch_size"), micro = config_int("train_micro_batch_size_per_gpu"),
               accum = config_int("gradient_accumulation_steps");
    if (!train || !micro)
      throw ImportError(fmt::format("{}: train_batch_size and train_micro_batch_size_per_gpu are both needed without "
                                    "a launch script (the data-parallel size comes from them)", source));
    std::int64_t dp = world;
    if (accum) {
      if (*train % (*micro * *accum) != 0)
        throw ImportError(fmt::format("{}: train_batch_size {} is not a multiple of micro {} x accumulation {} "
                                      "(deepspeed/runtime/config.py)", source, *train, *micro, *accum));
      dp = *train / (*micro * *accum);
    }
    else if (*train % (*micro * world) != 0)
      throw ImportError(fmt::format("{}: train_batch_size {} is not a multiple of micro {} x {} GPUs, and no "
                                    "gradient_accumulation_steps says the data-parallel size", source, *train, *micro, world));
    if (dp < 1 || world % dp != 0)
      throw ImportError(fmt::format("{}: {} data-parallel ranks (from the batch sizes) do not divide the {} GPUs",
                                    source, dp, world));
    const std::int64_t model_parallel = world / dp;
    const std::int64_t tp = std::min(model_parallel, launch.num_gpus);
    if (model_parallel % tp != 0)
      throw ImportError(fmt::format("{}: model-parallel size {} does not split into TP within a node", source, model_parallel));
    parallelism = {{"tp", tp}, {"pp", model_parallel / tp}, {"dp", dp}, {"sp", false}};
    if (model_parallel > 1)
      result.notes.push_back(fmt::format("the config's batch sizes leave {} model-parallel ranks; how they split into "
                                         "TP and PP is a Megatron-DeepSpeed flag: TP {} within a node, PP {} assumed",
                                         model_parallel, tp, model_parallel / tp));
    model = {{"preset", "llama3-70b"}};
    result.notes.push_back("the model is no DeepSpeed config setting (it is in the Megatron-DeepSpeed flags): "
                           "llama3-70b assumed; set model.preset");
    training["micro_batch"] = *micro;
    training["global_batch"] = *train;
    training["recompute"] = c.contains("activation_checkpointing") ? "full" : "none";
    if (c.contains("activation_checkpointing"))
      result.notes.push_back("activation_checkpointing: modelled as full recomputation (the granularity is a "
                             "Megatron-DeepSpeed flag)");
    parallelism["zero"] = stage_of(c);
    if (stage_of(c) >= 2 && model_parallel / tp > 1)
      throw ImportError(fmt::format("{}: ZeRO-{} with the pipeline the batch sizes imply (PP {}): DeepSpeed's "
                                    "pipeline engine refuses it (deepspeed/runtime/pipe/engine.py)", source,
                                    stage_of(c), model_parallel / tp));
    unread_config_keys(c, result.unmapped);
  } else {
    const std::vector<RuleBreach> breaches = deepspeed::check_launch(launch);
    if (!breaches.empty())
      throw ImportError(fmt::format("{}: DeepSpeed / Megatron-DeepSpeed would refuse this launch on {} GPUs: {} ({}: {})",
                                    source, world, breaches.front().message, breaches.front().rule,
                                    breaches.front().source));
    std::set<std::string> used{"--deepspeed", "--deepspeed_config", "--deepspeed-config", "--zero-stage",
                               "--no-pipeline-parallel", "--bf16", "--max-position-embeddings", "--tokenizer-type"};
    const auto flag_int = [&](std::string_view name, std::int64_t fallback) {
      const std::string* v = launch.flag(name);
      used.insert(std::string(name));
      if (!v) return fallback;
      const auto n = whole_integer(*v);
      if (!n || *n < 1) throw ImportError(fmt::format("{}: {} must be a positive integer, got '{}'", source, name, *v));
      return *n;
    };
    const std::int64_t tp = flag_int("--tensor-model-parallel-size", 1);
    const std::int64_t pp = flag_int("--pipeline-model-parallel-size", 1);
    const std::int64_t ulysses = flag_int("--ds-sequence-parallel-size", 1);
    if (ulysses > 1)
      result.notes.push_back(fmt::format("--ds-sequence-parallel-size {} (DeepSpeed-Ulysses) is not modelled: its "
                                         "ranks counted as data parallelism", ulysses));
    parallelism = {{"tp", tp}, {"pp", pp}, {"dp", world / (tp * pp)},
                   {"sp", launch.has("--sequence-parallel") && tp > 1}, {"zero", stage_of(c)}};
    used.insert("--sequence-parallel");
    model = model_of(launch, source, used, result.notes);
    training["micro_batch"] = flag_int("--micro-batch-size", 1);
    const std::int64_t global = flag_int("--global-batch-size", training["micro_batch"].get<std::int64_t>() * world / (tp * pp));
    training["global_batch"] = global;
    const std::int64_t seq = flag_int("--seq-length", 2048);
    training["seq_len"] = seq;
    if (launch.has("--train-iters")) training["tokens"] = static_cast<double>(flag_int("--train-iters", 1)) * static_cast<double>(global) * static_cast<double>(seq);
    const std::string* granularity = launch.flag("--recompute-granularity");
    for (const char* f : {"--recompute-granularity", "--recompute-method", "--recompute-num-layers",
                          "--deepspeed-activation-checkpointing", "--recompute-activations", "--checkpoint-activations"})
      used.insert(f);
    if ((granularity && *granularity == "full") || launch.has("--checkpoint-activations")) training["recompute"] = "full";
    else if ((granularity && *granularity == "selective") || launch.has("--recompute-activations")) training["recompute"] = "selective";
    else training["recompute"] = "none";
    if (launch.has("--fp8-hybrid")) {
      training["precision"] = "fp8";
      training["fp8_recipe"] = "delayed";
    }
    const bool flash = launch.has("--use-flash-attn-v2") || launch.has("--use-flash-attn") ||
                       launch.has("--use-flash-attn-v1") || launch.has("--use-flash-attn-triton");
    training["attention"] = flash ? "flash2" : "unfused";
    for (const char* f : {"--use-flash-attn-v2", "--use-flash-attn", "--use-flash-attn-v1", "--use-flash-attn-triton"})
      used.insert(f);
    used.insert("--fp8-hybrid");
    used.insert("--transformer-impl");
    for (const auto& [flag, value] : launch.flags)
      if (!used.contains(flag)) result.unmapped.push_back(value.empty() ? flag : flag + " " + value);
    if (launch.has_ds_config) unread_config_keys(c, result.unmapped);
  }
  if (!training.contains("precision")) training["precision"] = "bf16";
  if (c.contains("fp16") && c["fp16"].is_object() && c["fp16"].value("enabled", false) == true)
    result.notes.push_back("fp16: modelled as bf16 (the same tensor-core rate; loss scaling is not modelled)");
  result.scenario = {{"name", "megatron-deepspeed-import"},
                     {"model", model},
                     {"cluster",
                      {{"gpu", options.gpu.empty() ? "h100-sxm" : options.gpu},
                       {"num_gpus", world},
                       {"gpus_per_node", launch.num_gpus}}},
                     {"parallelism", parallelism},
                     {"training", training}};
  return result;
}

}  // namespace clustersim::handoff
