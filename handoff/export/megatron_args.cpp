#include "handoff/export/megatron_args.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"
#include "models/spec/attention_shape.hpp"
#include "models/spec/moe.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff {

namespace {

// Placeholder optimizer settings: no layout setting, but Megatron-LM needs a learning rate. The
// figures are Megatron-LM's Llama 3 8B example's (examples/llama/train_llama3_8b_h100_fp8.sh @d98e8a6).
constexpr std::string_view kPlaceholderLr = "0.00015";
constexpr std::string_view kPlaceholderMinLr = "0.00001";
constexpr std::string_view kPlaceholderWarmupFraction = "0.01";

std::string number(double v) {
  std::string s = fmt::format("{}", v);
  return s;
}

class Flags {
 public:
  explicit Flags(MegatronArguments& arguments) : a_(arguments) {}
  void add(std::string flag, std::string value = "") { a_.flags.emplace_back(std::move(flag), std::move(value)); }
  void add(std::string flag, std::int64_t value) { add(std::move(flag), std::to_string(value)); }

 private:
  MegatronArguments& a_;
};

void add_model_flags(const models::TransformerSpec& m, const planning::Layout& layout, Flags& f,
                     std::vector<std::string>& notes) {
  const auto& t = layout.training;
  f.add("--num-layers", m.layers);
  f.add("--hidden-size", m.hidden);
  f.add("--ffn-hidden-size", m.ffn_hidden);
  f.add("--num-attention-heads", m.heads);
  if (m.attention == models::AttentionKind::mla) {
    f.add("--multi-latent-attention");
    if (m.q_lora_rank > 0) f.add("--q-lora-rank", m.q_lora_rank);
    f.add("--kv-lora-rank", m.kv_lora_rank);
    f.add("--qk-head-dim", m.qk_nope_head_dim);
    f.add("--qk-pos-emb-head-dim", m.qk_rope_head_dim);
    f.add("--v-head-dim", m.v_head_dim);
  } else if (m.kv_heads > 0 && m.kv_heads < m.heads) {
    f.add("--group-query-attention");
    f.add("--num-query-groups", m.kv_heads);
  }
  if (m.attention != models::AttentionKind::mla && m.head_dim > 0 && m.head_dim * m.heads != m.hidden)
    f.add("--kv-channels", m.head_dim);
  if (m.mlp == models::MlpKind::swiglu) {
    f.add("--swiglu");
    f.add("--normalization", "RMSNorm");
    f.add("--position-embedding-type", "rope");
    // Megatron-LM's biases are all linear layers' or none: a model whose experts have biases keeps
    // them on (GPT-OSS has attention biases too).
    if (!m.expert_bias) f.add("--disable-bias-linear");
  } else {
    notes.push_back("a GeLU MLP is exported as GPT-3's: LayerNorm, learned absolute positions, biases (Megatron-LM's "
                    "defaults)");
  }
  if (!m.tied_embeddings) f.add("--untie-embeddings-and-output-weights");
  if (m.qk_norm) f.add("--qk-layernorm");
  if (m.alibi)
    notes.push_back("model.alibi is not exported: Megatron-Core has no ALiBi (--position-embedding-type: "
                    "learned_absolute, rope, mrope or none)");
  f.add("--attention-dropout", number(m.dropout));
  f.add("--hidden-dropout", number(m.dropout));
  if (m.sliding_window > 0 && m.sliding_window_layers > 0) {
    // A window of w keys is (w - 1, 0) to Megatron-Core, as Megatron-Bridge's GPT-OSS bridge maps
    // Hugging Face's sliding_window (src/megatron/bridge/models/gpt_oss/gpt_oss_bridge.py).
    f.add("--window-size", fmt::format("{},0", m.sliding_window - 1));
    const std::string pattern = window_layer_pattern(m);
    if (!pattern.empty()) f.add("--window-attn-skip-freq", pattern);
  }
  f.add("--seq-length", t.seq_len);
  f.add("--max-position-embeddings", t.seq_len);
  f.add("--tokenizer-type", "NullTokenizer");
  f.add("--vocab-size", m.vocab);
  f.add("--mock-data");
  if (models::is_moe(m)) {
    f.add("--num-experts", m.experts);
    f.add("--moe-router-topk", m.experts_per_token);
    f.add("--moe-ffn-hidden-size", m.expert_ffn_hidden);
    if (m.shared_experts > 0) f.add("--moe-shared-expert-intermediate-size", m.shared_experts * m.expert_ffn_hidden);
    const std::string pattern = moe_layer_pattern(m);
    if (pattern != "1") f.add("--moe-layer-freq", pattern);
    f.add("--moe-grouped-gemm");
    if (t.moe_dispatcher == models::MoeDispatcher::deepep) {
      f.add("--moe-token-dispatcher-type", "flex");
      f.add("--moe-flex-dispatcher-backend", "deepep");
    } else {
      f.add("--moe-token-dispatcher-type", "alltoall");
    }
    if (t.moe_capacity_factor > 0) {
      f.add("--moe-expert-capacity-factor", number(t.moe_capacity_factor));
      if (t.moe_pad_to_capacity) f.add("--moe-pad-expert-input-to-capacity");
    }
    notes.push_back("MoE router load balancing is left at Megatron-LM's default (aux_loss); training.moe_load_imbalance "
                    "and moe_routing describe its outcome, not a flag");
  }
}

// The pipeline split of the layout, as clustersim simulates it.
void add_pipeline_flags(const models::TransformerSpec& m, const models::ParallelismSpec& p, Flags& f) {
  if (p.pp <= 1) return;
  if (p.microbatch_group > 0) f.add("--microbatch-group-size-per-virtual-pipeline-stage", p.microbatch_group);
  const std::vector<std::int64_t> split = models::chunk_layers(m.layers, p);
  const bool even = std::all_of(split.begin(), split.end(), [&](std::int64_t n) { return n == split.front(); });
  if (even) {
    if (p.vp > 1) f.add("--num-layers-per-virtual-pipeline-stage", split.front());
    return;
  }
  const bool ends_hold_layers = split.front() > 0 && split.back() > 0;
  if (p.vp == 1 && ends_hold_layers) {
    const bool middle_equal = std::all_of(split.begin() + 1, split.end() - 1, [&](std::int64_t n) { return n == split[1]; });
    if (middle_equal) {
      f.add("--decoder-first-pipeline-num-layers", split.front());
      f.add("--decoder-last-pipeline-num-layers", split.back());
      return;
    }
  }
  f.add("--pipeline-model-parallel-layout", pipeline_layout_text(split));
}

std::string_view fp8_recipe_flag(models::Fp8Recipe r) {
  switch (r) {
    case models::Fp8Recipe::delayed: return "delayed";
    case models::Fp8Recipe::current: return "tensorwise";
    case models::Fp8Recipe::blockwise: return "blockwise";
    case models::Fp8Recipe::mxfp8: return "mxfp8";
  }
  return "delayed";
}

std::string_view attention_backend(models::AttentionKernel k) {
  switch (k) {
    case models::AttentionKernel::cudnn: return "fused";
    case models::AttentionKernel::flash2:
    case models::AttentionKernel::sdpa_flash:
    case models::AttentionKernel::flash3: return "flash";
    case models::AttentionKernel::unfused: return "unfused";
  }
  return "auto";
}

}  // namespace

