#include "models/compute/compute_profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::models {
namespace {

// Shared by every bundled profile.
constexpr std::string_view kMamf =
    "measurements.md 2.1: MAMF (torch.matmul, best of a shape sweep, stas00/ml-engineering)";
constexpr std::string_view kFlashAttention2 =
    "measurements.md 2.2: FlashAttention-2, head dim 128, batch 2, seq 8192 (Azure "
    "AI-benchmarking-guide), TF/s over bf16 dense peak";
constexpr std::string_view kStream = "measurements.md 2.2: STREAM copy (Azure AI-benchmarking-guide) over datasheet HBM bandwidth";

/// The GEMM constants of the bundled profiles (calibration/profiles/<gpu>.json), as
/// calibration/make_profiles fits them: e_max per precision and k_half by relative least squares
/// over cuBLASLt GEMMs measured under sustained load, from one wave of output tiles up. The bundled
/// profile is what every command uses; these built-in copies serve a GPU run without one and are
/// checked against it (tests/calibration/calibrate_cli_test.cpp).
struct GemmFitCopy {
  double e_max_bf16, e_max_fp8, k_half;
  std::string_view from;
};
constexpr GemmFitCopy kA100Fit{0.8610616983499005, 0.0, 562.6892113211567,
                               "measurements.md 2.2 Azure ND A100 v4 cuBLASLt FP16 (the bf16 rate), 10,000 warm-up "
                               "iterations"};
constexpr GemmFitCopy kH100Fit{0.7667049271583631, 0.6798893874275092, 265.6287557645215,
                               "calibration/measured/h200-2026-11-30 (cuBLASLt's first heuristic algorithm, the "
                               "H100's die) and measurements.md 2.2 Azure ND H100 v5 cuBLASLt FP8"};
constexpr GemmFitCopy kH200Fit{0.7640744239387373, 0.6762876661296383, 250.05197738417812,
                               "calibration/measured/h200-2026-11-30 (cuBLASLt's first heuristic algorithm) and "
                               "measurements.md 2.2 Azure ND H200 v5 cuBLASLt FP8"};

/// Blackwell's FP8 GEMMs, fitted to the GB200's cuBLASLt rows by shape (Azure ND GB200 v6,
/// calibration/published/gb200_compute.jsonl): the B200 is the same die, and its profile takes
/// those rates as measured (so the same TF/s over its lower peak). Under sustained load the two
/// boards run at nearly one pace, not at the ratio of their peaks (4,500 against 4,900 TF/s, the
/// boost clocks their 1000 W and 1200 W limits allow): on the same job, MLPerf Training v5.0's
/// Llama 2 70B LoRA in NVIDIA's NGC 25.04 configuration on 8 DGX B200 and on 8 GB200
/// (mlcommons/training_results_v5.0 NVIDIA/results/nyx_n1_ngc25.04_nemo and
/// tyche_ngpu8_ngc25.04_nemo, llama2_70b_lora, 53 and 54 logged steps), the B200's median step
/// took 1.512 s against 1.486 s, 0.98 of the GB200's pace (0.97 in the forward-only evaluation).
/// No Blackwell bf16 GEMM is published by shape: bf16 keeps the best shape of MAMF's sweep, an
/// upper bound.
constexpr GemmFitCopy kB200Fp8Fit{0.0, 0.6703443467013686, 202.32222173075158,
                                  "calibration/published/gb200_compute.jsonl (Azure ND GB200 v6 cuBLASLt FP8 by shape, "
                                  "the B200's die)"};
constexpr GemmFitCopy kGb200Fp8Fit{0.0, 0.6156223592155425, 202.32222173075158,
                                   "calibration/published/gb200_compute.jsonl (Azure ND GB200 v6 cuBLASLt FP8 by shape)"};

void set_gemm_fit(ComputeProfile& p, const GemmFitCopy& fit) {
  const std::string how = fmt::format("fit (calibration/profiles/{}.json): {}", p.gpu, fit.from);
  if (fit.e_max_bf16 > 0.0) p.gemm_max_efficiency_bf16 = {fit.e_max_bf16, how};
  if (fit.e_max_fp8 > 0.0) p.gemm_max_efficiency_fp8 = {fit.e_max_fp8, how};
  p.k_half = {fit.k_half, how};
}

/// Attention on Hopper, by kernel, causal bf16, head dim 128, each fitted by calibrate to calls of
/// several sizes and copied from the bundled profiles as the GEMM fits are:
/// - cuDNN fused attention (as Transformer Engine runs it) and PyTorch's scaled_dot_product_attention
///   flash backend, measured on one H200 (calibration/measured/h200-2026-11-30/attention_{cudnn,
///   flash2}.jsonl, 90-1924 GFLOP a call);
/// - FlashAttention-2 as the flash-attn package builds it, which Transformer Engine and Megatron-LM
///   call, and FlashAttention-3: the paper's H100 figures (calibration/published/
///   h100_attention_flash{2,3}.jsonl, Shah et al. 2024), kernel-timed at the clock of a short run.
/// The same shape on both sources tells the builds apart: cuDNN's forward at batch 2 x 8,192 tokens
/// x 16 heads is 537 TF/s on the H200 and 529 in the paper, while PyTorch's FlashAttention-2 gives
/// 296 against the package's 333.
constexpr double kHopperCudnnAttention = 0.536972024946867;
constexpr double kHopperFlash2Attention = 0.3387544449141928;
constexpr double kHopperSdpaFlashAttention = 0.29380178194274653;
constexpr double kHopperFlash3Attention = 0.6153852385024169;

void set_attention_fits(ComputeProfile& p) {
  const auto measured = [&](std::string_view kernel, std::string_view file) {
    return fmt::format(
        "fit (calibration/profiles/{}.json): {}, causal bf16, head dim 128, on one H200 "
        "(calibration/measured/h200-2026-11-30/{}); the H100 has the same SMs and clocks",
        p.gpu, kernel, file);
  };
  const auto published = [&](std::string_view kernel, std::string_view file) {
    return fmt::format("fit (calibration/profiles/{}.json): {}, causal bf16, head dim 128, H100 SXM5 "
                       "(calibration/published/{}: Shah et al. 2024)",
                       p.gpu, kernel, file);
  };
  p.attention_cudnn_efficiency = {kHopperCudnnAttention, measured("cuDNN fused attention", "attention_cudnn.jsonl")};
  p.attention_sdpa_flash_efficiency = {
      kHopperSdpaFlashAttention,
      measured("PyTorch scaled_dot_product_attention's flash backend", "attention_flash2.jsonl")};
  p.attention_efficiency = {kHopperFlash2Attention,
                            published("FlashAttention-2 (the flash-attn package)", "h100_attention_flash2.jsonl")};
  p.attention_flash3_efficiency = {kHopperFlash3Attention,
                                   published("FlashAttention-3", "h100_attention_flash3.jsonl")};
}

/// NVFP4 GEMMs on Blackwell, from Transformer Engine's GEMM profiling guide
/// (NVIDIA/TransformerEngine docs/examples/gemm_profiling/gemm_profiling.rst, "B300 SXM6 AC",
/// --pre-quantize: the GEMM kernels alone as TE dispatches them, inputs quantised beforehand): the
/// twelve GEMMs of a layer of hidden 4096 and MLP 16384 at 15,872 tokens (fprop, dgrad and wgrad;
/// M x K x N as the guide lists them) take 3.764 ms a layer, 5.09 PFLOP/s: 0.38 of the HGX B300's
/// 13,500 TF/s dense FP4 peak (108 PFLOP/s over 8 GPUs, NVIDIA's HGX B300 figures) where its BF16
/// and MXFP8 GEMMs in the same run reach 0.65 and 0.60 of theirs. Kernels that far below their
/// tensor-core peak are held by what every Blackwell die shares (the block scales' handling, each
/// tile's prologue and epilogue), so each board takes the guide's TF/s over its own FP4 peak, as
/// the B200 takes the GB200's FP8 TF/s. e_max is what the GEMM model (tile fill, k fill at k_half x
/// gemm_k_rate_ratio) needs to take that long. Large cubes run faster (the GB200's cuBLASLt FP4 at
/// 8192^3: 7,535.6 TF/s, Azure ND GB200 v6, measurements.md 2.2); training's shapes are the guide's.
constexpr double kB300Fp4PeakTflops = 13500.0;
constexpr double kB300Fp4LayerSeconds = 3.764e-3;
struct GemmMkn {
  std::int64_t m, k, n;
};
constexpr std::array<GemmMkn, 12> kTeProfilingLayer{{
    {15872, 4096, 12288}, {15872, 4096, 4096},  {15872, 4096, 16384}, {15872, 16384, 4096},   // fprop
    {15872, 12288, 4096}, {15872, 4096, 4096},  {15872, 16384, 4096}, {15872, 4096, 16384},   // dgrad
    {4096, 15872, 12288}, {4096, 15872, 4096},  {4096, 15872, 16384}, {16384, 15872, 4096}}};  // wgrad

Sourced<double> blackwell_fp4(const ComputeProfile& p, double board_fp4_tflops) {
  double seconds_at_full_rate = 0.0;  // the layer's GEMMs at e_max = 1
  for (const auto& g : kTeProfilingLayer) {
    const double fill = gemm_tile_fill(p.tile_m.value, p.tile_n.value, p.sm_count.value, g.m, g.n);
    const auto k = static_cast<double>(g.k);
    const double k_fill = k / (k + p.k_half.value * gemm_k_rate_ratio(Precision::nvfp4));
    seconds_at_full_rate += 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * k /
                            (kB300Fp4PeakTflops * 1e12 * fill * k_fill);
  }
  return {seconds_at_full_rate / kB300Fp4LayerSeconds * kB300Fp4PeakTflops / board_fp4_tflops,
          fmt::format("fit (compute_profile.cpp, blackwell_fp4): Transformer Engine's GEMM profiling guide, HGX B300, "
                      "NVFP4 GEMM kernels alone at a layer's 12 training shapes in 3.764 ms (5.09 PFLOP/s), the same "
                      "TF/s over this board's {:g} TF/s FP4 peak",
                      board_fp4_tflops)};
}

/// FP8 attention, from cuDNN frontend's SDPA training benchmark (NVIDIA/cudnn-frontend @3929da2,
/// benchmark/sdpa_benchmark_training/results/): Llama 3.1's attention (64 query and 8 key/value
/// heads of 128, causal, "top_left"), bf16 and fp8 (per-tensor scales) on one board and cuDNN,
/// forward and backward timed apart, non-deterministic backward; milliseconds as published. FP8
/// pays in the forward on both generations; on Hopper (cuDNN 9.19) its backward is slower than
/// bf16's from 8K tokens on, on Blackwell (9.22) faster from 4K on.
struct Fp8AttentionRun {
  double seq, bf16_fwd_ms, bf16_bwd_ms, fp8_fwd_ms, fp8_bwd_ms;
};
Fp8AttentionTimes fp8_attention_times(const std::array<Fp8AttentionRun, 5>& runs, std::string_view from) {
  Fp8AttentionTimes t;
  for (const Fp8AttentionRun& r : runs) {
    t.points[static_cast<std::size_t>(t.count++)] = {r.seq, r.fp8_fwd_ms / r.bf16_fwd_ms, r.fp8_bwd_ms / r.bf16_bwd_ms};
  }
  t.source = fmt::format("measured: cuDNN frontend's SDPA training benchmark, {}, FP8 over bf16 time of the same "
                         "call (causal, 64/8 heads of 128), 2K-32K tokens",
                         from);
  return t;
}
Fp8AttentionTimes hopper_fp8_attention() {  // results/h200_919_only_cudnn/llama3.1_20260227_034703.csv, batch 1
  return fp8_attention_times({{{2048, 0.142, 0.464, 0.098, 0.437},
                               {4096, 0.465, 1.450, 0.322, 1.459},
                               {8192, 1.708, 5.083, 1.141, 6.392},
                               {16384, 6.531, 19.002, 4.357, 29.422},
                               {32768, 25.566, 75.688, 16.884, 118.729}}},
                             "H200, cuDNN 9.19 (the H100's die)");
}
Fp8AttentionTimes blackwell_fp8_attention() {  // results/llama3.1/gb200/llama3.1_20260424_100750.csv, batch 2
  return fp8_attention_times({{{2048, 0.125, 0.389, 0.097, 0.414},
                               {4096, 0.391, 1.198, 0.305, 1.167},
                               {8192, 1.397, 4.127, 1.074, 3.781},
                               {16384, 5.150, 16.554, 4.084, 13.476},
                               {32768, 21.692, 71.756, 16.012, 52.155}}},
                             "GB200, cuDNN 9.22 (the B200's die)");
}
Fp8AttentionTimes blackwell_ultra_fp8_attention() {  // results/llama3.1/gb300/llama3.1_20260424_100757.csv, batch 2
  return fp8_attention_times({{{2048, 0.100, 0.356, 0.070, 0.364},
                               {4096, 0.323, 1.101, 0.217, 0.985},
                               {8192, 1.185, 3.832, 0.759, 3.087},
                               {16384, 4.593, 14.593, 2.880, 10.805},
                               {32768, 18.014, 59.024, 11.319, 41.328}}},
                             "GB300, cuDNN 9.22");
}

/// Attention on Blackwell, cuDNN fused attention and FlashAttention-2, causal bf16, head dim 128,
/// fitted the same way to cuDNN frontend's published B200 runs (calibration/published/
/// b200_attention_cudnn-frontend.jsonl: cuDNN 9.10.2, flash-attn 2.7.4, 512-131,072 tokens).
constexpr double kBlackwellCudnnAttention = 0.502503303013738;
constexpr double kBlackwellFlash2Attention = 0.16664136544841154;

/// Blackwell's attention from the B200's fits. The GB200 is the same die at a higher clock (its
/// 2,450 TF/s peak against 2,250): it takes the cuDNN rate as a fraction of its own peak and keeps
/// its own FlashAttention-2 figure. FlashAttention-3 runs on Hopper only (the layout rules reject
/// it elsewhere): its slot holds FlashAttention-2's value.
Sourced<double> blackwell_attention(double efficiency, std::string_view kernel, std::string_view taken_as) {
  return {efficiency,
          fmt::format("fit (calibration/profiles/b200.json): {}, causal bf16, head dim 128, on one B200{} "
                      "(calibration/published/b200_attention_cudnn-frontend.jsonl: cuDNN frontend's SDPA benchmark)",
                      kernel, taken_as)};
}
void flash3_as_flash2(ComputeProfile& p) {
  p.attention_flash3_efficiency = {p.attention_efficiency.value,
                                   "FlashAttention-3 runs on Hopper only: as FlashAttention-2 (attention_efficiency)"};
}
/// GPUs where PyTorch's build of FlashAttention-2 is not measured apart from the package's.
void sdpa_flash_as_flash2(ComputeProfile& p) {
  p.attention_sdpa_flash_efficiency = {
      p.attention_efficiency.value, "not measured apart from the flash-attn package: as FlashAttention-2 (attention_efficiency)"};
}

/// GPUs whose cuDNN attention is not measured: as their FlashAttention-2. FlashAttention-3 runs on
/// Hopper only (the layout rules reject it elsewhere): its slot holds FlashAttention-2's value.
void cudnn_as_flash2(ComputeProfile& p) {
  p.attention_cudnn_efficiency = {p.attention_efficiency.value,
                                  "not measured: as FlashAttention-2 (attention_efficiency)"};
  flash3_as_flash2(p);
}

Sourced<double> launch_overhead() {
  return {4e-6,
          "assumption: typical CUDA kernel launch latency plus ramp-up/tail of a few microseconds "
          "per kernel without CUDA graphs; not measured here"};
}

// The clock under sustained load. A100's peak is quoted at its top boost clock, 1410 MHz, which it
// holds at 400 W in long GEMM runs (Azure's rows follow 10,000 warm-up iterations). Hopper's GEMM
// measurements ran for under a second per shape from a GPU at 1875-1980 MHz (the H200 run read
// 1875 MHz at 652 W at its end, under the 700 W limit); in training the GPU sits at its power
// limit for hours, where Hopper holds about 1575 MHz (DeepGEMM issue #120: 1980 -> 1575 MHz once
// communication overlapped the GEMMs and the power limit was reached). The B200 throttles the same
// way, 1965 -> about 1580 MHz at about 1000 W under back-to-back kernels (flashinfer PR #2899).
Sourced<double> a100_clock() {
  return {1.0, "measurements.md 4 and 2.2: A100 peak quoted at 1410 MHz, its top boost, held in Azure's cuBLASLt rows "
               "after 10,000 warm-up iterations"};
}
Sourced<double> hopper_clock() {
  return {1575.0 / 1875.0,
          "1575 MHz held at the power limit (deepseek-ai/DeepGEMM issue #120, Hopper, GEMMs overlapped with "
          "communication) over 1875 MHz, the H200 measurement's clock under load "
          "(calibration/measured/h200-2026-11-30/device-log-1.txt, 652 W of 700)"};
}
// Attention's held clock against the GEMMs'. A100: no throttling to tell apart. Hopper: no reading
// of an attention kernel run back to back at the power limit exists here; a GEMM at 77 % of peak
// and FlashAttention-2 at 34 % may draw different power there, which clock_under_load.py measures.
// Blackwell: the sustained clock is itself an attention kernel's reading.
Sourced<double> a100_attention_clock() {
  return {1.0, "A100 holds its quoted clock under sustained load (sustained_clock_ratio 1): nothing to tell apart"};
}
Sourced<double> hopper_attention_clock() {
  return {1.0,
          "assumed: attention throttles at the power limit as the GEMMs do (no Hopper reading of an attention "
          "kernel's clock under sustained load; calibration/bench/clock_under_load.py takes one, and calibrate "
          "fits this factor from it)"};
}
Sourced<double> blackwell_attention_clock() {
  return {1.0,
          "the sustained clock ratio is itself an attention kernel's reading (flashinfer-ai/flashinfer PR #2899: "
          "FlashAttention-4 back to back on a B200, 1965 -> ~1580 MHz)"};
}
// Dropout's random numbers (a Philox draw per score, integer and FP32 work on the SM's ALUs) cost
// a fused attention kernel time its tensor cores do not hide. Measured on a GB200
// (Dao-AILab/flash-attention pull request #2597: FlashAttention-4 and cuDNN 9.24, bf16, 16 heads,
// about 32K tokens, p = 0.125): the forward at 75-85 % and the backward at 60-70 % of the rate
// without dropout, about constant over the sequence length. At the middles, with the backward's
// 2.5 x the forward's FLOPs, a call takes (1/0.80 + 2.5/0.65) / 3.5 = 1.456 x its time; per FLOP,
// over the B200's cuDNN kernel at 0.5025 of the peak, that is 0.908 of a FLOP's time at the peak.
// The share follows the GPU's tensor throughput against its ALUs': per SM and clock Blackwell's
// tensor cores do about twice Hopper's dense bf16 FLOPs (2250 TF/s on 148 SMs against 989 on 132
// at 1.83 GHz, 4096 a clock) and Hopper twice Ampere's (312 TF/s on 108 SMs at 1.41 GHz, 2048),
// beside 128 FP32 lanes an SM on Blackwell and Hopper and 64 on Ampere: Hopper and Ampere draw the
// same numbers in half of Blackwell's share. The slower the kernel, the less dropout adds to it, as
// on GB10, whose FlashAttention runs at 60-75 TF/s and loses 0-6 % at head dim 128 (pull request
// #2439).
constexpr double kGb200DropoutCallRatio = (1.0 / 0.80 + 2.5 / 0.65) / 3.5;
Sourced<double> blackwell_attention_dropout() {
  return {(kGb200DropoutCallRatio - 1.0) / kBlackwellCudnnAttention,
          "measured on a GB200 (Dao-AILab/flash-attention pull request #2597, FlashAttention-4 and cuDNN 9.24, "
          "p = 0.125): forward at 75-85 %, backward at 60-70 % of the rate without dropout; at the middles a call "
          "takes 1.456 x its time, over the B200 cuDNN kernel's 0.5025 of the bf16 peak"};
}
Sourced<double> half_blackwell_attention_dropout(std::string_view generation) {
  return {blackwell_attention_dropout().value / 2.0,
          fmt::format("half the GB200's measured share (flash-attention pull request #2597): {} does half "
                      "Blackwell's tensor FLOPs per SM and clock against its ALUs, which draw the random numbers "
                      "(about 4096 dense bf16 FLOPs to 128 FP32 lanes on Hopper, 2048 to 64 on Ampere, 8192 to 128 "
                      "on Blackwell)",
                      generation)};
}
// No STREAM run on Blackwell is published; cuDNN frontend's norm benchmark is a memory-bound
// kernel that reads and writes each element once, as a copy does.
Sourced<double> blackwell_hbm() {
  return {6424.6 / 8000.0,
          "measured: cuDNN RMSNorm forward of 16384 x 4096 bf16 on one GB200 at 6424.6 GB/s read + write (NVIDIA/"
          "cudnn-frontend benchmark/norms/results/gb200; calibration/published/gb200_compute.jsonl) / 8 TB/s HBM3e; "
          "the B200 has the same HBM3e"};
}
Sourced<double> blackwell_clock() {
  return {1580.0 / 1965.0,
          "1580 MHz held at about 1000 W over the 1965 MHz boost of short runs (flashinfer-ai/flashinfer PR #2899: "
          "B200, back-to-back attention kernels throttle 1965 -> ~1580 MHz); the GB200's 1200 W limit may hold more"};
}

// Blackwell Ultra's pace under load. NVIDIA ran MLPerf Training v5.1's Llama 2 70B LoRA with the
// same configuration (config_GB200_18x4x1xtp1pp1cp8.sh and config_GB300_18x4x1xtp1pp1cp8.sh differ
// in nothing) and the same NGC 25.09 container on one GB200 NVL72 rack and one GB300 NVL72 rack:
// median train_step_time 0.1994 s against 0.1723 s over ten runs each, 1.157 x the pace on the same
// kernels, where the boards' tensor-core peaks differ by 2 % and their HBM and NVLink not at all. On
// 128 trays the same pair of files gives 1.149. The job is not one of validate's rows. The die is not
// the cause: Dell ran the same LoRA alike on an HGX B300 (the Blackwell Ultra die on an 8-GPU
// baseboard) and an HGX B200, and the B300 kept the B200's pace (1.2998 s against 1.2963 s,
// calibration/published/step_pace/b300_b200_llama2_70b_lora_dell.jsonl). What the GB300 adds is its
// 1,400 W against the GB200's 1,200, a higher clock under load, carried as the sustained clock ratio.
// The step's parts that do not follow the clock (communication, memory-bound kernels) would put the
// ratio above the pace, the Blackwell Ultra's doubled exponential unit (part of the attention's gain,
// which the GB300's attention fit already holds) below it.
// calibration/published/step_pace/gb300_gb200_llama2_70b_lora.jsonl, the medians of every logged step.
constexpr double kGb300OverGb200Pace = 0.1993675 / 0.172328;
Sourced<double> blackwell_ultra_clock() {
  return {blackwell_clock().value * kGb300OverGb200Pace,
          "the GB200's sustained clock ratio (1580 of 1965 MHz) x 1.157, the GB300's pace over the GB200's on one job "
          "run alike on both (mlcommons/training_results_v5.1 NVIDIA/results/{theia,tyche}_ngpu72_ngc25.09_nemo/"
          "llama2_70b_lora: median train_step_time 0.1723 s against 0.1994 s, identical configurations; "
          "calibration/published/step_pace/gb300_gb200_llama2_70b_lora.jsonl)"};
}

Sourced<int> hopper_tile_m() { return {128, "assumption: 128 x 256 CTA tile, common for Hopper/Blackwell cuBLAS and CUTLASS GEMMs"}; }
Sourced<int> hopper_tile_n() { return {256, "assumption: 128 x 256 CTA tile, common for Hopper/Blackwell cuBLAS and CUTLASS GEMMs"}; }

ComputeProfile a100() {
  ComputeProfile p{
      .gpu = "a100-80gb",
      .gemm_max_efficiency_bf16 = {},
      .gemm_max_efficiency_fp8 = {0.0, "A100 has no fp8 tensor cores (measurements.md 4)"},
      .sm_count = {108, "NVIDIA A100 whitepaper: 108 SMs"},
      .tile_m = {128, "assumption: 128 x 128 CTA tile, the common Ampere cuBLAS/CUTLASS bf16 tile; "
                      "matches the A100 cuBLASLt 1024^3 row (119 TF/s) within 10%"},
      .tile_n = {128, "assumption: 128 x 128 CTA tile (see tile_m)"},
      .k_half = {},
      .sustained_clock_ratio = a100_clock(),
      .attention_clock_factor = a100_attention_clock(),
      .attention_efficiency = {179.5 / 312.0, fmt::format("{}; A100 179.5 TF/s at head dim 64", kFlashAttention2)},
      .attention_cudnn_efficiency = {},  // set below
      .attention_flash3_efficiency = {},
      .attention_sdpa_flash_efficiency = {},
      .attention_dropout_share = half_blackwell_attention_dropout("Ampere"),
      .hbm_efficiency = {1.61 / 2.039, fmt::format("{}: A100-80GB 1.61 / 2.039 TB/s", kStream)},
      .launch_overhead_s = launch_overhead(),
      .overlap = default_overlap_interference("a100-80gb"),
  };
  set_gemm_fit(p, kA100Fit);
  cudnn_as_flash2(p);
  sdpa_flash_as_flash2(p);
  return p;
}

ComputeProfile h100() {
  ComputeProfile p{
      .gpu = "h100-sxm",
      .gemm_max_efficiency_bf16 = {},
      .gemm_max_efficiency_fp8 = {},
      .sm_count = {132, "measurements.md 4: H100 SXM5 132 SMs (NVIDIA whitepaper via Lockwood)"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = {},
      .sustained_clock_ratio = hopper_clock(),
      .attention_clock_factor = hopper_attention_clock(),
      .attention_efficiency = {},
      .attention_cudnn_efficiency = {},  // set below
      .attention_flash3_efficiency = {},
      .attention_sdpa_flash_efficiency = {},
      .attention_dropout_share = half_blackwell_attention_dropout("Hopper"),
      .hbm_efficiency = {2.90 / 3.35, fmt::format("{}: H100 2.90 / 3.35 TB/s", kStream)},
      .launch_overhead_s = launch_overhead(),
      .overlap = default_overlap_interference("h100-sxm"),
  };
  set_gemm_fit(p, kH100Fit);
  set_attention_fits(p);
  p.fp8_attention = hopper_fp8_attention();
  return p;
}

ComputeProfile h200() {
  ComputeProfile p{
      .gpu = "h200-sxm",
      .gemm_max_efficiency_bf16 = {},
      .gemm_max_efficiency_fp8 = {},
      .sm_count = {132, "H200 uses the H100 SXM5 die: 132 SMs (measurements.md 4)"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = {},
      .sustained_clock_ratio = hopper_clock(),
      .attention_clock_factor = hopper_attention_clock(),
      .attention_efficiency = {},
      .attention_cudnn_efficiency = {},  // set below
      .attention_flash3_efficiency = {},
      .attention_sdpa_flash_efficiency = {},
      .attention_dropout_share = half_blackwell_attention_dropout("Hopper"),
      .hbm_efficiency = {4.01 / 4.8, fmt::format("{}: H200 4.01 / 4.8 TB/s", kStream)},
      .launch_overhead_s = launch_overhead(),
      .overlap = default_overlap_interference("h200-sxm"),
  };
  set_gemm_fit(p, kH200Fit);
  set_attention_fits(p);
  p.fp8_attention = hopper_fp8_attention();
  return p;
}

ComputeProfile b200() {
  ComputeProfile p{
      .gpu = "b200",
      .gemm_max_efficiency_bf16 = {1745.0 / 2250.0, fmt::format("{}: B200 SXM bf16 1745.0 / 2250 TF/s", kMamf)},
      .gemm_max_efficiency_fp8 = {},  // set below
      .sm_count = {148, "assumption: 148 SMs enabled on B200 (NVIDIA Blackwell material; not in measurements.md)"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = {},  // set below
      .sustained_clock_ratio = blackwell_clock(),
      .attention_clock_factor = blackwell_attention_clock(),
      .attention_efficiency = {},  // set below
      .attention_cudnn_efficiency = {},  // set below
      .attention_flash3_efficiency = {},
      .attention_sdpa_flash_efficiency = {},
      .attention_dropout_share = blackwell_attention_dropout(),
      .hbm_efficiency = blackwell_hbm(),
      .launch_overhead_s = launch_overhead(),
      .overlap = default_overlap_interference("b200"),
  };
  set_gemm_fit(p, kB200Fp8Fit);
  p.attention_cudnn_efficiency = blackwell_attention(kBlackwellCudnnAttention, "cuDNN fused attention 9.10.2", "");
  p.attention_efficiency = blackwell_attention(kBlackwellFlash2Attention, "FlashAttention-2 2.7.4", "");
  flash3_as_flash2(p);
  sdpa_flash_as_flash2(p);
  p.gemm_max_efficiency_fp4 = blackwell_fp4(p, 9000.0);
  p.fp8_attention = blackwell_fp8_attention();
  return p;
}

ComputeProfile gb200() {
  ComputeProfile p{
      .gpu = "gb200",
      // Against NVIDIA's 2450/4900 TF/s peaks (measurements.md 4, dgxc), so that e_max x peak gives
      // the measured TF/s when the GPU preset uses them; against ml-engineering's 2500/5000 the
      // fractions are 0.729 and 0.723.
      .gemm_max_efficiency_bf16 = {1822.0 / 2450.0, fmt::format("{}: GB200 bf16 1822.0 TF/s over NVIDIA's 2450", kMamf)},
      .gemm_max_efficiency_fp8 = {},  // set below
      .sm_count = {148, "assumption: 148 SMs per Blackwell GPU, as B200"},
      .tile_m = hopper_tile_m(),
      .tile_n = hopper_tile_n(),
      .k_half = {},  // set below
      .sustained_clock_ratio = blackwell_clock(),
      .attention_clock_factor = blackwell_attention_clock(),
      .attention_efficiency = {373.9 / 2450.0, fmt::format("{}: GB200 373.9 / 2450 TF/s", kFlashAttention2)},
      .attention_cudnn_efficiency = {},  // set below
      .attention_flash3_efficiency = {},
      .attention_sdpa_flash_efficiency = {},
      .attention_dropout_share = blackwell_attention_dropout(),
      .hbm_efficiency = blackwell_hbm(),
      .launch_overhead_s = launch_overhead(),
      .overlap = default_overlap_interference("gb200"),
  };
  // No GB200 profile is bundled: `calibrate --gpu gb200 calibration/published/gb200_compute.jsonl` gives these.
  const std::string how = fmt::format("fit (calibrate --gpu gb200): {}", kGb200Fp8Fit.from);
  p.gemm_max_efficiency_fp8 = {kGb200Fp8Fit.e_max_fp8, how};
  p.k_half = {kGb200Fp8Fit.k_half, how};
  p.attention_cudnn_efficiency = blackwell_attention(kBlackwellCudnnAttention, "cuDNN fused attention 9.10.2",
                                                     ", taken as a fraction of the GB200's peak");
  flash3_as_flash2(p);
  sdpa_flash_as_flash2(p);
  p.gemm_max_efficiency_fp4 = blackwell_fp4(p, 10000.0);
  p.fp8_attention = blackwell_fp8_attention();
  return p;
}

/// Blackwell Ultra (GB300): the B200's SMs with FP4 tensor cores and the exponential unit doubled;
/// its BF16 and FP8 tensor cores run at the rate per clock of the B200's (the 2.5 and 5 PFLOP/s
/// peaks against 2.45-2.5 and 4.9-5), so its GEMMs take the GB200's measured TF/s (MAMF bf16,
/// Azure's cuBLASLt FP8 fit) over its own peaks. Attention is measured on a GB300: cuDNN frontend's
/// SDPA training benchmark, the same calls as the B200's fit.
constexpr double kGb300CudnnAttention = 0.5392124290693677;
constexpr double kGb300Flash2Attention = 0.15622264166526986;

ComputeProfile gb300() {
  ComputeProfile p = gb200();
  constexpr double kGb200Fp8Peak = 4900.0, kBf16Peak = 2500.0, kFp8Peak = 5000.0;
  p.gpu = "gb300";
  p.gemm_max_efficiency_bf16 = {
      1822.0 / kBf16Peak,
      fmt::format("{}: GB200 bf16 1822.0 TF/s over the GB300's 2500 (the B200's tensor cores at the same clock)", kMamf)};
  p.gemm_max_efficiency_fp8 = {
      kGb200Fp8Fit.e_max_fp8 * kGb200Fp8Peak / kFp8Peak,
      fmt::format("fit (calibrate --gpu gb200): {}, the GB200's TF/s over the GB300's 5000 peak", kGb200Fp8Fit.from)};
  p.sm_count = {148, "assumption: 148 SMs as the B200 (the Blackwell Ultra die's 160 less those disabled is not "
                     "published by NVIDIA)"};
  p.attention_cudnn_efficiency = {
      kGb300CudnnAttention,
      "fit (calibrate --gpu gb300): cuDNN fused attention (PyTorch SDPA's cuDNN backend), causal bf16, head dim 128, on "
      "one GB300 (calibration/published/gb300_attention_cudnn-frontend.jsonl: cuDNN frontend's SDPA benchmark)"};
  p.attention_efficiency = {
      kGb300Flash2Attention,
      "fit (calibrate --gpu gb300): FlashAttention-2, causal bf16, head dim 128, on one GB300 "
      "(calibration/published/gb300_attention_cudnn-frontend.jsonl: cuDNN frontend's SDPA benchmark)"};
  flash3_as_flash2(p);
  sdpa_flash_as_flash2(p);
  p.sustained_clock_ratio = blackwell_ultra_clock();
  p.overlap = default_overlap_interference("gb300");
  p.gemm_max_efficiency_fp4 = blackwell_fp4(p, 15000.0);
  p.fp8_attention = blackwell_ultra_fp8_attention();
  return p;
}

/// Blackwell Ultra on an HGX baseboard (B300): the B200's BF16 and FP8 tensor-core peaks
/// (2,250 and 4,500 TF/s) and power class, so the B200's GEMM constants and clock under load; the
/// GB300's attention, measured on Blackwell Ultra (its doubled exponential unit), as a fraction of
/// the board's peak; NVFP4 GEMMs from the guide measured on an HGX B300 itself.
ComputeProfile b300() {
  ComputeProfile p = b200();
  const ComputeProfile ultra = gb300();
  p.gpu = "b300";
  p.attention_cudnn_efficiency = ultra.attention_cudnn_efficiency;
  p.attention_efficiency = ultra.attention_efficiency;
  flash3_as_flash2(p);
  sdpa_flash_as_flash2(p);
  p.gemm_max_efficiency_fp4 = blackwell_fp4(p, 13500.0);
  p.fp8_attention = blackwell_ultra_fp8_attention();
  p.overlap = default_overlap_interference("b300");
  return p;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

ComputeProfile default_compute_profile(std::string_view gpu) {
  if (gpu == "a100-80gb") return a100();
  if (gpu == "h100-sxm") return h100();
  if (gpu == "h200-sxm") return h200();
  if (gpu == "b200") return b200();
  if (gpu == "gb200") return gb200();
  if (gpu == "gb300") return gb300();
  if (gpu == "b300") return b300();
  throw std::invalid_argument(fmt::format(
      "no bundled compute profile for GPU \"{}\" (have a100-80gb, h100-sxm, h200-sxm, b200, gb200, b300, gb300)", gpu));
}

double grouped_gemm_tile_fill(int tile_m, int tile_n, int sm_count, std::int64_t groups, std::int64_t m,
                              std::int64_t n) {
  if (m <= 0 || n <= 0 || groups <= 0) return 1.0;
  const auto fill = [&](std::int64_t tm, std::int64_t tn) {
    const std::int64_t tiles = groups * ceil_div(m, tm) * ceil_div(n, tn);
    const std::int64_t waves = ceil_div(tiles, sm_count);
    return static_cast<double>(groups) * static_cast<double>(m) * static_cast<double>(n) /
           static_cast<double>(waves * sm_count * tm * tn);
  };
  return std::max({fill(tile_m, tile_n), fill(tile_n, tile_m), fill(tile_m, std::max(tile_n / 2, 1))});
}

double gemm_tile_fill(int tile_m, int tile_n, int sm_count, std::int64_t m, std::int64_t n) {
  return grouped_gemm_tile_fill(tile_m, tile_n, sm_count, 1, m, n);
}

double fp8_attention_time_ratio(const ComputeProfile& profile, double seq, bool backward) {
  const Fp8AttentionTimes& t = profile.fp8_attention;
  if (t.count == 0)
    throw std::invalid_argument(fmt::format("profile {}: no FP8 attention measurement", profile.gpu));
  const auto at = [&](int i) {
    const auto& p = t.points[static_cast<std::size_t>(i)];
    return backward ? p.backward : p.forward;
  };
  if (seq <= t.points[0].seq) return at(0);
  for (int i = 1; i < t.count; ++i) {
    const auto& hi = t.points[static_cast<std::size_t>(i)];
    if (seq <= hi.seq) {
      const auto& lo = t.points[static_cast<std::size_t>(i - 1)];
      const double f = std::log2(seq / lo.seq) / std::log2(hi.seq / lo.seq);
      return at(i - 1) + f * (at(i) - at(i - 1));
    }
  }
  return at(t.count - 1);
}

double gemm_k_rate_ratio(Precision precision) {
  return precision == Precision::nvfp4 ? 4.0 : precision == Precision::fp8 ? 2.0 : 1.0;
}

double gemm_k_half(const ComputeProfile& profile, Precision precision) {
  return profile.k_half.value * gemm_k_rate_ratio(precision);
}

double grouped_gemm_efficiency(const ComputeProfile& profile, Precision precision, int groups, int m, int n, int k) {
  const double e_max = precision == Precision::nvfp4 ? profile.gemm_max_efficiency_fp4.value
                       : precision == Precision::fp8 ? profile.gemm_max_efficiency_fp8.value
                                                     : profile.gemm_max_efficiency_bf16.value;
  if (m <= 0 || n <= 0 || k <= 0) return e_max;
  const double tile_fill =
      grouped_gemm_tile_fill(profile.tile_m.value, profile.tile_n.value, profile.sm_count.value, groups, m, n);
  const auto kd = static_cast<double>(k);
  const double k_fill = kd / (kd + gemm_k_half(profile, precision));
  return e_max * profile.sustained_clock_ratio.value * tile_fill * k_fill;
}

double gemm_efficiency(const ComputeProfile& profile, Precision precision, int m, int n, int k) {
  return grouped_gemm_efficiency(profile, precision, 1, m, n, k);
}

double attention_kernel_efficiency(const ComputeProfile& profile, AttentionKernel kernel) {
  return kernel == AttentionKernel::cudnn        ? profile.attention_cudnn_efficiency.value
         : kernel == AttentionKernel::flash3     ? profile.attention_flash3_efficiency.value
         : kernel == AttentionKernel::sdpa_flash ? profile.attention_sdpa_flash_efficiency.value
                                                 : profile.attention_efficiency.value;
}

double attention_sustained_efficiency(const ComputeProfile& profile, AttentionKernel kernel) {
  return attention_kernel_efficiency(profile, kernel) * profile.sustained_clock_ratio.value *
         profile.attention_clock_factor.value;
}

double attention_dropout_factor(const ComputeProfile& profile, AttentionKernel kernel) {
  return 1.0 + profile.attention_dropout_share.value * attention_kernel_efficiency(profile, kernel);
}

}  // namespace clustersim::models
