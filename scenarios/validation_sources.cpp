#include "scenarios/validation_sources.hpp"

#include <array>
#include <cctype>
#include <string>

namespace clustersim::scenarios {
namespace {

using models::Framework;
using models::Recompute;

constexpr FamilyDefault<FlopCount> model_flops{
    FlopCount::model, "the source counts model FLOPs (no recomputation), measurements.md section 0"};
constexpr FamilyDefault<FlopCount> hardware_flops{
    FlopCount::hardware_full_recompute,
    "the source counts hardware FLOPs with a recomputed forward (Narayanan et al. 2021 eq. 3), "
    "measurements.md section 0"};
constexpr FamilyDefault<int> distributed_optimizer{
    1, "zero=1 assumed: Megatron's distributed optimizer, standard in Megatron-Core and NeMo"};
constexpr FamilyDefault<Recompute> no_recompute{
    Recompute::none, "recompute=none assumed: not stated; FlashAttention already recomputes the "
                     "attention scores in its backward"};
constexpr FamilyDefault<SpDefault> sp_with_tp{
    SpDefault::when_tp, "sp=on assumed when tp > 1: Megatron-Core and NeMo pair TP with sequence "
                        "parallelism"};
constexpr FamilyDefault<bool> overlapped{true, ""};
constexpr FamilyDefault<double> megatron_dropout{
    0.1, "dropout=0.1 assumed: Megatron-LM's default --hidden-dropout and --attention-dropout (the "
         "papers do not state it, the authors' SC21 launch scripts, Megatron-LM examples/sc21/CONFIG.sh, leave "
         "both unset; Korthikanti's 34 s b h counts the masks)"};
constexpr FamilyDefault<double> no_dropout{0.0, ""};
constexpr FamilyDefault<models::CrossEntropyKernel> nemo_fused_loss_yaml{
    models::CrossEntropyKernel::fused,
    "cross_entropy=fused: the submission's conf/custom.yaml sets model.cross_entropy_loss_fusion "
    "(CROSS_ENTROPY_LOSS_FUSION, default True): Megatron-Core's fused vocab-parallel cross-entropy"};
// NeMo-Framework-Launcher's per-model files at its 24.07 tag (8325688d): the Llama 3 and Nemotron-4
// 4-22B configurations set cross_entropy_loss_fusion true (from June 2024: 43844fe4, dceaaf93,
// 9352b045); the Llama 2, GPT-3 and Nemotron-4 340B files leave Megatron-Core's default, off (the
// Llama 2 files turned it on on 2024-08-02, fee1762f, after the release).
constexpr std::array<ModelChoice<models::CrossEntropyKernel>, 3> nemo_launcher_loss_by_model{{
    {"nemotron-340b",
     {models::CrossEntropyKernel::inplace,
      "cross_entropy=inplace: NeMo-Framework-Launcher 24.07's conf/training/nemotron/nemotron_340b.yaml leaves "
      "cross_entropy_loss_fusion at Megatron-Core's default, off"}},
    {"nemotron",
     {models::CrossEntropyKernel::fused,
      "cross_entropy=fused: NeMo-Framework-Launcher 24.07's conf/training/nemotron/nemotron_{4,8,15,22}b.yaml set "
      "cross_entropy_loss_fusion true"}},
    {"llama3",
     {models::CrossEntropyKernel::fused,
      "cross_entropy=fused: NeMo-Framework-Launcher 24.07's conf/training/llama/llama3_*.yaml set "
      "cross_entropy_loss_fusion true"}},
}};
constexpr FamilyDefault<double> mlperf_dropout{
    0.0, "dropout=0: the MLPerf GPT-3 175B configuration sets hidden_dropout and attention_dropout 0.0 "
         "(NeMo-Framework-Launcher conf/training/gpt3/175b_mlperf.yaml)"};
constexpr FamilyDefault<models::GradDtype> nemo_bf16_grads{
    models::GradDtype::bf16,
    "grad_dtype=bf16: NeMo's performance configurations set optim.grad_sync_dtype bf16 "
    "(NeMo-Framework-Launcher conf/training/gpt3/20b_fp8_performance.yaml, gpt3/175b_mlperf.yaml, "
    "nemotron/nemotron_340b.yaml), taken for the family"};
constexpr FamilyDefault<std::int64_t> no_seq_len{0, ""};
// NeMo's performance runs of containers 24.03 to 24.07 were launched by NeMo-Framework-Launcher,
// whose conf/config.yaml turned cuDNN's fused attention off for every job in that window.
constexpr FamilyDefault<models::AttentionKernel> nemo_launcher_flash2{
    models::AttentionKernel::flash2,
    "attention=flash2: NeMo-Framework-Launcher's launcher_scripts/conf/config.yaml set NVTE_FUSED_ATTN=0 "
    "('Disable cudnn FA until we've tested it more') from 562dcb4 (2024-02-13) to 04b8d09 (2024-08-29), the "
    "window of containers 24.03 to 24.07, so Transformer Engine ran flash-attn's FlashAttention-2; taken for "
    "the family's runs, launched as NeMo's performance runs were"};
constexpr FamilyDefault<models::Fp8Recipe> te_delayed{
    models::Fp8Recipe::delayed,
    "fp8_recipe=delayed: Transformer Engine's DelayedScaling, the only fp8 recipe of the TE 1.x releases in "
    "these NeMo containers (current and block scaling came with TE 2)"};

// NVIDIA's MLPerf Training submissions, one family a round: what their configs set. v4.1's
// Transformer Engine (1.x, container 24.09) ranks cuDNN's fused attention first on sm90, and its
// config_common.sh leaves NVTE_FUSED_ATTN=0 commented out: the framework's attention.
// NVIDIA's NeMo implementation of the MLPerf LLM benchmarks from v4.1 on, and the submitters who
// ran it (Oracle's config_common.sh names the container's copy), hold the data-parallel
// communicators to 8 CTAs in conf/nccl/custom_communicator_cta.yaml (dp and dp_cp: min_ctas 1,
// max_ctas 8), read through NCCL_CFG_PATH and nccl_communicator_config_path.
constexpr FamilyDefault<std::int64_t> mlperf_dp_ctas{
    8, "dp_max_ctas=8: the submission's conf/nccl/custom_communicator_cta.yaml (NCCL_CFG_PATH in config_common.sh, "
       "read through nccl_communicator_config_path) holds the dp and dp_cp communicators to min_ctas 1, max_ctas 8"};

constexpr SourceFamily mlperf_4_1{
    .name = "MLPerf 4.1",
    .needle = "mlcommons/training_results_v4.1",
    .tflops_count = model_flops,
    .zero = distributed_optimizer,
    .recompute = no_recompute,
    .sp = sp_with_tp,
    .overlap_grad_reduce = overlapped,
    .seq_len = no_seq_len,
    .framework = {Framework::megatron_core,
                  "framework=megatron-core: NVIDIA's submission runs NeMo on Megatron-Core with Transformer Engine"},
    .fp8_recipe = te_delayed,
    .dp_max_ctas = mlperf_dp_ctas,
    .dropout = mlperf_dropout,
    .grad_dtype = nemo_bf16_grads,
    .cross_entropy = nemo_fused_loss_yaml};
constexpr SourceFamily mlperf_5_0{
    .name = "MLPerf 5.0",
    .needle = "mlcommons/training_results_v5.0",
    .tflops_count = model_flops,
    .zero = {1, "zero=1: USE_DIST_OPTIMIZER=True (the submission's config_common.sh)"},
    .recompute = {Recompute::none, "recompute=none: the submission's configs and conf/custom.yaml set no activation "
                                   "recomputation"},
    .sp = sp_with_tp,
    .overlap_grad_reduce = {true, "OVERLAP_GRAD_REDUCE=True (the submission's config_common.sh)"},
    .seq_len = no_seq_len,
    .framework = {Framework::megatron_core,
                  "framework=megatron-core: NVIDIA's submission runs NeMo 2.0 on Megatron-Core with Transformer Engine"},
    .fp8_recipe = FamilyDefault<models::Fp8Recipe>{models::Fp8Recipe::delayed,
                                                   "fp8_recipe=delayed: conf/custom.yaml's fp8_recipe default "
                                                   "(FP8_RECIPE unset), amax history 1"},
    .cp_max_ctas = {1, "cp_max_ctas=1: the submission's conf/nccl/custom_communicator_cta.yaml (NCCL_CFG_PATH in "
                       "config_common.sh, read through nccl_communicator_config_path) holds the cp communicator to "
                       "min_ctas 1, max_ctas 1"},
    .dp_max_ctas = mlperf_dp_ctas,
    .dropout = no_dropout,
    .grad_dtype = FamilyDefault<models::GradDtype>{models::GradDtype::bf16,
                                                   "grad_dtype=bf16: the submission's pretrain.py builds its DDP and "
                                                   "optimizer configs with grad_reduce_in_fp32=False"},
    .cross_entropy = nemo_fused_loss_yaml};

/// A later release of a source whose runs keep its settings: the same defaults under its own name,
/// so that each release's error is reported apart.
constexpr SourceFamily renamed(SourceFamily family, std::string_view name, std::string_view needle) {
  family.name = name;
  family.needle = needle;
  return family;
}

/// `family` with one of its choices set: a release or a commit that changed one setting.
template <typename T>
constexpr SourceFamily with_choice(SourceFamily family, std::optional<FamilyDefault<T>> SourceFamily::*choice,
                                   FamilyDefault<T> value) {
  family.*choice = value;
  return family;
}
template <typename T>
constexpr SourceFamily with_choice(SourceFamily family, FamilyDefault<T> SourceFamily::*choice,
                                   FamilyDefault<T> value) {
  family.*choice = value;
  return family;
}

// v5.1 changed one setting: FP8_RECIPE=tensorwise.
constexpr SourceFamily mlperf_5_1 = with_choice(
    renamed(mlperf_5_0, "MLPerf 5.1", "mlcommons/training_results_v5.1"), &SourceFamily::fp8_recipe,
    {models::Fp8Recipe::current,
     "fp8_recipe=current: FP8_RECIPE=tensorwise (per-tensor current scaling, the submission's config_common.sh), "
     "attention in bf16 (NVTE_DPA_FP8_RECIPE=F16)"});

// Nebius's v5.1 runs used the v5.0 implementation (NeMo 25.01: FP8_RECIPE unset, so conf/custom.yaml's
// delayed scaling), reported apart from NVIDIA's v5.1 submission.
constexpr SourceFamily mlperf_5_1_nebius =
    renamed(mlperf_5_0, "MLPerf 5.1 Nebius", "mlcommons/training_results_v5.1 Nebius/");

// v3.1 ran the same settings on an older Transformer Engine, on a Megatron-Core from before its
// fused cross-entropy, and without the per-communicator NCCL file (its config_common.sh sets
// NCCL_MIN_NCHANNELS=4 alone).
constexpr SourceFamily mlperf_3_1 = with_choice(
    with_choice(with_choice(renamed(mlperf_4_1, "MLPerf 3.1", "mlcommons/training_results_v3.1"),
                            &SourceFamily::dp_max_ctas, {0, "NCCL's own CTA counts on the data-parallel communicators"}),
                &SourceFamily::attention,
                {models::AttentionKernel::flash2,
                 "attention=flash2: the submission's Dockerfile installs flash-attn 2.0.8 and Transformer Engine at "
                 "09ba842, whose DotProductAttention tries flash-attn before cuDNN's fused attention (TE 1.2 first "
                 "preferred cuDNN on sm90)"}),
    &SourceFamily::cross_entropy,
    {models::CrossEntropyKernel::inplace,
     "cross_entropy=inplace: the 2023 submission's Megatron-Core predates its fused cross-entropy "
     "(core/fusions/fused_cross_entropy.py, added 2024-06-14) and its conf/custom.yaml has no such key"});

// NVIDIA's GPT-3 implementation on NeMo 24.04 (MLPerf v4.0's, and the 11,616-GPU run v4.1 published
// again under the same directory name) keeps v4.1's settings (config_common.sh differs only in
// NCCL and amax-reduction variables; the same conf/nccl/custom_communicator_cta.yaml) but its
// conf/custom.yaml has no cross_entropy_loss_fusion key, and its Megatron-Core predates the fused
// cross-entropy.
constexpr SourceFamily on_nemo_24_04(SourceFamily family) {
  return with_choice(
      family, &SourceFamily::cross_entropy,
      {models::CrossEntropyKernel::inplace,
       "cross_entropy=inplace: the NeMo 24.04 implementation's conf/custom.yaml has no cross_entropy_loss_fusion "
       "key, and its Megatron-Core predates the fused cross-entropy (core/fusions/fused_cross_entropy.py, added "
       "2024-06-14)"});
}
constexpr SourceFamily mlperf_4_0 = on_nemo_24_04(renamed(mlperf_4_1, "MLPerf 4.0", "mlcommons/training_results_v4.0"));
constexpr SourceFamily mlperf_4_1_nemo_24_04 = on_nemo_24_04(
    renamed(mlperf_4_1, "MLPerf 4.1", "mlcommons/training_results_v4.1 NVIDIA/results/eos-dfw_n1452_ngc24.04_nemo"));

// torchtitan's benchmarks: FSDP2 with its selective op-level checkpointing, its defaults unless a
// row says otherwise.
constexpr SourceFamily torchtitan{
    .name = "torchtitan",
    .needle = "torchtitan",
    .tflops_count = model_flops,
    .zero = {3, "zero=3: FSDP2"},
    .recompute = {Recompute::selective,
                  "recompute=selective: torchtitan's llama3 configs default to "
                  "selective (op) activation checkpointing"},
    .sp = {SpDefault::when_tp, "sp=on when tp > 1: torchtitan's TP plan shards "
                               "norms and dropout by sequence"},
    .overlap_grad_reduce = overlapped,
    .seq_len = {8192, "seq_len=8192: torchtitan's llama3 configs default (the row "
                      "does not restate it)"},
    .micro_batch = {MicroBatchDefault::pp_micro_batches,
                    "micro_batch = global_batch / (dp pp): torchtitan splits a replica's batch into "
                    "pipeline_parallel_microbatches, by default the pp degree "
                    "(torchtitan/parallelisms/pipelining_utils.py @9dec370)"},
    .unstated_vp = {UnstatedVp::two, "vp=2: torchtitan's looped schedules (Interleaved1F1B) run 2 stages per rank "
                       "when no split points are given (torchtitan/parallelisms/pipelining_utils.py "
                       "@9dec370)"},
    .framework = {Framework::torchtitan,
                   "framework=torchtitan: the source's own"},
    .fp8_recipe = FamilyDefault<models::Fp8Recipe>{models::Fp8Recipe::current,
                   "fp8_recipe=current: torchao Float8Linear on the linear layers, dynamic tensorwise "
                   "scaling unless a recipe is named (torchtitan @9dec370, of the Dec 2024 runs, also "
                   "leaves the output projection in bf16, simulated at the fp8 rate); FSDP gathers "
                   "bf16 parameters unless the row names the float8 all-gather "
                   "(enable_fsdp_float8_all_gather, training.fp8_param_gather)"},
    .dropout = no_dropout,
    .repeat_kv = FamilyDefault<bool>{true,
                                     "repeat_kv=true: torchtitan's Llama at the rows' commits (9dec370, 820504e) copies "
                                     "k and v to the query heads before scaled_dot_product_attention (repeat_kv in "
                                     "models/llama/model.py and models/llama3/model.py), which context_parallel's "
                                     "all-gather and ring then move; SDPA takes the groups since ff0829c10 "
                                     "(2026-01-27, 'GQA without kv repeats')"}};

// The December 2024 runs (torchtitan 9dec370) compiled the model but not the loss: train.py kept
// it eager ("compiling loss function causes CUDA errors, turning off for now"); the loss has been
// compiled with the model since 2025-04-02 (bbb1b616e).
constexpr SourceFamily torchtitan_before_compiled_loss = with_choice(
    renamed(torchtitan, torchtitan.name, "torchtitan 9dec370"), &SourceFamily::cross_entropy,
    {models::CrossEntropyKernel::eager,
     "cross_entropy=eager: torchtitan @9dec370 leaves the loss out of torch.compile (train.py: 'compiling loss "
     "function causes CUDA errors, turning off for now'); it is compiled with the model since 2025-04-02 "
     "(bbb1b616e)"});

constexpr std::array families{
    SourceFamily{
        .name = "Narayanan 2021",
        .needle = "Narayanan",
        .tflops_count = hardware_flops,
        .zero = {0, "zero=0 assumed: Megatron-LM in 2021 all-reduced gradients (the distributed "
                    "optimizer came in 2022)"},
        .recompute = {Recompute::full, "recompute=full assumed: the paper's runs and its eq. 3 "
                                       "FLOP count use activation recomputation"},
        .sp = {SpDefault::off, "sp=off: sequence parallelism was introduced in 2022"},
        .overlap_grad_reduce = {false, "gradient all-reduce after the backward pass: Megatron-LM "
                                       "2021's default local DDP did not overlap it"},
        .seq_len = no_seq_len,
        .framework = {Framework::megatron_lm,
                       "framework=megatron-lm: Megatron-LM as of 2021 (the paper's own code, before "
                       "Megatron-Core); its ZeRO-3 rows ran DeepSpeed (sharding below)"},
        .zero3_overlap = {false, "ZeRO-3 gathers and reduce-scatters block the compute: DeepSpeed "
                                 "ZeRO-3 as run in 2021, whose poor scaling Narayanan et al. 2021 "
                                 "section 5.2 attributes to its communication. DeepSpeed v0.3's own "
                                 "defaults (overlap_comm on for stage 3, prefetched gathers) predict "
                                 "these rows 24-39 % too fast; what slowed them is not modelled"},
        .sharding = FamilyDefault<models::ShardingFramework>{models::ShardingFramework::deepspeed_zero3_2021,
                     "sharding=deepspeed_zero3_2021: the paper compares against DeepSpeed ZeRO-3 as "
                     "of 2021"},
        .dropout = megatron_dropout,
        .grad_dtype = FamilyDefault<models::GradDtype>{models::GradDtype::bf16,
                       "grad_dtype=16-bit: the runs trained in 16-bit mixed precision, and Megatron-LM reduces "
                       "16-bit gradients unless --accumulate-allreduce-grads-in-fp32 is given (megatron/arguments.py "
                       "forces fp32 for bf16 only)"},
        .grad_accumulation = FamilyDefault<models::GradAccumulation>{
            models::GradAccumulation::autograd,
            "grad_accumulation=autograd: Megatron-LM of 2021 left each micro-batch's 16-bit gradient to autograd, "
            "which adds it into .grad (megatron/model/distributed.py at a8d172b, 2021-04: contiguous buffers off by "
            "default); gradient accumulation fusion came on 2022-02-13 (commit 83b1e42), after the paper's runs"}},
    SourceFamily{
        .name = "Korthikanti 2022",
        .needle = "Korthikanti",
        .tflops_count = model_flops,
        .zero = {0, "zero=0 assumed: the runs use data-parallel size 1"},
        .recompute = no_recompute,
        .sp = {SpDefault::off, "sp=off assumed"},
        .overlap_grad_reduce = overlapped,
        .seq_len = no_seq_len,
        .framework = {Framework::megatron_lm,
                       "framework=megatron-lm: Megatron-LM as of 2022, the paper's own code"},
        .dropout = megatron_dropout},
    SourceFamily{
        .name = "Megatron-Core 2024",
        .needle = "Megatron-Core",
        .tflops_count = model_flops,
        .zero = {1, "zero=1: --overlap-param-gather implies the distributed optimizer"},
        .recompute = no_recompute,
        .sp = {SpDefault::when_tp, "sp=on when tp > 1: --tp-comm-overlap implies sequence "
                                   "parallelism"},
        .overlap_grad_reduce = overlapped,
        .seq_len = no_seq_len,
        .micro_batch = {MicroBatchDefault::one_sequence,
                        "micro_batch = 1 (not given): the repository's GPT-3 example at the table's commit "
                        "(examples/gpt3/train_gpt3_175b_distributed.sh at f2e5db402c, --micro-batch-size 1)"},
        .unstated_vp = {UnstatedVp::one_layer_per_chunk,
                        "--num-layers-per-virtual-pipeline-stage 1, the one value that divides the layers of a stage "
                        "of every pipelined row (42, 23, 16, 12 and 7; megatron/training/arguments.py at f2e5db402c "
                        "requires it to), as one launch script for the table would set it; it also fits the table's "
                        "MFU, which rises from 42 % at PP 2 to 47-48 % at PP 8 and 16, where 1F1B's bubble at "
                        "4 x PP micro-batches would grow from 12 to 23 % of the step"},
        .framework = {Framework::megatron_core,
                       "framework=megatron-core: Megatron-LM on Megatron-Core with Transformer Engine, the source's own"},
        .dropout = {0.1, "dropout=0.1 assumed: Megatron-LM's default --hidden-dropout and "
                         "--attention-dropout (the GPT runs do not state it)"},
        .grad_dtype = FamilyDefault<models::GradDtype>{
            models::GradDtype::bf16,
            "grad_dtype=16-bit: the precision is not stated; the repository's GPT-3 example at the figures' commit "
            "(examples/gpt3/train_gpt3_175b_distributed.sh at f2e5db402c) trains with --fp16, and Megatron-LM "
            "accumulates and reduces fp16 gradients in fp16 (megatron/training/arguments.py forces fp32 for bf16 "
            "only). fp32 gradients at micro-batch 1 could not reach the 32B row's measured step: its "
            "distributed optimizer's reduce-scatter and all-gather take about 0.47 s on each GPU's 400 Gb/s NIC, of "
            "which one micro-batch's forward and backward hide at most a quarter of the compute"}},
    SourceFamily{
        .name = "Llama 3 2024",
        .needle = "Llama 3 Herd",
        .tflops_count = model_flops,
        .zero = {2, "zero=2: FSDP shards optimizer state and gradients and does not reshard "
                    "parameters after the forward"},
        .recompute = {Recompute::none, "recompute=none: the paper's 8K-sequence pre-training ran "
                                       "without activation checkpointing"},
        .sp = {SpDefault::when_tp, "sp=on assumed when tp > 1: not stated; Megatron-style TP "
                                   "with sequence parallelism"},
        .overlap_grad_reduce = overlapped,
        .seq_len = no_seq_len,
        .unstated_vp = {UnstatedVp::one_place_per_chunk, "the paper's section 3.3.2 takes one Transformer layer from the "
                           "first and one from the last stage, so that 'the first model chunk on the first stage has "
                           "only the embedding, and the last model chunk on the last stage has only output projection "
                           "and loss calculation': each chunk one layer place"},
        .framework = {Framework::megatron_core,
                       "framework=megatron-core assumed: Meta's training stack is not public; the paper "
                       "describes Megatron-style 4D parallelism with fused kernels, taken as Megatron-Core's "
                       "parameter set"},
        .attention = FamilyDefault<models::AttentionKernel>{
            models::AttentionKernel::flash2,
            "attention=flash2 assumed: not stated; the runs masked attention by document (section 3.2), which in "
            "2024 PyTorch stacks ran through flash-attn's variable-length FlashAttention-2 (Meta's xformers "
            "dispatches its block-diagonal causal masks to it on H100; FlashAttention-3 came out in July 2024, "
            "after the 405B pre-training). With cuDNN's rate instead the 128K-token run, mostly attention, is "
            "23 % too fast and the 8K runs 1 % faster"},
        .cp_comm = FamilyDefault<models::CpComm>{
            models::CpComm::all_gather,
            "cp_comm=all_gather: the paper's section 3.3.2 all-gathers K and V before the attention, 'the "
            "all-gather communication latency is exposed in the critical path' (Transformer Engine's all_gather "
            "context parallelism, exposed, follows it)"},
        .dropout = no_dropout,
        .pipeline_split = {PipelineSplit::ends_take_a_layer,
                           "layers_per_chunk: 0, 1, ..., 1, 0: the embedding alone in the first chunk and the output "
                           "layer and loss alone in the last (the paper's section 3.3.2)"}},
    SourceFamily{.name = "NeMo long-seq B200 2025",
                 .needle = "LLAMA3-8B (FP8) - B200",
                 .tflops_count = model_flops,
                 .zero = distributed_optimizer,
                 .recompute = no_recompute,
                 .sp = sp_with_tp,
                 .overlap_grad_reduce = overlapped,
                 .seq_len = no_seq_len,
        .framework = {Framework::megatron_core,
                       "framework=megatron-core: NeMo 2.0 runs Megatron-Core with Transformer Engine"},
        .fp8_recipe = FamilyDefault<models::Fp8Recipe>{models::Fp8Recipe::current,
                       "fp8_recipe=current: NeMo 25.04's performance summary states per-tensor FP8 with scaling factors "
                       "computed in the current step (docs.nvidia.com/nemo-framework, performance summary, NeMo 25.04), "
                       "taken for the same container's long-sequence runs"},
        .dropout = no_dropout,
        .cross_entropy = FamilyDefault<models::CrossEntropyKernel>{
            models::CrossEntropyKernel::fused,
            "cross_entropy=fused: NeMo 2.0's GPTConfig, which its Llama 3 configuration inherits, sets "
            "cross_entropy_loss_fusion True (nemo/collections/llm/gpt/model/base.py, since 2024-09-05)"}},
    SourceFamily{.name = "NeMo long-seq 2024",
                 .needle = "performance_long_sequence",
                 .tflops_count = model_flops,
                 .zero = distributed_optimizer,
                 .recompute = no_recompute,
                 .sp = sp_with_tp,
                 .overlap_grad_reduce = overlapped,
                 .seq_len = no_seq_len,
        .framework = {Framework::megatron_core,
                       "framework=megatron-core: NeMo runs Megatron-Core with Transformer Engine"},
        .attention = nemo_launcher_flash2,
        .fp8_recipe = te_delayed,
        .dropout = no_dropout},
    SourceFamily{.name = "NeMo 24.07",
                 .needle = "performance_summary.md",
                 .tflops_count = model_flops,
                 .zero = distributed_optimizer,
                 .recompute = no_recompute,
                 .sp = sp_with_tp,
                 .overlap_grad_reduce = overlapped,
                 .seq_len = no_seq_len,
        .framework = {Framework::megatron_core,
                       "framework=megatron-core: NeMo runs Megatron-Core with Transformer Engine"},
        .attention = nemo_launcher_flash2,
        .fp8_recipe = te_delayed,
        .dropout = {0.1, "dropout=0.1: NeMo's GPT-3 configurations set hidden_dropout 0.1 and keep "
                         "attention_dropout's default 0.1 (NeMo-Framework-Launcher "
                         "conf/training/gpt3/20b_fp8_performance.yaml)"},
        .grad_dtype = nemo_bf16_grads,
        .cross_entropy_by_model = nemo_launcher_loss_by_model},
    mlperf_5_0,
    mlperf_5_1_nebius,  // before mlperf_5_1, whose needle also matches its rows
    mlperf_5_1,
    mlperf_4_1_nemo_24_04,  // before mlperf_4_1, whose needle also matches its row
    mlperf_4_1,
    mlperf_4_0,
    mlperf_3_1,
    SourceFamily{.name = "BLOOM 2022",
                 .needle = "bigscience",
                 .tflops_count = {FlopCount::hardware_full_recompute,
                                  "the BLOOM README counts hardware TFLOPs with a 4 x 2 "
                                  "coefficient (recompute included), measurements.md section 0"},
                 .zero = {1, "zero=1: BF16Optimizer shards optimizer state like ZeRO-1"},
                 .recompute = {Recompute::full, "recompute=full assumed, as its FLOP count"},
                 .sp = {SpDefault::off, "sp=off: Megatron-DeepSpeed 2022 had none"},
                 .overlap_grad_reduce = {false, "gradient reduction after the pipeline's last backward: "
                                                "DeepSpeed's PipelineEngine ends each step's schedule in "
                                                "ReduceTiedGrads, ReduceGrads and OptimizerStep "
                                                "(runtime/pipe/schedule.py TrainSchedule, engine.py "
                                                "_exec_reduce_grads, v0.7)"},
                 .seq_len = no_seq_len,
                 .framework = {Framework::megatron_deepspeed,
                                "framework=megatron-deepspeed: BigScience's Megatron-DeepSpeed fork"},
                 .dropout = {0.1, "dropout=0.1: Megatron-LM's default --attention-dropout and --hidden-dropout, "
                                  "which BLOOM inherited (train/tr11-176B-ml/README.md)"},
                 .alibi = {true, "alibi: BLOOM's attention biases (--position-embedding-type alibi, "
                                 "train/tr11-176B-ml/README.md 'Positional Encoding' and tr11-176B-ml.slurm), taken "
                                 "for the February search, which tried BLOOM's configuration at other shapes"}},
    SourceFamily{.name = "OPT 2022",
                 .needle = "OPT paper",
                 .tflops_count = model_flops,
                 .zero = {3, "zero=3: FSDP"},
                 .recompute = no_recompute,
                 .sp = sp_with_tp,
                 .overlap_grad_reduce = overlapped,
                 .seq_len = no_seq_len,
        .framework = {Framework::megatron_lm,
                       "framework=megatron-lm: metaseq runs Megatron-LM's model-parallel layers (with "
                       "FairScale FSDP: sharding below)"},
        .sharding = FamilyDefault<models::ShardingFramework>{models::ShardingFramework::fsdp1,
            "sharding=fsdp1: FairScale FSDP, the design PyTorch FSDP1 took up"},
        .dropout = {0.1, "dropout=0.1: the OPT paper (Zhang et al. 2022, section 2.2) trains with "
                         "dropout 0.1"}},
    torchtitan_before_compiled_loss,
    torchtitan,
    SourceFamily{.name = "NeMo Automodel 2025",
                 .needle = "Automodel",
                 .tflops_count = model_flops,
                 .zero = {3, "zero=3: FSDP2"},
                 .recompute = no_recompute,
                 .sp = sp_with_tp,
                 .overlap_grad_reduce = overlapped,
                 .seq_len = no_seq_len,
        .framework = {Framework::nemo_automodel, "framework=nemo-automodel: the source's own"},
        .dropout = no_dropout,
        .fp32_loss = FamilyDefault<bool>{false, "fp32_loss=false: every benchmark config of the rows' commit sets "
                                                "loss_fn MaskedCrossEntropy with fp32_upcast: false "
                                                "(NVIDIA-NeMo/Automodel examples/benchmark/configs/*.yaml @037e04a)"},
        .rope_fusion = FamilyDefault<bool>{false,
                                           "rope_fusion=false: at the table's commit (NVIDIA-NeMo/Automodel 89e3a9fd, "
                                           "2025-10-06) the MoE models rotate q and k op by op in PyTorch "
                                           "(components/moe/rope_utils.py apply_rotary_emb for DeepSeek-V3 and Kimi K2, "
                                           "components/models/gpt_oss/layers.py _apply_rotary_emb for GPT-OSS and "
                                           "Qwen3); Transformer Engine's fused RoPE came to them with 3e239047 "
                                           "(2026-01-08, 'up to 10% speedup')"},
        .pipeline_split = {PipelineSplit::first_chunks_larger,
                           "layers_per_chunk: Automodel's split, the first layers mod chunks model parts a layer "
                           "more, the embedding on the first and the output layer on the last "
                           "(nemo_automodel/components/distributed/pipelining/functional.py, "
                           "generate_hf_model_fqn_per_model_part, at 89e3a9fdd, the commit that added the rows' "
                           "performance summary, whose ceil(layers / layers_per_stage) + 1 model parts give the "
                           "rows' VP)"}},
};

constexpr SourceFamily other{.name = "other",
                             .needle = "",
                             .tflops_count = {FlopCount::model,
                                              "unknown publication: model FLOPs assumed"},
                             .zero = distributed_optimizer,
                             .recompute = no_recompute,
                             .sp = sp_with_tp,
                             .overlap_grad_reduce = overlapped,
                             .seq_len = no_seq_len,
                             .framework = {Framework::megatron_core,
                                           "framework=megatron-core assumed: unknown publication"}};

// Whether `text`, read without case, contains `lowercase_word`.
bool has(std::string_view text, std::string_view lowercase_word) {
  std::string lowered(text);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lowered.find(lowercase_word) != std::string::npos;
}

}  // namespace

FamilyDefault<double> dropout_for_model(const SourceFamily& family, std::string_view model_name, std::string_view notes) {
  if (has(model_name, "llama")) {
    return {0.0, "dropout=0: Llama models train without dropout (Meta's reference model code has no "
                 "dropout layers)"};
  }
  if (has(model_name, "nemotron")) {
    return {0.0, "dropout=0: NeMo's Nemotron-4 340B configuration sets hidden, attention and FFN "
                 "dropout 0.0 (NeMo-Framework-Launcher conf/training/nemotron/nemotron_340b.yaml), "
                 "taken for the family"};
  }
  if (has(notes, "mlcommons") || has(notes, "mlperf")) return mlperf_dropout;
  return family.dropout;
}

std::optional<FamilyDefault<models::CrossEntropyKernel>> cross_entropy_for_model(const SourceFamily& family,
                                                                                std::string_view model_name) {
  for (const auto& entry : family.cross_entropy_by_model) {
    if (has(model_name, entry.model_needle)) return entry.choice;
  }
  return family.cross_entropy;
}

const SourceFamily& source_family(std::string_view source) {
  for (const auto& family : families) {
    if (source.find(family.needle) != std::string_view::npos) return family;
  }
  return other;
}

}  // namespace clustersim::scenarios