std::string window_layer_pattern(const models::TransformerSpec& model) {
  const std::int64_t n = model.sliding_window_layers;
  if (n <= 1) return "";     // every layer windowed: Megatron-Core's default with a window
  if (n == 2) return "2";    // layer numbers 1, 3, 5, ... windowed (utils.py is_layer_window_attention)
  std::string pattern = fmt::format("([1]+[0]*{})*{}", n - 1, model.layers / n);
  if (const std::int64_t rest = model.layers % n; rest > 0)
    pattern += rest == 1 ? "+[1]" : fmt::format("+[1]+[0]*{}", rest - 1);
  return pattern;
}

std::string moe_layer_pattern(const models::TransformerSpec& model) {
  if (model.dense_layers == 0 && model.moe_layer_freq >= 1) return std::to_string(model.moe_layer_freq);
  // Run-length form of the per-layer list (1: MoE layer, 0: dense), as moe_freq_type evaluates it.
  std::string pattern;
  std::int64_t run = 0;
  int current = -1;
  const auto flush = [&] {
    if (run == 0) return;
    pattern += fmt::format("{}[{}]*{}", pattern.empty() ? "" : "+", current, run);
  };
  for (std::int64_t i = 0; i < model.layers; ++i) {
    const int moe = models::is_moe_layer(model, i) ? 1 : 0;
    if (moe != current) {
      flush();
      current = moe;
      run = 0;
    }
    ++run;
  }
  flush();
  return "(" + pattern + ")";
}

