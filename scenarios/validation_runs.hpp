#pragma once
/// Published training runs as scenarios: each row of a validation CSV (the columns of
/// scenarios/validation/published_runs.csv) becomes a Scenario plus the step time the source
/// measured, or a skip with the reason the step model cannot express it.
///
/// Mapping rules (each assumption a row relies on is recorded in ValidationCase::assumptions):
/// - model: shape from the row; kv_heads empty -> heads; ffn_hidden empty -> 4 x hidden (the
///   Megatron default). mlp = gelu (2 matrices; also squared ReLU) when ffn_hidden = 4 x hidden,
///   else swiglu (gated MLPs use ~8/3 h, rounded: Llama 2/3). Embeddings tied for gelu models
///   (GPT-3/Megatron, BLOOM, OPT tie them), untied for swiglu ones (Llama).
///   vocab empty -> 51200 for GPT models (GPT-2 BPE padded, as in the Megatron rows), 256000
///   for Nemotron (its tokenizer); otherwise skipped.
/// - GPU: A100 80GB -> a100-80gb, H100 (SXM) -> h100-sxm, H200 -> h200-sxm, B200 -> b200, the
///   96 GB HBM2e H100 at 500 W (Grand Teton, torchtitan's benchmarks) -> h100-96gb-500w; other
///   "96GB"/HBM2e H100 variants are non-standard SKUs and skipped, as are other GPUs.
/// - network: from the system named in the gpu or notes column (Selene, Eos, Jean Zay, the Llama 3
///   RoCE fabric, "400Gb/s ... per GPU"); otherwise the GPU's DGX default (A100: 8 x 200 Gb/s HDR
///   InfiniBand per node; H100/H200: 8 x 400 Gb/s NDR), said so in the assumptions.
/// - layout: tp, pp given (else skipped); cp, vp empty -> 1, except when the notes say the source
///   interleaved with an unstated V: the family's V (2 unless it documents another; 1f1b when
///   that does not fit), flagged; dp empty -> GPUs / (tp pp cp); schedule interleaved when
///   vp > 1, else 1f1b. sp, zero_stage, recompute empty -> the source family's default
///   (validation_sources.hpp). zero_stage "3", "3 (FSDP2)", "FSDP..." -> 3; "... not resharded
///   ..." (Llama 3: optimizer state and gradients sharded) -> 2; a leading digit -> that stage.
///   micro_batch empty -> the family's default (1, or torchtitan's pp micro-batches per replica).
///   TP overlap when the notes name it (--tp-comm-overlap, "tp comm overlap on", AsyncTP) and
///   sp is on. precision: fp8 when the column says fp8 or float8, else bf16 (fp16 runs at the
///   same tensor-core peak), with the family's fp8 recipe (training.fp8_recipe) and its reason
///   among the assumptions. Fewer GPUs than a node
///   (8): one node of that many. attention kernel, gradient-reduction overlap and, for ZeRO-3 rows,
///   the overlap of their parameter gathers and reduce-scatters: the source family's default.
/// - skipped: mixture-of-experts models or ep > 1, non-standard GPUs, rows without layout, batch
///   or measurement, and layouts the scenario rules reject, the layout rules among them (their
///   pointer and message).
///
/// Measured step time: measured_step.hpp, with the family's FLOP count (validation_sources.hpp).
/// Errors (malformed CSV, missing column, a number that is not one) are ScenarioErrors named
/// "<file>:<line>".

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "scenarios/measured_step.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/validation_sources.hpp"

namespace clustersim::scenarios {

/// One row of a validation CSV, as written.
struct ValidationRow {
  std::int64_t line = 0;  // file line the row starts on
  std::string id, source, model, layers, hidden, ffn_hidden, heads, kv_heads, seq_len, vocab, gpu,
      num_gpus, precision, tp, pp, dp, cp, ep, vp, sp, zero_stage, recompute, micro_batch,
      global_batch, measured_tflops_per_gpu, measured_mfu, measured_tokens_per_sec_per_gpu,
      measured_step_time_s, notes;
};

/// A row the step model can run.
struct ValidationCase {
  std::string id{};
  const SourceFamily* family = nullptr;
  std::int64_t line = 0;
  Scenario scenario{};
  MeasuredStep measured{};                 // from the preferred basis
  std::vector<MeasuredStep> alternatives{};  // from the other figures the row gives
  std::vector<std::string> assumptions{};  // what the row leaves unsaid and we filled in
};

struct SkippedRow {
  std::string id{};
  const SourceFamily* family = nullptr;
  std::int64_t line = 0;
  std::string reason{};
};

using MappedRow = std::variant<ValidationCase, SkippedRow>;

/// The rows of a validation CSV, in file order. Throws ScenarioError("<source>:<line>") for a
/// malformed file or a header missing one of ValidationRow's columns.
std::vector<ValidationRow> read_validation_rows(std::string_view csv_text, std::string_view source_name);

/// The row as a checked Scenario with its measured step time, or why it cannot be one.
/// Throws ScenarioError("<source>:<line>") when a numeric column holds something else.
MappedRow map_validation_row(const ValidationRow& row, std::string_view source_name);

/// The embedded copy of scenarios/validation/published_runs.csv.
std::string_view embedded_validation_csv();
inline constexpr std::string_view embedded_validation_csv_name = "validation/published_runs.csv";

}  // namespace clustersim::scenarios
