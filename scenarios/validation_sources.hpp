#pragma once
/// The publications behind the validation runs (scenarios/validation/published_runs.csv), grouped
/// into source families, and what each family leaves unsaid: how it counts the FLOPs behind a
/// "TFLOP/s per GPU" figure, and the settings it used when a row leaves a column empty.
/// Every default carries the reason it was chosen, and the validation report prints it.
/// Limitations: a family is recognised by a substring of the row's `source` column; rows from an
/// unknown publication fall into "other", which uses model FLOPs and Megatron-style defaults.
/// Source: shared reference measurements.md section 0 (FLOP conventions per publication), and the
/// papers and READMEs named in each row.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "models/spec/framework.hpp"

namespace clustersim::scenarios {

/// What a published "TFLOP/s per GPU" counts.
enum class FlopCount {
  model,                    // model FLOPs, recomputation not counted (MFU-style)
  hardware_full_recompute,  // + a recomputed forward of every layer: 96 B s l h^2 (1 + s/6h + V/16lh)
};

/// A setting a family used when its rows do not state it, and why we think so.
template <class T>
struct FamilyDefault {
  T value{};
  std::string_view reason{};
};

/// A family's setting for the rows of one model, matched by a lowercase needle in the model's name.
template <class T>
struct ModelChoice {
  std::string_view model_needle;
  FamilyDefault<T> choice;
};

/// Sequence parallelism when a row leaves `sp` empty.
enum class SpDefault { off, when_tp };  // when_tp: on whenever tp > 1

/// The V simulated for a row whose notes say its pipeline was interleaved but whose vp is empty.
enum class UnstatedVp {
  two,                     // 2: the smallest, or the framework's default where it is 2
  one_place_per_chunk,     // (layers + 2) / pp: each chunk one layer place, the embedding's and the
                           // loss's included (the family's ends_take_a_layer split)
  one_layer_per_chunk,     // layers / pp: each chunk one layer (Megatron-LM's
                           // --num-layers-per-virtual-pipeline-stage 1)
};

/// How the family's framework splits a pipeline's layers over its model chunks.
enum class PipelineSplit {
  even,                 // clustersim's even split, the smaller chunks at the ends (models::split_layers)
  first_chunks_larger,  // the first layers mod chunks chunks take a layer more, in model order
  ends_take_a_layer,    // (layers + 2) / chunks a chunk, the first and the last one fewer: the
                        // embedding and the loss each take a layer's place
};

/// The micro-batch when a row leaves `micro_batch` empty.
enum class MicroBatchDefault {
  one_sequence,    // 1
  pp_micro_batches,  // a replica's batch split into pp micro-batches: global_batch / (dp pp)
};

struct SourceFamily {
  std::string_view name{};    // short label used in reports: "Narayanan 2021"
  std::string_view needle{};  // substring of the `source` column that identifies the family
  FamilyDefault<FlopCount> tflops_count{};
  FamilyDefault<int> zero{};
  FamilyDefault<models::Recompute> recompute{};
  FamilyDefault<SpDefault> sp{};
  FamilyDefault<bool> overlap_grad_reduce{};
  FamilyDefault<std::int64_t> seq_len{};  // 0: none; a row without seq_len is skipped
  FamilyDefault<MicroBatchDefault> micro_batch{MicroBatchDefault::one_sequence, "micro_batch = 1 (not given)"};
  // The V of a row whose notes say its pipeline was interleaved but whose vp is empty: the
  // framework's default, else the smallest the layout allows.
  FamilyDefault<UnstatedVp> unstated_vp{
      UnstatedVp::two, "the source interleaves its pipeline with an unstated V: simulated with the smallest, V = 2, "
                       "which may overstate the bubble"};
  // The framework that ran the family's runs: its parameter set (models/spec/framework.hpp) gives
  // the attention kernel, the elementwise kernels (fused anyway when a row's notes say
  // torch.compile was on), the gradient dtype and the ZeRO-3 sharding, unless the family
  // overrides them below.
  FamilyDefault<models::Framework> framework{models::Framework::megatron_core,
                                             "framework=megatron-core assumed: not stated"};
  // ZeRO-3 rows: whether the per-pass parameter all-gathers and gradient reduce-scatters overlap
  // the compute (sets overlap_param_gather and overlap_grad_reduce; replaces the family's
  // overlap_grad_reduce, which describes its non-ZeRO-3 rows).
  FamilyDefault<bool> zero3_overlap{true, ""};
  // The attention kernel, where not the one the framework's parameter set picks: a launcher or a
  // release that turned a backend off or ranked the backends otherwise. A row whose notes name
  // NVTE_FUSED_ATTN=1 or =0 (Transformer Engine's switch for cuDNN's fused attention) says its own.
  std::optional<FamilyDefault<models::AttentionKernel>> attention{};
  // fp8 rows: a recipe other than the framework's, or the framework's with what it does that the
  // scenario does not express.
  std::optional<FamilyDefault<models::Fp8Recipe>> fp8_recipe{};
  // Context-parallel rows: a key/value exchange other than the framework's.
  std::optional<FamilyDefault<models::CpComm>> cp_comm{};
  // Context-parallel rows: the CTAs the family's runs allowed the CP communicator (its NCCL
  // configuration's max_ctas); 0: not limited.
  FamilyDefault<std::int64_t> cp_max_ctas{0, ""};
  // The same for the data-parallel communicators (dp_cp and dp); 0: not limited.
  FamilyDefault<std::int64_t> dp_max_ctas{0, ""};
  // ZeRO-3 rows: a sharding other than the framework's.
  std::optional<FamilyDefault<models::ShardingFramework>> sharding{};
  // Dropout of the family's GPT-style models; Llama and Nemotron rows train without
  // (dropout_for_model), rows that name an MLPerf configuration take MLPerf's.
  FamilyDefault<double> dropout{0.1, "dropout=0.1 assumed: Megatron-LM's default --hidden-dropout and "
                                     "--attention-dropout"};
  // Whether the family's models bias their attention scores with ALiBi (model.alibi).
  FamilyDefault<bool> alibi{false, ""};
  // ZeRO 0-2 rows: a gradient buffer dtype other than the framework's.
  std::optional<FamilyDefault<models::GradDtype>> grad_dtype{};
  // ZeRO 0-2 rows: a gradient accumulation other than the framework's (an older release's).
  std::optional<FamilyDefault<models::GradAccumulation>> grad_accumulation{};
  // Whether the loss upcasts the logits to fp32 (training.fp32_loss), where not as the framework's.
  std::optional<FamilyDefault<bool>> fp32_loss{};
  // Whether RoPE ran as a fused kernel (training.rope_fusion), where the family's runs predate the
  // framework's current default.
  std::optional<FamilyDefault<bool>> rope_fusion{};
  // Whether the model code copied the key and value heads to the query heads before the attention
  // (training.repeat_kv, off unless a family says so).
  std::optional<FamilyDefault<bool>> repeat_kv{};
  // The loss's kernel (training.cross_entropy), where not what the framework's current release
  // runs with the row's elementwise kernels.
  std::optional<FamilyDefault<models::CrossEntropyKernel>> cross_entropy{};
  // The loss's kernel of the rows whose model's own configuration sets it apart from the family's
  // (a launcher's file per model): the first entry whose needle the model's name contains
  // (lowercase) wins.
  std::span<const ModelChoice<models::CrossEntropyKernel>> cross_entropy_by_model{};
  // Pipelined rows: how the framework split the layers over the model chunks.
  FamilyDefault<PipelineSplit> pipeline_split{PipelineSplit::even, ""};
};

/// The dropout of a row's model: none for Llama and Nemotron models, MLPerf's for a row whose notes
/// name an MLPerf configuration, else the family's.
FamilyDefault<double> dropout_for_model(const SourceFamily& family, std::string_view model, std::string_view notes);

/// The loss's kernel of a row: its model's entry in the family's cross_entropy_by_model, else the
/// family's, else none (the framework's parameter set decides).
std::optional<FamilyDefault<models::CrossEntropyKernel>> cross_entropy_for_model(const SourceFamily& family,
                                                                                std::string_view model_name);

/// The family whose needle occurs first in the table's order in `source`; "other" if none does.
const SourceFamily& source_family(std::string_view source);

}  // namespace clustersim::scenarios