MegatronLaunch megatron_launch(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                               const planning::Layout& layout, MegatronSharding sharding) {
  const auto& p = layout.parallelism;
  const auto& t = layout.training;
  MegatronLaunch launch;
  launch.nproc_per_node = cluster.gpus_per_node;
  launch.nnodes = cluster.num_gpus / cluster.gpus_per_node;
  launch.arguments.world_size = launch.nnodes * launch.nproc_per_node;
  Flags f(launch.arguments);
  add_model_flags(model, layout, f, launch.notes);

  f.add("--tensor-model-parallel-size", p.tp);
  f.add("--pipeline-model-parallel-size", p.pp);
  add_pipeline_flags(model, p, f);
  if (p.cp > 1) f.add("--context-parallel-size", p.cp);
  // Transformer Engine's spelling, which Megatron-Core hands it as given.
  if (p.cp > 1 && p.cp_comm != models::CpComm::p2p)
    f.add("--cp-comm-type", std::string(models::cp_comm_name(p.cp_comm)));
  if (p.cp > 1 && p.cp_comm == models::CpComm::a2a_p2p)
    f.add("--hierarchical-context-parallel-sizes", fmt::format("{} {}", p.cp_a2a_ranks, p.cp / p.cp_a2a_ranks));
  if (!nccl_communicator_config(p).empty())
    f.add("--nccl-communicator-config-path", std::string(kNcclCommunicatorConfigFile));
  if (p.sp && p.tp > 1) f.add("--sequence-parallel");
  if (p.tp_comm_overlap) f.add("--tp-comm-overlap");
  if (models::is_moe(model)) {
    f.add("--expert-model-parallel-size", p.ep);
    f.add("--expert-tensor-parallel-size", p.etp);
    if (p.ep_comm_overlap) f.add("--overlap-moe-expert-parallel-comm");
  }

  f.add("--micro-batch-size", t.micro_batch);
  f.add("--global-batch-size", t.global_batch);
  const auto samples = static_cast<std::int64_t>(std::llround(t.tokens / static_cast<double>(t.seq_len)));
  f.add("--train-samples", samples);
  f.add("--lr", std::string(kPlaceholderLr));
  f.add("--min-lr", std::string(kPlaceholderMinLr));
  f.add("--lr-decay-style", "cosine");
  f.add("--lr-warmup-fraction", std::string(kPlaceholderWarmupFraction));
  launch.notes.push_back(fmt::format("--lr {}, --min-lr {}, cosine decay and {} warm-up are placeholders (Megatron-LM's "
                                     "Llama 3 8B example's); training.tokens {} is --train-samples {} of {} tokens",
                                     kPlaceholderLr, kPlaceholderMinLr, kPlaceholderWarmupFraction, number(t.tokens),
                                     samples, t.seq_len));

  switch (t.recompute) {
    case models::Recompute::none: break;
    case models::Recompute::selective: f.add("--recompute-granularity", "selective"); break;
    case models::Recompute::full:
      f.add("--recompute-granularity", "full");
      f.add("--recompute-method", "uniform");
      f.add("--recompute-num-layers", 1);
      break;
    case models::Recompute::op:
      f.add("--recompute-granularity", "selective");
      launch.notes.push_back("training.recompute op (torchtitan's op-level checkpointing) has no Megatron-LM form: "
                             "exported as selective recomputation, which recomputes the attention core only");
      break;
  }

  // Data-parallel sharding: the distributed optimizer for ZeRO-1, Megatron-FSDP for ZeRO-2, torch
  // FSDP2 or Megatron-FSDP for ZeRO-3.
  const bool zero3_fsdp2 = p.zero >= 3 && sharding == MegatronSharding::as_layout &&
                           p.sharding == models::ShardingFramework::fsdp2;
  const bool use_megatron_fsdp = p.zero == 2 || (p.zero >= 3 && !zero3_fsdp2);
  if (p.zero == 1) {
    f.add("--use-distributed-optimizer");
  } else if (use_megatron_fsdp) {
    f.add("--use-megatron-fsdp");
    f.add("--data-parallel-sharding-strategy", p.zero == 2 ? "optim_grads" : "optim_grads_params");
    f.add("--use-distributed-optimizer");  // Megatron-FSDP v1 runs on it (arguments.py turns it on)
    f.add("--ckpt-format", "fsdp_dtensor");
    if (p.zero == 2)
      launch.notes.push_back("ZeRO-2 is Megatron-FSDP's optim_grads strategy (sharded optimizer state and gradients): "
                             "Megatron-LM's distributed optimizer shards only the optimizer state");
    if (p.zero >= 3 && p.sharding != models::ShardingFramework::megatron_fsdp && p.sharding != models::ShardingFramework::fsdp2)
      launch.notes.push_back(fmt::format("parallelism.sharding {} has no Megatron-LM form: ZeRO-3 is exported as "
                                         "Megatron-FSDP, which gathers whole layers",
                                         models::sharding_name(p.sharding)));
  } else if (zero3_fsdp2) {
    f.add("--use-torch-fsdp2");
    f.add("--no-gradient-accumulation-fusion");
    f.add("--ckpt-format", "torch_dist");
    if (!t.overlap_grad_reduce || !t.overlap_param_gather)
      launch.notes.push_back("torch FSDP2 always overlaps its gathers and reduce-scatters: training.overlap_* false "
                             "has no Megatron-LM flag");
  }
  if (p.shard_group > 0)
    launch.notes.push_back(fmt::format("hybrid sharding in groups of {} is not exported (Megatron-FSDP's HSDP needs "
                                       "--num-distributed-optimizer-instances and an outer sharding strategy)",
                                       p.shard_group));
  if (!zero3_fsdp2) {
    if (t.overlap_grad_reduce) f.add("--overlap-grad-reduce");
    if (t.overlap_param_gather && t.overlap_grad_reduce && (p.zero >= 1)) f.add("--overlap-param-gather");
  }
  if (t.grad_dtype == models::GradDtype::bf16) f.add("--grad-reduce-in-bf16");
  if (!zero3_fsdp2 && p.zero < 2) {
    if (t.grad_accumulation == models::GradAccumulation::main_grad_add) f.add("--no-gradient-accumulation-fusion");
    if (t.grad_accumulation == models::GradAccumulation::autograd ||
        t.grad_accumulation == models::GradAccumulation::fp32_cast_add)
      launch.notes.push_back(fmt::format("training.grad_accumulation {} has no Megatron-LM form: it fuses the "
                                         "accumulation into the weight-gradient GEMM, or adds into main_grad with "
                                         "--no-gradient-accumulation-fusion (main_grad_add)",
                                         models::grad_accumulation_name(t.grad_accumulation)));
  }
  if (t.grad_bucket_params > 0) f.add("--ddp-bucket-size", t.grad_bucket_params);

  f.add("--bf16");
  if (t.precision == models::Precision::nvfp4) {
    f.add("--fp4-format", "e2m1");
    f.add("--fp4-recipe", "nvfp4");
  }
  // Each expert's rows padded to the fp8 (fp4) GEMM's alignment in the routing map, as the model
  // pads them, rather than by Transformer Engine's Fp8Padding copy of the permuted rows (Megatron-Core's
  // MoE guide sets it, as --moe-router-padding-for-fp8, the older alias, in both its fp8 examples).
  if (models::is_moe(model) && models::low_precision_gemms(t.precision))
    f.add("--moe-router-padding-for-quantization");
  if (t.fp8_attention)
    launch.notes.push_back("training.fp8_attention has no Megatron-LM flag (arguments.py lists "
                           "fp8_dot_product_attention among the TransformerConfig fields without one): set "
                           "TransformerConfig.fp8_dot_product_attention in the model provider");
  if (t.precision == models::Precision::fp8) {
    f.add("--fp8-format", "hybrid");
    f.add("--fp8-recipe", std::string(fp8_recipe_flag(t.fp8_recipe)));
    if (t.fp8_param_gather) f.add("--fp8-param-gather");
    if (t.fp8_param_gather && zero3_fsdp2)
      launch.notes.push_back("--fp8-param-gather under --use-torch-fsdp2: Megatron-LM turns it off with Transformer "
                             "Engine 2.0 and later (arguments.py) and gathers bf16");
    if (!t.fp8_backward)
      launch.notes.push_back("training.fp8_backward false (bf16 dgrad and wgrad GEMMs) has no Megatron-LM flag");
  }
  if (t.defer_embedding_wgrad) {
    f.add("--defer-embedding-wgrad-compute");
    if (t.wgrad_deferral_limit > 0) f.add("--wgrad-deferral-limit", t.wgrad_deferral_limit);
  }
  note_fsdp_sync_keys(t, "Megatron-LM", launch.notes);
  note_repeat_kv(t, "Megatron-LM", launch.notes);
  if (t.pipeline_runs > 1)
    launch.notes.push_back(fmt::format("training.pipeline_runs {} is not exported: Megatron-LM runs a step's "
                                       "micro-batches as one pipeline schedule",
                                       t.pipeline_runs));
  if (t.bf16_params)
    launch.notes.push_back("training.bf16_params (bf16 parameters, no fp32 master) is not exported: Megatron-LM keeps "
                           "fp32 main parameters");
  if (!t.fp32_loss)
    launch.notes.push_back("training.fp32_loss false has no Megatron-LM flag: its cross-entropy upcasts the logits to fp32");
  if (t.cross_entropy == models::CrossEntropyKernel::fused) f.add("--cross-entropy-loss-fusion");
  if (!t.rope_fusion && models::rotary_positions(model)) f.add("--no-rope-fusion");
  if (t.cross_entropy == models::CrossEntropyKernel::eager)
    launch.notes.push_back("training.cross_entropy eager has no Megatron-LM flag: its vocab-parallel cross-entropy "
                           "works in place (inplace), or fused under --cross-entropy-loss-fusion");
  f.add("--attention-backend", std::string(attention_backend(t.attention)));
  if (t.cuda_graphs) f.add("--cuda-graph-impl", "local");

  // Before Blackwell, Megatron-LM asks for one device connection with TP or CP (kernels in issue
  // order) and for more than one with FSDP (megatron_lm_rules.cpp).
  const bool fsdp = use_megatron_fsdp || zero3_fsdp2;
  if ((p.tp > 1 || p.cp > 1) && !fsdp) launch.arguments.env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1";
  return launch;
}

