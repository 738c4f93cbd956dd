#pragma once
/// The range of every numeric scenario key, in the unit the key is written in (scenario_schema.cpp
/// pairs each key with one). A range is physical, and generous: it holds every GPU, model and
/// cluster built or announced (2025) with a margin of at least ten, and refuses what no machine
/// or training run can be, so that a typo or a fuzzed value is an error where the key is read
/// (exit 2, naming the key and its range) instead of a wrapped time, an endless run or an
/// allocation failure later. Whether a whole step fits simulated time is checked on the step
/// itself (models/step/step_durations.hpp); ranges cannot bound products of keys.
/// Sources for the largest real values: Llama 3 (Dubey et al. 2024, arXiv:2407.21783), PaLM
/// (Chowdhery et al. 2022, arXiv:2204.02311), Megatron-LM (Narayanan et al. 2021,
/// arXiv:2104.04473, Table 1), DeepSeek-V3 (arXiv:2412.19437), NVIDIA's GB200 NVL72 and B200
/// datasheets; the validation runs (scenarios/validation/published_runs.csv) all lie inside.

#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios::key_bounds {

// --- model shape ------------------------------------------------------------------------------
// PaLM 540B has 118 layers, Llama 3 405B 126, Megatron-LM's 1T GPT 128.
constexpr Bounds layers{.min = 1, .max = 10'000};
// Megatron-LM's 1T-parameter GPT is 25,600 wide, Llama 3 405B 16,384; 2^20.
constexpr Bounds hidden{.min = 1, .max = 1 << 20};
// Megatron-LM's 1T GPT has an MLP of 102,400, PaLM 73,728; 2^22.
constexpr Bounds ffn_hidden{.min = 1, .max = 1 << 22};
// Llama 3 405B has 128 heads, Megatron-LM's 1T GPT 160; 2^16.
constexpr Bounds heads{.min = 1, .max = 1 << 16};
// Gemma 3 has 262,144 tokens, Llama 3 128,256; 2^24.
constexpr Bounds vocab{.min = 1, .max = 1 << 24};
constexpr Bounds probability{.min = 0, .max = 1};
// Routed experts: DeepSeek-V3 256, Qwen3 128, Mixtral 8; 0: a dense model. 2^16 is 256 times the
// most any published model routes to.
constexpr Bounds experts{.min = 0, .max = 1 << 16};
// Top-k, shared experts, dense leading layers: 0 allowed (a dense layer, no shared expert).
constexpr Bounds expert_count{.min = 0, .max = 1 << 16};
constexpr Bounds dense_layers{.min = 0, .max = 10'000};
// Every n-th layer is a MoE layer: 1 (all) to 2 (GShard, Switch) in published models.
constexpr Bounds moe_layer_freq{.min = 1, .max = 10'000};
// One head: 64-256 in published models (Gemma 2's 256); 0: hidden / heads (or, for the MLA keys,
// none).
constexpr Bounds head_dim{.min = 1, .max = 1 << 14, .or_zero = true};
// MLA latents: DeepSeek-V3's 1,536 (queries) and 512 (keys and values); 0: none.
constexpr Bounds latent_rank{.min = 1, .max = 1 << 20, .or_zero = true};
// GPT-OSS's 128 tokens to Mistral 7B's 4,096, up to the longest sequence; 0: none.
constexpr Bounds sliding_window{.min = 1, .max = 1 << 25, .or_zero = true};
constexpr Bounds sliding_window_layers{.min = 1, .max = 10'000, .or_zero = true};
// An expert's MLP width, as ffn_hidden's; 0 for a dense model.
constexpr Bounds expert_ffn_hidden{.min = 1, .max = 1 << 22, .or_zero = true};

// --- cluster ----------------------------------------------------------------------------------
// 2^20 GPUs: ten times the largest clusters of 2024-25 (100,000-200,000 H100).
constexpr Bounds gpus{.min = 1, .max = 1 << 20};
// One server's GPUs: 8 in an HGX node, 4 in a GB200 compute tray; 4,096 is past any server.
constexpr Bounds gpus_per_node{.min = 1, .max = 4096};
// GPUs on one NVLink fabric: 72 in GB200 NVL72; NVLink 5 switches join up to 576 (NVIDIA Mission
// Control manual, "NVLink Technology"); 0: one node's.
constexpr Bounds nvlink_domain_gpus{.min = 1, .max = 576, .or_zero = true};
// 1 Gbit/s (an office link) to 100 Tbit/s, 60 times a 1.6 Tbit/s NIC.
constexpr Bounds nic_gbit_per_s{.min = 1, .max = 100'000};
// One or two NICs a GPU; a 4,096-GPU node could hold twice as many.
constexpr Bounds nics_per_node{.min = 1, .max = 8192};
// A hop's latency, software included: about 1 us on NVLink, 2-10 us on InfiniBand; a link across
// a continent takes 30 ms, and 1 s is past any. Negative (-1): not set.
constexpr Bounds hop_latency_us{.min = -1, .max = 1e6};
// Leaf downlinks : uplinks; fat trees are built at 1:1 to about 3:1.
constexpr Bounds oversubscription{.min = 1, .max = 1024};
// More cables than any fabric has (a 2^20-GPU rail-optimized cluster has about 2^22); the
// topology checks the real count.
constexpr Bounds failed_links{.min = 0, .max = 1 << 24};

// --- GPU --------------------------------------------------------------------------------------
// Dense tensor peaks: A100 312, H100 989, B200 2,250 TFLOP/s (FP8 twice that); 1 TFLOP/s is far
// below any training GPU. FP8: 0 means no FP8 tensor cores.
constexpr Bounds bf16_tflops{.min = 1, .max = 100'000};
constexpr Bounds fp8_tflops{.min = 1, .max = 200'000, .or_zero = true};
// FP4 (B200 9,000, GB200 10,000 TFLOP/s dense): twice FP8's range; 0 means no FP4 tensor cores.
constexpr Bounds fp4_tflops{.min = 1, .max = 400'000, .or_zero = true};
// HBM: A100 40-80 GB, B300 288 GB.
constexpr Bounds hbm_gb{.min = 1, .max = 100'000};
// HBM bandwidth: V100 0.9, H100 3.35, B200 8 TB/s.
constexpr Bounds hbm_tb_per_s{.min = 0.1, .max = 1000};
// NVLink per direction: A100 300, H100 450, B200 900 GB/s; 0: no NVLink.
constexpr Bounds nvlink_gb_per_s{.min = 1, .max = 100'000, .or_zero = true};
// Board power: H100 700 W, B200 1,000 W; 0: not published.
constexpr Bounds power_w{.min = 1, .max = 100'000, .or_zero = true};

// --- parallelism ------------------------------------------------------------------------------
// Each degree at most the GPUs a cluster may have; their product must equal num_gpus.
constexpr Bounds degree{.min = 1, .max = 1 << 20};
// Model chunks per stage: at most the layers.
constexpr Bounds virtual_stages{.min = 1, .max = 10'000};
// a2a+p2p's all-to-all group: at most the CP degree; 0: none.
constexpr Bounds cp_a2a_ranks{.min = 0, .max = 1 << 20};
// A communicator's CTAs: NCCL runs at most MAXCHANNELS = 64 (src/include/device.h); 0: no limit.
constexpr Bounds max_ctas{.min = 0, .max = 64};
// Micro-batches a chunk runs before the next: at most the step's micro-batches; 0: pp.
constexpr Bounds microbatch_group{.min = 0, .max = 1 << 20};
constexpr Bounds zero_stage{.min = 0, .max = 3};
// 0: shard over all data-parallel ranks.
constexpr Bounds shard_group{.min = 0, .max = 1 << 20};

// --- training ---------------------------------------------------------------------------------
// 2^25 tokens: three times Llama 4 Scout's 10M-token context window.
constexpr Bounds seq_len{.min = 1, .max = 1 << 25};
// Sequences per micro-batch: 1-16 in published runs.
constexpr Bounds micro_batch{.min = 1, .max = 1 << 16};
// Sequences per step: DeepSeek-V3 15,360, Llama 3 2,048 at 8k (16M tokens); 2^20 is 70 times
// that. The step's micro-batches are bounded again by the graph they make (layout_rules.hpp).
constexpr Bounds global_batch{.min = 1, .max = 1 << 20};
constexpr Bounds pipeline_runs{.min = 1, .max = 1 << 20};
// Llama 3 trained on 15.6T tokens; 1e16 is 600 times that.
constexpr Bounds training_tokens{.min = 1, .max = 1e16};
// Busiest expert rank's tokens over the mean: 1 balanced; with an expert of E taking every token
// the ratio is E, so 2^16 covers any router.
constexpr Bounds load_imbalance{.min = 1, .max = 1 << 16};
// An expert's capacity over its mean share of the routed tokens (Megatron-Core
// --moe-expert-capacity-factor, GShard's capacity factor; 1.0-2.0 in practice, below 1 drops
// tokens even when balanced); 0: dropless.
constexpr Bounds capacity_factor{.min = 0.01, .max = 1 << 16, .or_zero = true};
// Parameters a gradient bucket holds: up to a 10-trillion-parameter shard; 0: a bucket per layer.
constexpr Bounds grad_bucket_params{.min = 1, .max = 1e13, .or_zero = true};
// Micro-batches whose output-layer weight gradients wait for the drain: up to a step's most
// (2^19 chunk passes, layout_rules.cpp); 0: all of them.
constexpr Bounds wgrad_deferral_limit{.min = 1, .max = 1 << 19, .or_zero = true};

// --- failures and checkpoints -----------------------------------------------------------------
// Llama 3 saw 2.4 GPU failures per 1000 node-days; 10,000 is ten a node every day.
constexpr Bounds failure_rate{.min = 0, .max = 10'000};
// 0: use the rate. One node's MTBF from an hour to ten million hours (a part's datasheet figure).
constexpr Bounds mtbf_hours{.min = 1, .max = 1e7, .or_zero = true};
// GB200 NVL72 holds 18 compute trays; 1,024 nodes would be a room.
constexpr Bounds nodes_per_rack{.min = 1, .max = 1024};
// Llama 3 stopped 0.87 times a day for planned maintenance; each stop checkpoints and restarts,
// so more than one an hour leaves no training.
constexpr Bounds planned_per_day{.min = 0, .max = 24};
// Steps take this much longer: BLOOM's stragglers 0.05, thermal throttling 0.01-0.02; 10 is a
// GPU at a tenth of its speed.
constexpr Bounds slowdown{.min = 0, .max = 10};
constexpr Bounds fraction{.min = 0, .max = 1};
// A year, in minutes and in hours.
constexpr Bounds minutes_up_to_a_year{.min = 0, .max = 525'600};
constexpr Bounds positive_minutes_up_to_a_year{.min = 0, .min_exclusive = true, .max = 525'600};
constexpr Bounds positive_hours_up_to_a_year{.min = 0, .min_exclusive = true, .max = 8760};
// 0: use interval_minutes.
constexpr Bounds checkpoint_steps{.min = 0, .max = 1e9};
// 14 = bf16 weights + fp32 master, m and v; 64 covers fp64 everything.
constexpr Bounds checkpoint_bytes_per_param{.min = 0, .min_exclusive = true, .max = 64};
// Device-to-host and storage rates: 1 MB/s (a failing disk) to 100 TB/s (ten times the fastest
// parallel file systems).
constexpr Bounds storage_gb_per_s{.min = 0.001, .max = 100'000};
// Spare nodes as a fraction of the job's: ten times as many is more than any operator keeps.
constexpr Bounds spare_fraction{.min = 0, .max = 10};

// --- cost -------------------------------------------------------------------------------------
constexpr Bounds hours_per_day{.min = 0, .min_exclusive = true, .max = 24};
constexpr Bounds horizon_years{.min = 0, .min_exclusive = true, .max = 100};
// 0: no claim; 100 years.
constexpr Bounds months{.min = 0, .max = 1200};
// One price: a trillion dollars is more than any cluster costs.
constexpr Bounds usd{.min = 0, .max = 1e12};
constexpr Bounds transceivers_per_cable{.min = 0, .max = 16};
// A node's input power: DGX H100 10.2 kW, a GB200 NVL72 rack 132 kW; 10 MW.
constexpr Bounds node_power_w{.min = 0, .max = 1e7};
// Facility over IT power: 1.1 for the best, 1.5 typical, 3 for an old machine room.
constexpr Bounds pue{.min = 1, .max = 10};
// Electricity at 0.03-0.30 USD/kWh.
constexpr Bounds usd_per_kwh{.min = 0, .max = 100};
// Colocation at 100-300 USD per kW a month.
constexpr Bounds usd_per_kw_month{.min = 0, .max = 100'000};
// A yearly fraction of capital: support 0.05-0.15, the cost of capital 0.05-0.15; 1 is all of it.
constexpr Bounds per_year_fraction{.min = 0, .max = 1};
// Hardware is written off over 3-6 years.
constexpr Bounds depreciation_years{.min = 0, .min_exclusive = true, .max = 100};
// Rent: 1-10 USD per GPU-hour in 2024-25.
constexpr Bounds usd_per_gpu_hour{.min = 0, .max = 10'000};

}  // namespace clustersim::scenarios::key_bounds
