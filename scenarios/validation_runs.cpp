#include "scenarios/validation_runs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "models/spec/attention_shape.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/step/pipeline_schedule.hpp"
#include "scenarios/csv_reader.hpp"
#include "scenarios/embedded_files.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/scenario_validation.hpp"
#include "scenarios/validation_network.hpp"

namespace clustersim::scenarios {
namespace {

using Column = std::string ValidationRow::*;

constexpr std::array<std::pair<std::string_view, Column>, 29> columns{{
    {"id", &ValidationRow::id},
    {"source", &ValidationRow::source},
    {"model", &ValidationRow::model},
    {"layers", &ValidationRow::layers},
    {"hidden", &ValidationRow::hidden},
    {"ffn_hidden", &ValidationRow::ffn_hidden},
    {"heads", &ValidationRow::heads},
    {"kv_heads", &ValidationRow::kv_heads},
    {"seq_len", &ValidationRow::seq_len},
    {"vocab", &ValidationRow::vocab},
    {"gpu", &ValidationRow::gpu},
    {"num_gpus", &ValidationRow::num_gpus},
    {"precision", &ValidationRow::precision},
    {"tp", &ValidationRow::tp},
    {"pp", &ValidationRow::pp},
    {"dp", &ValidationRow::dp},
    {"cp", &ValidationRow::cp},
    {"ep", &ValidationRow::ep},
    {"vp", &ValidationRow::vp},
    {"sp", &ValidationRow::sp},
    {"zero_stage", &ValidationRow::zero_stage},
    {"recompute", &ValidationRow::recompute},
    {"micro_batch", &ValidationRow::micro_batch},
    {"global_batch", &ValidationRow::global_batch},
    {"measured_tflops_per_gpu", &ValidationRow::measured_tflops_per_gpu},
    {"measured_mfu", &ValidationRow::measured_mfu},
    {"measured_tokens_per_sec_per_gpu", &ValidationRow::measured_tokens_per_sec_per_gpu},
    {"measured_step_time_s", &ValidationRow::measured_step_time_s},
    {"notes", &ValidationRow::notes},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

/// The integer right after `key` in a row's notes ("bucket_size=40000000"), if the notes name it.
std::optional<std::int64_t> note_integer(std::string_view notes, std::string_view key) {
  const auto at = notes.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t value = 0;
  const std::string_view digits = notes.substr(at + key.size());
  if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec != std::errc{}) return std::nullopt;
  return value;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

/// The V a family simulates for a pipeline of `pp` stages that interleaves with an unstated one,
/// and the assumption that says so: how V follows from the family's rule, or why the rule gives
/// none and the smallest, 2, stands instead (whose layout the caller checks).
struct UnstatedV {
  std::int64_t vp = 2;
  std::string assumption{};
};
UnstatedV unstated_vp(const FamilyDefault<UnstatedVp>& rule, std::int64_t layers, std::int64_t pp) {
  switch (rule.value) {
    case UnstatedVp::two: return {2, std::string(rule.reason)};
    case UnstatedVp::one_place_per_chunk: {
      const std::int64_t places = layers + 2;  // the layers, the embedding's and the loss's places
      if (places % pp == 0) return {places / pp, fmt::format("vp={} = (layers + 2) / pp: {}", places / pp, rule.reason)};
      return {2, fmt::format("vp=2, the smallest: {} layer places do not fill {} stages evenly ({})", places, pp,
                             rule.reason)};
    }
    case UnstatedVp::one_layer_per_chunk:
      if (layers % pp == 0 && layers / pp > 1)
        return {layers / pp, fmt::format("vp={} = layers / pp, one layer a chunk: {}", layers / pp, rule.reason)};
      return {2, fmt::format("vp=2, the smallest: {} layers on {} stages give no V > 1 of one layer a chunk ({})",
                             layers, pp, rule.reason)};
  }
  return {2, std::string(rule.reason)};
}

/// Numeric columns of one row; a value that is not a number is an error naming file and line.
class Numbers {
 public:
  Numbers(const ValidationRow& row, std::string_view source_name)
      : where_(std::string(source_name) + ":" + std::to_string(row.line)) {}

  std::optional<std::int64_t> integer(std::string_view column, std::string_view text) const {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || value <= 0) {
      fail(column, "a positive integer", text);
    }
    return value;
  }

  std::optional<double> number(std::string_view column, std::string_view text) const {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    double value = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || !(value > 0.0)) {
      fail(column, "a positive number", text);
    }
    return value;
  }

  // A share of the GPU's peak: above 1 is a figure in percent or a misprint.
  std::optional<double> fraction(std::string_view column, std::string_view text) const {
    const std::optional<double> value = number(column, text);
    if (value && *value > 1.0) fail(column, "a fraction of the peak in (0, 1]", trim(text));
    return value;
  }

 private:
  [[noreturn]] void fail(std::string_view column, std::string_view what, std::string_view text) const {
    throw ScenarioError(where_, "", fmt::format("column {} must be {}, got \"{}\"", column, what, text));
  }
  std::string where_;
};

/// Every numeric column, parsed before any rule looks at the row, so that a malformed number is
/// an error even in a row that is skipped.
struct RowNumbers {
  std::optional<std::int64_t> layers, hidden, ffn_hidden, heads, kv_heads, seq_len, vocab, num_gpus, tp,
      pp, dp, cp, ep, vp, micro_batch, global_batch;
  PublishedFigures figures;
};

RowNumbers parse_numbers(const ValidationRow& row, std::string_view source_name) {
  const Numbers n(row, source_name);
  return {.layers = n.integer("layers", row.layers),
          .hidden = n.integer("hidden", row.hidden),
          .ffn_hidden = n.integer("ffn_hidden", row.ffn_hidden),
          .heads = n.integer("heads", row.heads),
          .kv_heads = n.integer("kv_heads", row.kv_heads),
          .seq_len = n.integer("seq_len", row.seq_len),
          .vocab = n.integer("vocab", row.vocab),
          .num_gpus = n.integer("num_gpus", row.num_gpus),
          .tp = n.integer("tp", row.tp),
          .pp = n.integer("pp", row.pp),
          .dp = n.integer("dp", row.dp),
          .cp = n.integer("cp", row.cp),
          .ep = n.integer("ep", row.ep),
          .vp = n.integer("vp", row.vp),
          .micro_batch = n.integer("micro_batch", row.micro_batch),
          .global_batch = n.integer("global_batch", row.global_batch),
          .figures = {
              .step_time_s = n.number("measured_step_time_s", row.measured_step_time_s),
              .tokens_per_s_per_gpu =
                  n.number("measured_tokens_per_sec_per_gpu", row.measured_tokens_per_sec_per_gpu),
              .tflops_per_gpu = n.number("measured_tflops_per_gpu", row.measured_tflops_per_gpu),
              .mfu = n.fraction("measured_mfu", row.measured_mfu)}};
}

/// A mixture-of-experts row's architecture: the model preset its name stands for (the CSV's shape
/// columns cannot say which layers route to which experts), or why it cannot run.
struct MoeModel {
  std::string preset{};  // empty: a dense model
  std::string skip{};    // why the row cannot run, when not empty
};

MoeModel moe_model(const ValidationRow& row, std::optional<std::int64_t> ep) {
  const std::string model = lower(row.model);
  if (contains(model, "gpt-oss") && contains(model, "120b")) return {.preset = "gpt-oss-120b", .skip = {}};
  if (contains(model, "gpt-oss") && contains(model, "20b")) return {.preset = "gpt-oss-20b", .skip = {}};
  if (contains(model, "deepseek") && contains(model, "v3")) return {.preset = "deepseek-v3", .skip = {}};
  if (contains(model, "kimi") && contains(model, "k2")) return {.preset = "kimi-k2", .skip = {}};
  if (contains(model, "qwen3") && contains(model, "30b")) return {.preset = "qwen3-30b-a3b", .skip = {}};
  if (contains(model, "qwen3") && contains(model, "235b")) return {.preset = "qwen3-235b-a22b", .skip = {}};
  if (contains(model, "mixtral") && contains(model, "8x7b")) return {.preset = "mixtral-8x7b", .skip = {}};
  if (contains(model, "mixtral") && contains(model, "8x22b")) return {.preset = "mixtral-8x22b", .skip = {}};
  for (std::string_view marker : {"moe", "deepseek", "mixtral"}) {
    if (contains(model, marker))
      return {.preset = {}, .skip = fmt::format("mixture-of-experts model ({}) without a preset", row.model)};
  }
  if (ep && *ep > 1) return {.preset = {}, .skip = fmt::format("expert parallelism ep = {} on a model without experts", *ep)};
  return {};
}

/// The GPU preset the row's gpu column names, or why none fits.
std::variant<std::string, std::string> gpu_preset_for(std::string_view gpu) {
  using Result = std::variant<std::string, std::string>;
  const std::string text = lower(gpu);
  if (text.empty()) return Result(std::in_place_index<1>, "GPU not given");
  const bool hbm2e_h100 = contains(text, "h100") && (contains(text, "96gb") || contains(text, "hbm2e"));
  if (hbm2e_h100 && contains(text, "500w")) return Result(std::in_place_index<0>, "h100-96gb-500w");
  if (hbm2e_h100 || contains(text, "non-standard")) {
    return Result(std::in_place_index<1>, fmt::format("non-standard GPU SKU ({}): no preset", gpu));
  }
  if (contains(text, "a100") && contains(text, "80")) return Result(std::in_place_index<0>, "a100-80gb");
  if (contains(text, "h200")) return Result(std::in_place_index<0>, "h200-sxm");
  if (contains(text, "h100") && !contains(text, "pcie")) return Result(std::in_place_index<0>, "h100-sxm");
  if (contains(text, "gb300")) return Result(std::in_place_index<0>, "gb300");
  if (contains(text, "b300")) return Result(std::in_place_index<0>, "b300");
  if (contains(text, "gb200")) return Result(std::in_place_index<0>, "gb200");
  if (contains(text, "b200")) return Result(std::in_place_index<0>, "b200");
  return Result(std::in_place_index<1>, fmt::format("GPU {} has no preset", gpu));
}

std::optional<models::Recompute> parse_recompute(std::string_view text) {
  const std::string t = lower(trim(text));
  if (t.starts_with("full")) return models::Recompute::full;
  if (t.starts_with("selective")) return models::Recompute::selective;
  if (t == "none" || t == "no" || t == "false") return models::Recompute::none;
  return std::nullopt;
}

std::optional<bool> parse_bool(std::string_view text) {
  const std::string t = lower(trim(text));
  if (t == "true" || t == "yes" || t == "1") return true;
  if (t == "false" || t == "no" || t == "0") return false;
  return std::nullopt;
}

// A row's ZeRO stage, and how a stage given in words was read (empty for a number).
struct ZeroStage {
  int stage = 0;
  std::string_view reading{};
};

std::optional<ZeroStage> parse_zero(std::string_view text) {
  const std::string t = lower(trim(text));
  if (t.empty()) return std::nullopt;
  if (t.front() >= '0' && t.front() <= '3') return ZeroStage{.stage = t.front() - '0'};
  // Llama 3's FSDP shards the optimizer state and the gradients and keeps the parameters whole
  // through the step (not resharded after the forward).
  if (contains(t, "not resharded")) {
    return ZeroStage{.stage = 2,
                     .reading = "zero=2: the paper's FSDP 'shards optimizer states and gradients, but for model "
                                "shards we do not reshard after forward computation' (section 3.3.2), and its 'FP32 "
                                "gradient accumulation during backward computation over multiple micro-batches and "
                                "also reduce-scatter gradients in FP32' is each micro-batch's reduce-scatter added "
                                "into the fp32 shard"};
  }
  if (contains(t, "fsdp")) return ZeroStage{.stage = 3};
  return std::nullopt;
}

}  // namespace

std::vector<ValidationRow> read_validation_rows(std::string_view csv_text, std::string_view source_name) {
  const std::vector<CsvRecord> records = read_csv(csv_text, source_name);
  if (records.empty()) throw ScenarioError(std::string(source_name) + ":1", "", "no header line");
  const CsvRecord& header = records.front();
  const std::string header_where = std::string(source_name) + ":" + std::to_string(header.line);
  std::map<std::string_view, std::size_t> seen_columns;  // name -> 1-based field
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const auto [first, fresh] = seen_columns.emplace(header.fields[i], i + 1);
    if (!fresh) {
      throw ScenarioError(header_where, "",
                          fmt::format("column \"{}\" appears twice (fields {} and {}): which one holds the value?",
                                      header.fields[i], first->second, i + 1));
    }
  }
  std::vector<std::pair<std::size_t, Column>> index;  // CSV field -> ValidationRow member
  for (const auto& [name, member] : columns) {
    const auto it = std::find(header.fields.begin(), header.fields.end(), name);
    if (it == header.fields.end()) {
      throw ScenarioError(header_where, "", fmt::format("header has no column \"{}\"", name));
    }
    index.emplace_back(static_cast<std::size_t>(it - header.fields.begin()), member);
  }
  std::vector<ValidationRow> rows;
  std::map<std::string, std::int64_t> id_lines;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.fields.size() != header.fields.size()) {
      throw ScenarioError(std::string(source_name) + ":" + std::to_string(record.line), "",
                          fmt::format("{} fields, the header has {}", record.fields.size(),
                                      header.fields.size()));
    }
    ValidationRow row;
    row.line = record.line;
    for (const auto& [field, member] : index) row.*member = record.fields[field];
    const std::string where = std::string(source_name) + ":" + std::to_string(record.line);
    // The id is how `validate --row` and the reports name a row: present and unique.
    if (trim(row.id).empty()) throw ScenarioError(where, "", "column id must not be empty");
    if (const auto [earlier, fresh] = id_lines.emplace(row.id, row.line); !fresh) {
      throw ScenarioError(where, "", fmt::format("column id \"{}\" is also the id of line {}: ids must be unique",
                                                 row.id, earlier->second));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

MappedRow map_validation_row(const ValidationRow& row, std::string_view source_name) {
  const SourceFamily& family = source_family(row.source);
  const RowNumbers n = parse_numbers(row, source_name);
  auto skip = [&](std::string reason) -> MappedRow {
    return SkippedRow{.id = row.id, .family = &family, .line = row.line, .reason = std::move(reason)};
  };
  std::vector<std::string> assumed;

  // What the step model cannot express, most fundamental first.
  const MoeModel moe = moe_model(row, n.ep);
  if (!moe.skip.empty()) return skip(moe.skip);
  const auto gpu = gpu_preset_for(row.gpu);
  if (gpu.index() == 1) return skip(std::get<1>(gpu));
  if (!n.tp || !n.pp) return skip("parallel layout not given (tp, pp)");
  if (!n.global_batch) return skip("global batch not given");
  if (!n.num_gpus || !n.layers || !n.hidden || !n.heads) {
    return skip("model shape or GPU count not given (layers, hidden, heads, num_gpus)");
  }

  Scenario s = default_scenario();
  s.name = row.id;

  // Model.
  models::TransformerSpec& m = s.model;
  m = models::TransformerSpec{
      .name = row.model, .layers = *n.layers, .hidden = *n.hidden, .heads = *n.heads};
  m.kv_heads = n.kv_heads.value_or(*n.heads);
  if (auto ffn = n.ffn_hidden) {
    m.ffn_hidden = *ffn;
  } else {
    m.ffn_hidden = 4 * *n.hidden;
    assumed.push_back("ffn_hidden = 4 x hidden (Megatron default; not given)");
  }
  m.mlp = m.ffn_hidden == 4 * m.hidden ? models::MlpKind::gelu : models::MlpKind::swiglu;
  // GPT-style models (4h, non-gated MLP) tie the embedding to the output layer, as Megatron's GPT
  // does by default; Nemotron-4 (squared-ReLU, also 4h) unties them
  // (share_embeddings_and_output_weights: false in NeMo-Framework-Launcher's
  // conf/training/nemotron/*.yaml).
  const bool nemotron = contains(lower(row.model), "nemotron");
  m.tied_embeddings = m.mlp == models::MlpKind::gelu && !nemotron;
  if (nemotron) assumed.emplace_back("tied_embeddings=false: Nemotron-4's configs set share_embeddings_and_output_weights false");
  const FamilyDefault<double> dropout = dropout_for_model(family, row.model, row.notes);
  m.dropout = dropout.value;
  if (!dropout.reason.empty()) assumed.emplace_back(dropout.reason);
  m.alibi = family.alibi.value;
  if (m.alibi) assumed.emplace_back(family.alibi.reason);
  if (auto vocab = n.vocab) {
    m.vocab = *vocab;
  } else if (const std::string name = lower(row.model); contains(name, "nemotron")) {
    m.vocab = 256000;
    assumed.push_back("vocab = 256000 (Nemotron tokenizer; not given)");
  } else if (contains(name, "gpt")) {
    m.vocab = 51200;
    assumed.push_back("vocab = 51200 (GPT-2 BPE padded, as in the Megatron rows; not given)");
  } else {
    return skip("vocabulary size not given");
  }
  if (!moe.preset.empty()) {  // the experts, attention and dense layers only the preset knows
    m = model_preset(moe.preset);
    assumed.push_back(fmt::format("model = preset {}: the row's shape columns do not give the experts", moe.preset));
  }

  // Cluster.
  s.cluster.gpu = gpu_preset(std::get<0>(gpu));
  s.cluster.num_gpus = *n.num_gpus;
  const SystemNetwork network = system_network(row.gpu + " " + row.notes, std::get<0>(gpu));
  s.cluster.gpus_per_node = network.gpus_per_node;
  s.cluster.nvlink_domain_gpus = network.nvlink_domain_gpus;
  if (*n.num_gpus < s.cluster.gpus_per_node) {
    s.cluster.gpus_per_node = *n.num_gpus;
    assumed.push_back(fmt::format("{} GPUs of one node", *n.num_gpus));
  }
  s.cluster.nics_per_node = network.nics_per_node;
  s.cluster.nic_bytes_per_s = network.nic_gbit_per_s * 1e9 / 8.0;
  s.cluster.fabric = network.fabric;
  if (network.assumed) assumed.push_back(fmt::format("network: {} (not all of it given by the row)", network.description));

  // Parallelism.
  models::ParallelismSpec& p = s.parallelism;
  p.tp = *n.tp;
  p.pp = *n.pp;
  p.cp = n.cp.value_or(1);
  p.vp = n.vp.value_or(1);
  p.ep = n.ep.value_or(1);
  // A source that interleaves its pipeline without stating V ran at least V = 2: simulate the
  // family's V (its framework's default, what its text implies, else the smallest, 2; vp = 1
  // would contradict the source), unless the layout rules it out.
  const std::string notes = lower(row.notes);
  const bool unstated_interleaving = trim(row.vp).empty() && contains(notes, "interleaved");
  std::optional<UnstatedV> unstated;
  if (unstated_interleaving) {
    unstated = unstated_vp(family.unstated_vp, s.model.layers, p.pp);
    p.vp = unstated->vp;
  }
  if (auto dp = n.dp) {
    p.dp = *dp;
  } else {
    if (auto violation = models::derive_dp(p, s.cluster)) return skip("dp not given: " + violation->rule);
    assumed.push_back(fmt::format("dp = GPUs / (tp pp cp) = {}", p.dp));
  }
  if (auto sp = parse_bool(row.sp)) {
    p.sp = *sp;
  } else if (!trim(row.sp).empty()) {
    return skip(fmt::format("sp \"{}\" is neither true nor false", row.sp));
  } else {
    p.sp = family.sp.value == SpDefault::when_tp && p.tp > 1;
    if (p.tp > 1) assumed.emplace_back(family.sp.reason);
  }
  if (auto zero = parse_zero(row.zero_stage)) {
    p.zero = zero->stage;
    if (!zero->reading.empty()) assumed.emplace_back(zero->reading);
  } else if (!trim(row.zero_stage).empty()) {
    return skip(fmt::format("zero_stage \"{}\" is not a ZeRO stage", row.zero_stage));
  } else {
    p.zero = family.zero.value;
    if (p.dp * p.cp > 1) assumed.emplace_back(family.zero.reason);
  }

  // Training.
  models::TrainingSpec& t = s.training;
  t.global_batch = *n.global_batch;
  if (auto seq = n.seq_len) {
    t.seq_len = *seq;
  } else if (family.seq_len.value > 0) {
    t.seq_len = family.seq_len.value;
    assumed.emplace_back(family.seq_len.reason);
  } else {
    return skip("sequence length not given");
  }
  if (auto mb = n.micro_batch) {
    t.micro_batch = *mb;
  } else if (const std::int64_t replicas_x_pp = p.dp * p.pp;
             family.micro_batch.value == MicroBatchDefault::pp_micro_batches && t.global_batch % replicas_x_pp == 0) {
    t.micro_batch = t.global_batch / replicas_x_pp;
    assumed.emplace_back(family.micro_batch.reason);
  } else {
    t.micro_batch = 1;
    assumed.emplace_back(family.micro_batch.value == MicroBatchDefault::one_sequence ? family.micro_batch.reason
                                                                                     : "micro_batch = 1 (not given)");
  }
  const std::string precision = lower(row.precision);
  t.precision = contains(precision, "nvfp4")                                  ? models::Precision::nvfp4
                : contains(precision, "fp8") || contains(precision, "float8") ? models::Precision::fp8
                                                                               : models::Precision::bf16;
  if (precision.empty()) assumed.push_back("precision = bf16 (not given)");
  if (auto recompute = parse_recompute(row.recompute)) {
    t.recompute = *recompute;
  } else if (!trim(row.recompute).empty()) {
    return skip(fmt::format("recompute \"{}\" is not full, selective or none", row.recompute));
  } else {
    t.recompute = family.recompute.value;
    assumed.emplace_back(family.recompute.reason);
  }
  t.schedule = p.vp > 1 ? models::Schedule::interleaved : models::Schedule::one_f_one_b;
  // The framework's parameter set, then what the family or the row says otherwise.
  t.framework = family.framework.value;
  assumed.emplace_back(family.framework.reason);
  const models::FrameworkParameters& set = models::framework_parameters(t.framework);
  // "Selective" is what the framework's selective checkpointing recomputes.
  if (t.recompute == models::Recompute::selective && set.selective_recompute.value != models::Recompute::selective) {
    t.recompute = set.selective_recompute.value;
    assumed.push_back(fmt::format("recompute={}: {}", models::recompute_name(t.recompute), set.selective_recompute.source));
  }
  // A row whose notes say it runs Transformer Engine's kernels ("kernels: TE + ...") takes TE's
  // attention (cuDNN fused attention on Hopper) and its fused norms and activations.
  // FlexAttention (attention sinks need it) is taken at the rate of PyTorch's own FlashAttention-2
  // build: PyTorch's FlexAttention announcement (pytorch.org blog, Aug 2024) puts it at about 90 % of
  // FlashAttention-2 forward and 85 % backward on H100, so this is the fast end.
  const bool te_kernels = contains(notes, "kernels: te");
  const bool flex = contains(notes, "flexattn");
  if (flex) {
    t.attention = models::AttentionKernel::sdpa_flash;
    assumed.emplace_back("attention=sdpa_flash: the row's attention is FlexAttention, a PyTorch kernel taken at the "
                         "rate of PyTorch's FlashAttention-2 build (it reaches about 85-90 % of FlashAttention-2 on "
                         "H100)");
  } else if (te_kernels) {
    t.attention = models::AttentionKernel::cudnn;
    assumed.emplace_back("attention=cudnn: the row's kernels are Transformer Engine's, whose attention on Hopper is "
                         "cuDNN fused attention");
  } else if (contains(notes, "nvte_fused_attn=")) {  // Transformer Engine's switch, as the row's run set it
    t.attention = contains(notes, "nvte_fused_attn=1") ? models::AttentionKernel::cudnn : models::AttentionKernel::flash2;
    assumed.push_back(fmt::format("attention={}: the row's run set NVTE_FUSED_ATTN={} (its notes)",
                                  models::attention_kernel_name(t.attention),
                                  t.attention == models::AttentionKernel::cudnn ? 1 : 0));
  } else if (family.attention) {
    t.attention = family.attention->value;
    assumed.emplace_back(family.attention->reason);
  } else {
    t.attention = set.attention.value;
    assumed.push_back(fmt::format("attention={}: {}", models::attention_kernel_name(t.attention), set.attention.source));
  }
  p.cp_comm = family.cp_comm ? family.cp_comm->value : set.cp_comm.value;
  if (p.cp > 1) {
    assumed.push_back(family.cp_comm
                          ? std::string(family.cp_comm->reason)
                          : fmt::format("cp_comm={}: {}", models::cp_comm_name(p.cp_comm), set.cp_comm.source));
  }
  p.cp_max_ctas = family.cp_max_ctas.value;
  if (p.cp > 1 && p.cp_max_ctas > 0) assumed.emplace_back(family.cp_max_ctas.reason);
  p.dp_max_ctas = family.dp_max_ctas.value;
  if (p.dp * p.cp > 1 && p.dp_max_ctas > 0) assumed.emplace_back(family.dp_max_ctas.reason);
  t.fp8_recipe = family.fp8_recipe ? family.fp8_recipe->value : set.fp8_recipe.value;
  if (t.precision == models::Precision::fp8) {
    assumed.push_back(family.fp8_recipe ? std::string(family.fp8_recipe->reason)
                                        : fmt::format("fp8_recipe={}: {}", models::fp8_recipe_name(t.fp8_recipe),
                                                      set.fp8_recipe.source));
  }
  if (contains(notes, "deepep")) {
    t.moe_dispatcher = models::MoeDispatcher::deepep;
    assumed.emplace_back("moe_dispatcher=deepep: the row's kernels include DeepEP");
  }
  if (contains(notes, "fake balanced")) {
    t.moe_routing = models::MoeRouting::consecutive;
    assumed.emplace_back("moe_routing=consecutive: the row's gate is Automodel's fake balanced gate, which gives "
                         "token i experts k i .. k i + k - 1");
  }
  const bool compiled = contains(notes, "compile") && !contains(notes, "no compile");
  t.elementwise = compiled || te_kernels ? models::ElementwiseKernels::fused : set.elementwise.value;
  if (t.elementwise != models::ElementwiseKernels::fused) {
    assumed.push_back(fmt::format("elementwise=eager: {}", set.elementwise.source));
  }
  t.fp32_loss = family.fp32_loss ? family.fp32_loss->value : set.fp32_loss.value;
  if (family.fp32_loss) assumed.emplace_back(family.fp32_loss->reason);
  t.rope_fusion = family.rope_fusion ? family.rope_fusion->value : models::framework_rope_fusion(set, t.elementwise);
  if (family.rope_fusion) assumed.emplace_back(family.rope_fusion->reason);
  t.repeat_kv = family.repeat_kv && family.repeat_kv->value;
  if (family.repeat_kv && models::copies_kv_groups(m, true))
    assumed.emplace_back(family.repeat_kv->reason);
  const auto family_loss = cross_entropy_for_model(family, row.model);
  t.cross_entropy = family_loss ? family_loss->value : models::framework_cross_entropy(set, t.elementwise);
  if (family_loss) {
    assumed.emplace_back(family_loss->reason);
  } else if (t.cross_entropy != models::CrossEntropyKernel::fused) {
    assumed.push_back(
        fmt::format("cross_entropy={}: {}", models::cross_entropy_name(t.cross_entropy), set.cross_entropy.source));
  }
  t.bf16_params = set.bf16_params.value;
  if (t.bf16_params) {
    assumed.push_back(fmt::format("bf16_params=true: {}", set.bf16_params.source));
  } else if (contains(notes, "optim.dtype=bf16")) {
    // NeMo 1.x's distributed_fused_adam at the model's own dtype: Apex steps the bf16 weights with
    // bf16 moments and keeps no master copy, as a model cast to bf16 trains.
    t.bf16_params = true;
    assumed.emplace_back("bf16_params=true: the row's optimizer runs at the bf16 weights' dtype (its notes: "
                         "optim.dtype=bf16)");
  }
  if (p.zero >= 3) {
    p.sharding = family.sharding ? family.sharding->value : set.sharding.value;
    if (p.dp * p.cp > 1) {
      assumed.push_back(family.sharding ? std::string(family.sharding->reason)
                                        : fmt::format("sharding={}: {}", models::sharding_name(p.sharding),
                                                      set.sharding.source));
    }
    t.overlap_param_gather = t.overlap_grad_reduce = family.zero3_overlap.value;
    if (!family.zero3_overlap.value && p.dp * p.cp > 1) assumed.emplace_back(family.zero3_overlap.reason);
  } else {
    t.grad_dtype = family.grad_dtype ? family.grad_dtype->value : set.grad_dtype.value;
    if (p.dp * p.cp > 1) {
      assumed.push_back(family.grad_dtype ? std::string(family.grad_dtype->reason)
                                          : fmt::format("grad_dtype={}: {}", t.grad_dtype == models::GradDtype::fp32
                                                                                 ? "fp32" : "bf16",
                                                        set.grad_dtype.source));
    }
    // Megatron-LM's --DDP-impl torch wraps the model in PyTorch's DistributedDataParallel, whose
    // bucketed all-reduce runs during the backward (the schedule keeps it in no_sync but for the last
    // micro-batch), where the local implementation reduces after it.
    const bool torch_ddp = contains(notes, "--ddp-impl torch");
    t.overlap_grad_reduce = torch_ddp || family.overlap_grad_reduce.value;
    if (p.dp * p.cp > 1 && torch_ddp) {
      assumed.emplace_back("overlap_grad_reduce=true: --DDP-impl torch (PyTorch DistributedDataParallel all-reduces "
                           "its buckets during the last micro-batch's backward), the row's launch script");
    } else if (p.dp * p.cp > 1 && !t.overlap_grad_reduce) {
      assumed.emplace_back(family.overlap_grad_reduce.reason);
    }
    t.grad_accumulation = family.grad_accumulation ? family.grad_accumulation->value : set.grad_accumulation.value;
    if (t.grad_accumulation != models::GradAccumulation::fused) {
      assumed.push_back(family.grad_accumulation
                            ? std::string(family.grad_accumulation->reason)
                            : fmt::format("grad_accumulation={}: {}",
                                          models::grad_accumulation_name(t.grad_accumulation),
                                          set.grad_accumulation.source));
    }
  }

  // Tensor-parallel overlap where the row says it ran (Megatron-LM's flag, torchtitan's async TP, or in words).
  const bool tp_overlap_named = contains(notes, "--tp-comm-overlap") || contains(notes, "tp comm overlap on") ||
                                contains(notes, "asynctp") || contains(notes, "async tp");
  if (tp_overlap_named && p.sp && p.tp > 1) p.tp_comm_overlap = true;
  // CUDA graphs where the row says they ran: the whole step (Megatron-Core's full_cuda_graph) or
  // each layer (NeMo's LAYER_CUDA_GRAPH); either way each layer pass is one graph launch.
  if (contains(notes, "full cuda graph") || contains(notes, "layer cuda graph")) t.cuda_graphs = true;
  // fp8 parameters gathered in fp8 where the row says so: NeMo's FP8_PARAMS and FP8_PARAM_GATHER
  // (the distributed optimizer's fp8 all-gather), torchtitan's FSDP float8 all-gather.
  if (t.precision == models::Precision::fp8 && p.zero >= 1 &&
      (contains(notes, "fp8_params=true") || contains(notes, "fp8_param_gather=true") ||
       contains(precision, "fsdp float8 all-gather"))) {
    t.fp8_param_gather = true;
    assumed.push_back("fp8_param_gather: the row's parameters are gathered in fp8 (FP8_PARAMS or FP8_PARAM_GATHER, "
                      "or FSDP's float8 all-gather)");
  }
  // FP8 attention where the row's config turns it on (NeMo's FP8_DPA, Transformer Engine's FP8
  // DotProductAttention).
  if (models::low_precision_gemms(t.precision) && t.attention == models::AttentionKernel::cudnn &&
      contains(notes, "fp8_dpa=true")) {
    t.fp8_attention = true;
    assumed.emplace_back("fp8_attention: the row's attention runs cuDNN's FP8 kernel (FP8_DPA=True), its inputs "
                         "cast with per-tensor current scaling");
  }
  // The output layer's weight gradients deferred to the pipeline's drain where the row's config
  // says so (Megatron-Core's defer_embedding_wgrad_compute, NeMo's DEFER_EMBEDDING_WGRAD_COMPUTE and
  // WGRAD_DEFERRAL_LIMIT).
  if (contains(notes, "defer_embedding_wgrad_compute=true") && p.pp > 1) {
    t.defer_embedding_wgrad = true;
    if (const auto limit = note_integer(notes, "wgrad_deferral_limit=")) t.wgrad_deferral_limit = *limit;
    assumed.push_back(fmt::format("defer_embedding_wgrad: the output layer's weight gradients of {} wait for the "
                                  "pipeline's drain (the row's DEFER_EMBEDDING_WGRAD_COMPUTE, WGRAD_DEFERRAL_LIMIT={})",
                                  t.wgrad_deferral_limit > 0
                                      ? fmt::format("the first {} micro-batches", t.wgrad_deferral_limit)
                                      : std::string("every micro-batch"),
                                  t.wgrad_deferral_limit));
  }
  // FSDP2 gathering and reducing once a step without a pipeline where the row's framework config
  // says so (NeMo Automodel's enable_fsdp_optimizations); under a pipeline it does so anyway.
  if (contains(notes, "enable_fsdp_optimizations: true") && p.zero >= 3) {
    t.fsdp_sync_once = true;
    if (p.pp == 1)
      assumed.emplace_back("fsdp_sync_once: the row's enable_fsdp_optimizations keeps FSDP2's parameters gathered and "
                           "its gradients unsharded through the step's micro-batches, reduced once after the last");
  }
  // NeMo Automodel under a pipeline without enable_fsdp_optimizations: the stage's module is not
  // FSDP-wrapped, so FSDP2 reduces and reshards after every micro-batch's backward.
  if (t.framework == models::Framework::nemo_automodel && p.pp > 1 && p.zero >= 3 && !t.fsdp_sync_once) {
    t.fsdp_sync_every_micro_batch = true;
    assumed.emplace_back(
        "fsdp_sync_every_micro_batch: NeMo Automodel's MoE parallelizer wraps the inner model with FSDP2 "
        "(components/moe/parallelizer.py apply_fsdp, fully_shard on model.model) while the pipeline stage holds the "
        "outer one, so PyTorch's pipelining runs a plain backward (pipelining/stage.py backward_maybe_with_nosync) "
        "and every micro-batch's backward reduce-scatters and reshards; the patched backward that defers both to the "
        "optimizer step comes only with enable_fsdp_optimizations (pipelining/functional.py "
        "patch_stage_backward_maybe_with_nosync, from 2c236e08 of 2025-10-08), which the row's config does not set "
        "or which came after the row's figures");
  }
  // Gradient buckets of the size the row names (NeMo's BUCKET_SIZE, parameters a bucket).
  if (const auto bucket = note_integer(notes, "bucket_size=")) t.grad_bucket_params = *bucket;
  // Gradient accumulation over pipeline runs, where the row gives its steps (GA=N) and pipelines.
  if (const auto runs = note_integer(notes, " ga="); runs && *runs > 1 && p.pp > 1) {
    t.pipeline_runs = *runs;
    assumed.push_back(fmt::format("pipeline_runs={}: the row's GA={}, and its framework calls the pipeline schedule "
                                  "once per gradient-accumulation step, each run filling and draining the pipeline "
                                  "(NeMo Automodel's train loop; torchtitan's likewise)",
                                  *runs, *runs));
  }

  // The family's own split of the layers over the chunks, where it differs from the even one.
  if (p.pp > 1) {
    const std::int64_t chunks = p.pp * p.vp;
    const std::int64_t layers = s.model.layers;
    std::vector<std::int64_t> split;
    if (family.pipeline_split.value == PipelineSplit::first_chunks_larger) {
      split.assign(static_cast<std::size_t>(chunks), layers / chunks);
      for (std::int64_t c = 0; c < layers % chunks; ++c) ++split[static_cast<std::size_t>(c)];
    } else if (family.pipeline_split.value == PipelineSplit::ends_take_a_layer && (layers + 2) % chunks == 0) {
      split.assign(static_cast<std::size_t>(chunks), (layers + 2) / chunks);
      --split.front();
      --split.back();
    }
    if (!split.empty() && (layers < chunks || split != models::split_layers(layers, p.pp, p.vp)))
      p.layers_per_chunk = split;
  }

  if (unstated) {
    if (!find_violation(s)) {
      assumed.push_back(unstated->assumption);
    } else {
      assumed.push_back(fmt::format("the source interleaves its pipeline with an unstated V, and V = {} does not fit "
                                    "this layout: simulated as 1f1b (vp = 1), which overstates the bubble",
                                    p.vp));
      p.vp = 1;
      t.schedule = models::Schedule::one_f_one_b;
      p.layers_per_chunk.clear();
    }
  }
  if (!p.layers_per_chunk.empty()) assumed.emplace_back(family.pipeline_split.reason);

  // The same rules as a loaded scenario, the layout rules among them.
  if (auto violation = find_violation(s)) {
    return skip(fmt::format("layout rejected: {}: {}", violation->pointer, violation->rule));
  }

  std::vector<MeasuredStep> measured = measured_steps(n.figures, s, family.tflops_count.value);
  if (measured.empty()) return skip("no measurement (step time, tokens/s, TFLOP/s or MFU)");
  ValidationCase result{.id = row.id,
                        .family = &family,
                        .line = row.line,
                        .scenario = std::move(s),
                        .measured = measured.front(),
                        .alternatives = {measured.begin() + 1, measured.end()},
                        .assumptions = std::move(assumed)};
  return result;
}

std::string_view embedded_validation_csv() {
  const EmbeddedFile* file = find_embedded_file(embedded_validation_csv_name);
  return file == nullptr ? std::string_view{} : file->text;
}

}  // namespace clustersim::scenarios