std::string nccl_communicator_config(const models::ParallelismSpec& p) {
  const bool cp_held = p.cp > 1 && p.cp_max_ctas > 0;
  const bool dp_held = p.dp * p.cp > 1 && p.dp_max_ctas > 0;
  if (!cp_held && !dp_held) return {};
  std::string yaml = "# NCCL options per Megatron-Core process group (parallel_state.get_nccl_options)\n";
  const auto group = [&yaml](std::string_view name, std::int64_t ctas) {
    yaml += fmt::format("{}:\n  min_ctas: 1\n  max_ctas: {}\n", name, ctas);
  };
  if (cp_held) group(megatron_cp_process_group(p.cp_comm), p.cp_max_ctas);
  if (dp_held) {
    group("dp", p.dp_max_ctas);
    group("dp_cp", p.dp_max_ctas);
  }
  return yaml;
}

std::string megatron_script(const MegatronLaunch& launch) {
  std::string script = "#!/bin/bash\n";
  for (const auto& [name, value] : launch.arguments.env) script += fmt::format("export {}={}\n", name, value);
  script += fmt::format("torchrun --nnodes {} --nproc-per-node {}", launch.nnodes, launch.nproc_per_node);
  if (launch.nnodes > 1) script += " --node-rank ${NODE_RANK} --master-addr ${MASTER_ADDR} --master-port 29500";
  script += " pretrain_gpt.py";
  for (const auto& [flag, value] : launch.arguments.flags) {
    script += " \\\n  " + flag;
    if (value.empty()) continue;
    // Quote what bash would expand (a layout's '|', a pattern's '(' and '*'); a flag of several
    // values (nargs='+') is its words, unquoted, as Megatron-LM's parser wants them.
    const bool plain = value.find_first_of("|()*[]$;&<>'\"") == std::string::npos;
    script += plain ? " " + value : " '" + value + "'";
  }
  return script + "\n";
}

}  // namespace clustersim::handoff
