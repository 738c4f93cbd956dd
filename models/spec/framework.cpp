#include "models/spec/framework.hpp"

#include <array>
#include <stdexcept>

#include "models/spec/moe.hpp"

namespace clustersim::models {
namespace {

constexpr std::string_view kNoExperts = "Megatron-LM before Megatron-Core has no mixture-of-experts layers";
constexpr std::string_view kOneReducePolicy =
    "one reduce dtype for every parameter: the sharding set's under ZeRO-3 (torchtitan's mixed_precision_reduce "
    "covers the experts too)";
constexpr std::string_view kSymmetricMemoryReduce =
    "PyTorch's micro-pipeline TP runs a matmul fused with its reduce-scatter as fused_matmul_reduce_scatter: each "
    "rank's chunk matmuls go into a stacked buffer, the chunks are exchanged, and reduce_fn (torch.sum over the "
    "ranks) runs after them on the current stream (torch/distributed/_symmetric_memory/__init__.py, "
    "_fused_matmul_reduce_scatter_impl)";
constexpr std::string_view kNoTpOverlap = "no tensor-parallel overlap in this framework";
constexpr std::string_view kExpertBiasUnread =
    "not read: taken as added inside the grouped GEMM, at no extra pass";
constexpr std::string_view kTeAttention =
    "Transformer Engine's attention backend choice (pytorch/attention/dot_product_attention/utils.py, "
    "get_attention_backend): FusedAttention (cuDNN) over FlashAttention on sm90 and later, 'for performance "
    "reasons'; on Ampere FlashAttention-2, whose rate the A100 profile's cuDNN slot holds";
constexpr std::string_view kMegatronFusedKernels =
    "Megatron-LM's fused kernels: fused layer norm, bias-GeLU / SwiGLU, bias-dropout-add and rotary embedding "
    "(megatron/core/fusions), or Transformer Engine's layers";
constexpr std::string_view kMegatronFp32Grads =
    "Megatron-LM reduces gradients in fp32 unless --grad-reduce-in-bf16 (megatron/training/arguments.py: "
    "accumulate_allreduce_grads_in_fp32 is forced on for bf16)";
constexpr std::string_view kMegatronFusedAccumulation =
    "Megatron-LM's gradient_accumulation_fusion, on by default since 2022-02-13 (commit 83b1e42; "
    "--no-gradient-accumulation-fusion turns it off): the weight-gradient GEMM adds into the fp32 main_grad, "
    "through Transformer Engine's fuse_wgrad_accumulation in Megatron-Core";
constexpr std::string_view kAutogradAccumulation =
    "PyTorch's AccumulateGrad adds each micro-batch's gradient into the parameter's .grad in place; no "
    "framework hook fuses it into the weight-gradient GEMM";
constexpr std::string_view kSdpaFlash =
    "torch.nn.functional.scaled_dot_product_attention picks its flash backend (PyTorch's build of "
    "FlashAttention-2): cuDNN attention is opt-in since PyTorch 2.5.1 (pytorch/pytorch#138522)";
constexpr std::string_view kEagerModules =
    "plain PyTorch modules, one kernel per op, unless torch.compile is on (a row or scenario that says so sets "
    "elementwise=fused)";

constexpr std::string_view kMegatronSelective =
    "Megatron-LM's --recompute-activations: the attention core (Korthikanti et al. 2022)";
constexpr std::string_view kTeDelayedScaling = "Transformer Engine's DelayedScaling, Megatron-LM's --fp8-recipe default";
constexpr std::string_view kMegatronFp32Loss =
    "Megatron-Core's vocab-parallel cross-entropy upcasts the logits (tensor_parallel/cross_entropy.py, "
    "calculate_logits_max: vocab_parallel_logits.float())";
constexpr std::string_view kMegatronCrossEntropy =
    "Megatron's vocab-parallel cross-entropy op by op (core/tensor_parallel/cross_entropy.py): the fp32 logits "
    "shifted, exponentiated and divided in place and saved as the softmax, whose buffer the backward turns into "
    "the gradient; the jit-fused variant only under --cross-entropy-loss-fusion, off by default "
    "(ModelParallelConfig.cross_entropy_loss_fusion = False)";
constexpr std::string_view kMegatronNoCompile =
    "Megatron fuses its elementwise kernels by hand, without torch.compile: the loss keeps its own kernel";
constexpr std::string_view kAlreadyFused = "its cross-entropy is one fused kernel either way";
constexpr std::string_view kMegatronMainParams =
    "Megatron's mixed-precision optimizers keep fp32 main parameters beside the bf16 model "
    "(Float16OptimizerWithFloat16Params, DistributedOptimizer)";
constexpr std::string_view kTeKeepsFp8Inputs =
    "Transformer Engine's fp8 layers save the cast input for the weight-gradient GEMM, not the bf16 one "
    "(v1.8 pytorch/module/linear.py: saved_inputmat is the fp8 inputmat unless "
    "override_linear_precision.wgrad; layernorm_linear.py and layernorm_mlp.py save the fp8 ln_out and the fp8 "
    "activation output); Transformer Engine 2 keeps the quantized tensor's column-wise data the same way";

constexpr std::string_view kMegatronLossIsItsOwn =
    "Megatron's loss is its own vocab-parallel cross-entropy (training.cross_entropy inplace or fused), never "
    "PyTorch's eager one";
constexpr std::string_view kTorchtitanLossParallel =
    "torchtitan enables loss_parallel whenever TP > 1 (parallel_dims.loss_parallel_enabled: tp > 1 and not "
    "--training.disable_loss_parallel, off by default; the output layer keeps its logits Shard(-1): "
    "parallelize_llama.py @9dec370): PyTorch's torch/distributed/tensor/parallel/loss.py then runs log_softmax as "
    "amax, all-reduce, subtract, exp, sum, all-reduce, log, subtract, and the backward as zeros_like, the target's "
    "scatter and (grad_input + exp(x)) * grad_output";
constexpr std::string_view kFoundryLossFused = "llm-foundry's loss is flash-attn's fused cross-entropy";
constexpr std::string_view kAutomodelNoLossParallel =
    "NeMo Automodel builds its train context with enable_loss_parallel False "
    "(components/distributed/context_parallel/sharder.py @36044ad)";
constexpr std::string_view kMegatronPipelineBuffers =
    "Megatron's pipeline schedules (core/pipeline_parallel/schedules.py, p2p_communication.py) receive each "
    "transfer into a tensor made for it, which the chunk's first layer then saves, and free a sent output's data "
    "(deallocate_output_tensor)";
constexpr std::string_view kTorchPipelining =
    "torch.distributed.pipelining (torch/distributed/pipelining/stage.py): _prepare_forward_infra and "
    "_prepare_backward_infra allocate a receive buffer per micro-batch for the stage's input and for its output "
    "gradient, kept across steps; forward_one_chunk keeps each output in fwd_cache until its backward and, on "
    "the last stage, in output_chunks until the step ends";
constexpr std::string_view kFoundryNoPipeline = "llm-foundry (Composer) has no pipeline parallelism";
constexpr std::string_view kAutomodelPipelining =
    "NeMo Automodel pipelines with torch.distributed.pipelining's PipelineStage "
    "(components/distributed/pipelining/autopipeline.py @36044ad)";
constexpr std::string_view kDeepSpeedBlockingP2p =
    "DeepSpeed's pipeline engine sends and receives synchronously (deepspeed/runtime/pipe/p2p.py: send and recv "
    "assert async_op == False and call dist.send / dist.recv), each PipeInstruction in turn on the stage's "
    "stream";
constexpr std::string_view kMegatronLmBlockingP2p =
    "Megatron-LM before Megatron-Core exchanges with batch_isend_irecv, waits on every request and then calls "
    "torch.cuda.synchronize() (megatron/p2p_communication.py _communicate: 'To protect against race condition "
    "when using batch_isend_irecv()')";
constexpr std::string_view kMegatronCoreAsyncP2p =
    "beside the next pass: Megatron-Core overlaps its interleaved schedule's exchanges "
    "(--overlap-p2p-communication), which its pipelined runs use; its non-interleaved 1F1B still synchronises "
    "after each batched exchange (batch_p2p_sync), which this set leaves out";
constexpr std::string_view kTorchPipeliningAsyncSends =
    "torch.distributed.pipelining's schedules post sends with batch_isend_irecv and wait on them only before the "
    "stage's next sends (schedules.py fwd_sends_to_wait, bwd_sends_to_wait)";
constexpr std::string_view kMegatronRegathers =
    "Megatron-LM's column-parallel linear under sequence parallelism saves its input shard and all-gathers it "
    "again in the backward for the weight gradient (megatron/core/tensor_parallel/layers.py, "
    "LinearWithGradAccumulationAndAsyncCommunication; Transformer Engine's Linear the same: "
    "backward_input_needs_gather)";
constexpr std::string_view kDTensorKeepsGathered =
    "PyTorch's tensor parallelism (DTensor ColwiseParallel after SequenceParallel) all-gathers the input to a "
    "replicated tensor that the matmul's autograd node saves (derivatives.yaml, mm: the backward of mat2 needs "
    "self), so the gathered s b h stays on every TP rank";
constexpr std::string_view kTeBulkDgradReduce =
    "Transformer Engine's userbuffers run the reduce-scatter of the fused QKV and FC1 GEMMs' input gradient "
    "beside their weight-gradient GEMM (Megatron-Core model_parallel_config.py: tp_comm_bulk_dgrad, on by "
    "default, passed as ub_bulk_dgrad)";
constexpr std::string_view kMicroPipelineTp =
    "PyTorch's micro-pipeline TP pass fuses a reduce-scatter only with the one matmul that produces its input "
    "(torch/_inductor/fx_passes/micro_pipeline_tp.py, fuse_matmul_reduce_scatter); a model with separate q, k, v "
    "and gate, up linears (torchtitan's Llama) reduce-scatters a sum of matmuls in the backward, which stays on "
    "the stream";
constexpr std::string_view kMegatronFusedQkv =
    "Megatron's attention projects q, k and v with one column-parallel linear (query_key_value in "
    "megatron/model/transformer.py; linear_qkv in Megatron-Core's SelfAttention)";
constexpr std::string_view kMegatronFusedFc1 =
    "with --swiglu Megatron's first MLP linear is twice the FFN width, gate and up in one GEMM (dense_h_to_4h in "
    "megatron/model/transformer.py; linear_fc1 under gated_linear_unit in Megatron-Core's MLP)";
constexpr std::string_view kHfSeparateQkv =
    "Hugging Face-style attention with q_proj, k_proj and v_proj linears (NVIDIA-NeMo/Automodel @89e3a9fd, "
    "components/models/qwen3_moe/layers.py and gpt_oss/layers.py; DeepSeek-V3's latent projections are "
    "separate in every framework)";
constexpr std::string_view kHfSeparateGateUp =
    "the dense and shared-expert MLP keeps gate_proj and up_proj apart (NVIDIA-NeMo/Automodel @89e3a9fd, "
    "components/moe/layers.py MLP); its routed experts fuse them (GroupedExperts gate_and_up_projs)";

constexpr std::string_view kMegatronAsyncInputGrad =
    "Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication starts the input gradient's reduction "
    "(all-reduce, or reduce-scatter under sequence parallelism) and runs the weight-gradient GEMM beside it "
    "(megatron/core/tensor_parallel/layers.py); QKV and the first MLP projection are one GEMM each";

constexpr std::string_view kMegatronAsyncBackward =
    "Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication.backward under sequence parallelism starts "
    "the all-gather of the saved input (async_op=True) before the input-gradient GEMM and the reduce-scatter of "
    "that gradient before the weight-gradient GEMM, waiting on each after (megatron/mpu/layers.py @d63c254, "
    "2022-08; megatron/core/tensor_parallel/layers.py since)";
constexpr std::string_view kTeAsyncBackward =
    "Transformer Engine's column-parallel LayerNormLinear and Linear backward under sequence parallelism: "
    "gather_along_first_dim(ln_out, async_op=True) before the dgrad GEMM, reduce_scatter_along_first_dim(dgrad, "
    "async_op=True) before the wgrad GEMM (v1.8 pytorch/module/layernorm_linear.py and linear.py)";
constexpr std::string_view kDTensorOnStream =
    "PyTorch's DTensor redistributes in the backward wait for their collective before the next op (functional "
    "collectives, no async hand-off to a later GEMM); async TP (parallelism.tp_comm_overlap) is its overlap";

constexpr std::string_view kMegatronSequenceFirst =
    "Megatron-LM keeps activations sequence first ([s, b, h]), so its sequence-parallel gathers and "
    "reduce-scatters work on NCCL's own dimension (megatron/core/tensor_parallel/mappings.py: "
    "_gather_along_first_dim, _reduce_scatter_along_first_dim)";
constexpr std::string_view kDTensorSequenceSecond =
    "PyTorch's SequenceParallel shards [b, s, h] on dim 1: functional collectives' all_gather_tensor "
    "concatenates the gathered chunks again along dim 1 (torch.cat, a copy unless every dim before it is 1, "
    "i.e. micro-batch 1) and reduce_scatter_tensor concatenates its input's dim-1 chunks along dim 0 before "
    "the collective, a copy always (torch/distributed/_functional_collectives.py)";

constexpr std::string_view kDistributedOptimizerReduceScatter =
    "Megatron's distributed optimizer reduce-scatters the gradient buckets into each rank's shard "
    "(megatron/core/distributed/param_and_grad_buffer.py: reduce_scatter_tensor under "
    "use_distributed_optimizer)";
constexpr std::string_view kMcoreParamGather =
    "Megatron-Core's distributed optimizer under --overlap-param-gather: each bucket's all-gather is dispatched "
    "from the forward pre-hook of the bucket before it and waited for by its own "
    "(core/distributed/distributed_data_parallel.py _make_forward_pre_hook, finish_param_sync)";
constexpr std::string_view kNoZeroParamGather =
    "no ZeRO-1 or 2 of its own (it shards with FSDP): the gather beside the forward, as Megatron-Core's "
    "--overlap-param-gather runs it, stands in";
constexpr std::string_view kNoZero1 =
    "no ZeRO-1 of its own (it shards with FSDP): parallelism.zero=1 stands for a reduce-scatter into the shard, "
    "as Megatron's distributed optimizer does";

constexpr std::string_view kTeP2p =
    "Megatron-Core's cp_comm_type defaults to p2p (megatron/training/arguments.py --cp-comm-type, default "
    "[\"p2p\"]): Transformer Engine passes the key/value blocks around a ring, each hop beside the attention "
    "of the block before it";
constexpr std::string_view kTeGatherExposed =
    "Transformer Engine's AttnFuncWithCPAndKVAllGather gathers K and V before the attention and again in the "
    "backward, then reduce-scatters their gradients, all on the compute stream ('KV all-gather between CP ranks "
    "is exposed'; Megatron-Core's TransformerConfig.cp_comm_type: 'not async, and cannot be overlapped')";
constexpr std::string_view kNoContextParallel =
    "the framework has no context parallelism of its own: Megatron-Core's default, p2p, stands in";

constexpr std::string_view kTeNormFusedCast =
    "Megatron-Core's Transformer Engine layer spec runs linear_qkv and a dense MLP's linear_fc1 as "
    "TELayerNormColumnParallelLinear (core/models/gpt/gpt_layer_specs.py), whose LayerNormLinear writes the "
    "norm's output as the GEMM's fp8 input under delayed scaling (Transformer Engine v1.4-1.8 module/"
    "layernorm_linear.py: _apply_normalization with fp8 output; the backward makes the wgrad GEMM's transposed "
    "copy with tex.fp8_transpose of ln_out_total; v2 the same through its quantized norm)";
constexpr std::string_view kSeparateNorms =
    "the norms are modules of their own: each fp8 linear layer casts its bf16 input";

constexpr std::array kSets{
    FrameworkParameters{
        .framework = Framework::megatron_core,
        .attention = {AttentionKernel::cudnn, kTeAttention},
        .elementwise = {ElementwiseKernels::fused, kMegatronFusedKernels},
        .grad_dtype = {GradDtype::fp32, kMegatronFp32Grads},
        .grad_accumulation = {GradAccumulation::fused, kMegatronFusedAccumulation},
        .sharding = {ShardingFramework::fsdp2,
                     "Megatron-LM shards parameters with PyTorch FSDP2 under --use-torch-fsdp2; its own Megatron-FSDP "
                     "(--use-megatron-fsdp) is parallelism.sharding=megatron_fsdp"},
        .fp8_recipe = {Fp8Recipe::delayed, kTeDelayedScaling},
        .selective_recompute = {Recompute::selective, kMegatronSelective},
        .fp32_loss = {true, kMegatronFp32Loss},
        .cross_entropy = {CrossEntropyKernel::inplace, kMegatronCrossEntropy},
        .compile_fuses_loss = {false, kMegatronNoCompile},
        .rope_fusion = {true,
                        "Megatron-LM's --no-rope-fusion (megatron/training/arguments.py: store_false into "
                        "apply_rope_fusion) leaves Transformer Engine's fused RoPE kernel on unless given"},
        .bf16_params = {false, kMegatronMainParams},
        .fp8_keeps_quantized_inputs = {true, kTeKeepsFp8Inputs},
        .tp_keeps_gathered_inputs = {false, kMegatronRegathers},
        .tp_loss_parallel = {false, kMegatronLossIsItsOwn},
        .pp_stage_buffers = {false, kMegatronPipelineBuffers},
        .pp_blocking_sends = {false, kMegatronCoreAsyncP2p},
        .tp_collectives_copy_sequence = {false, kMegatronSequenceFirst},
        .tp_overlap_hides_input_grad_reduce = {true, kTeBulkDgradReduce},
        .tp_backward_collectives_beside_gemms = {true, kTeAsyncBackward},
        .zero1_all_reduces_gradients = {false, kDistributedOptimizerReduceScatter},
        .zero_param_gather_beside_forward = {true, kMcoreParamGather},
        .cp_comm = {CpComm::p2p, kTeP2p},
        .cp_gather_beside_local_block = {false, kTeGatherExposed},
        .expert_bias_eager = {false, "Transformer Engine's GroupedLinear hands the experts' biases to its grouped GEMM "
                                     "(general_grouped_gemm's bias, a cuBLAS epilogue)"},
        .moe_blocks_reduce_fp32 = {false, kOneReducePolicy},
        .tp_overlap_reduces_on_stream = {false,
                                         "Transformer Engine's userbuffers reduce-scatter sums the GEMM chunks' partial "
                                         "outputs in its own communication kernels (ub_overlap_rs)"},
        .norm_writes_fp8_inputs = {true, kTeNormFusedCast},
        .fused_qkv = {true, kMegatronFusedQkv},
        .fused_gate_up = {true, kMegatronFusedFc1},
    },
    FrameworkParameters{
        .framework = Framework::megatron_lm,
        .attention = {AttentionKernel::unfused,
                      "Megatron-LM before 2023 (CoreAttention: baddbmm, FusedScaleMaskSoftmax, dropout, bmm); "
                      "FlashAttention appeared in 2022 (Dao et al., NeurIPS 2022) and Megatron-LM adopted it in 2023"},
        .elementwise = {ElementwiseKernels::fused, kMegatronFusedKernels},
        .grad_dtype = {GradDtype::fp32, kMegatronFp32Grads},
        .grad_accumulation = {GradAccumulation::fused, kMegatronFusedAccumulation},
        .sharding = {ShardingFramework::fsdp2,
                     "Megatron-LM had no ZeRO-3 before Megatron-Core: its later --use-torch-fsdp2 stands in"},
        .fp8_recipe = {Fp8Recipe::delayed, kTeDelayedScaling},
        .selective_recompute = {Recompute::selective, kMegatronSelective},
        .fp32_loss = {true, kMegatronFp32Loss},
        .cross_entropy = {CrossEntropyKernel::inplace, kMegatronCrossEntropy},
        .compile_fuses_loss = {false, kMegatronNoCompile},
        .rope_fusion = {true,
                        "Megatron-LM's GPT of 2021-2022 had learned absolute positions, no RoPE to fuse; its "
                        "successor's fused default stands in"},
        .bf16_params = {false, kMegatronMainParams},
        .fp8_keeps_quantized_inputs = {true, kTeKeepsFp8Inputs},
        .tp_keeps_gathered_inputs = {false, kMegatronRegathers},
        .tp_loss_parallel = {false, kMegatronLossIsItsOwn},
        .pp_stage_buffers = {false, kMegatronPipelineBuffers},
        .pp_blocking_sends = {true, kMegatronLmBlockingP2p},
        .tp_collectives_copy_sequence = {false, kMegatronSequenceFirst},
        .tp_overlap_hides_input_grad_reduce = {true, kMegatronAsyncInputGrad},
        .tp_backward_collectives_beside_gemms = {true, kMegatronAsyncBackward},
        .zero1_all_reduces_gradients = {false, kDistributedOptimizerReduceScatter},
        .zero_param_gather_beside_forward = {false,
                                             "Megatron-LM's distributed optimizer of 2022 all-gathered the updated "
                                             "parameters after its step (megatron/training.py train_step: "
                                             "optimizer.gather_model_params, at e1c334b076); --overlap-param-gather, "
                                             "which runs the gather beside the forward, came on 2023-11-17 "
                                             "(f048bf8c08)"},
        .cp_comm = {CpComm::p2p,
                    "Megatron-LM had no context parallelism before Megatron-Core: its later default, p2p, stands in"},
        .cp_gather_beside_local_block = {false, kTeGatherExposed},
        .expert_bias_eager = {false, kNoExperts},
        .moe_blocks_reduce_fp32 = {false, kNoExperts},
        .tp_overlap_reduces_on_stream = {false, kNoTpOverlap},
        .norm_writes_fp8_inputs = {false, "Megatron-LM before Megatron-Core ran no fp8"},
        .fused_qkv = {true, kMegatronFusedQkv},
        .fused_gate_up = {true, kMegatronFusedFc1},
    },
    FrameworkParameters{
        .framework = Framework::megatron_deepspeed,
        .attention = {AttentionKernel::unfused,
                      "Megatron-DeepSpeed's ParallelAttention runs the unfused core unless --use-flash-attn "
                      "(megatron/model/transformer.py)"},
        .elementwise = {ElementwiseKernels::fused, kMegatronFusedKernels},
        .grad_dtype = {GradDtype::fp32,
                       "DeepSpeed's bf16 optimizer (runtime/bf16_optimizer.py) accumulates gradients in fp32 "
                       "buffers and reduces those"},
        .grad_accumulation = {GradAccumulation::fp32_cast_add,
                              "DeepSpeed's BF16_Optimizer, as its pipeline engine runs it: after each micro-batch's "
                              "backward, update_hp_grads casts every bf16 gradient to fp32 and adds it into the fp32 "
                              "buffer (runtime/bf16_optimizer.py, pipe/engine.py _exec_backward_pass, v0.6-0.7)"},
        .sharding = {ShardingFramework::deepspeed_zero3_2021,
                     "DeepSpeed ZeRO stage 3 (runtime/zero/stage3.py); the one DeepSpeed parameter set here is its "
                     "2021 form, whose gathers were per parameter tensor"},
        .fp8_recipe = {Fp8Recipe::delayed, "Transformer Engine's DelayedScaling, where its layers are used"},
        .selective_recompute = {Recompute::selective, kMegatronSelective},
        .fp32_loss = {true, "Megatron-DeepSpeed runs Megatron's vocab-parallel cross-entropy, which upcasts to fp32"},
        .cross_entropy = {CrossEntropyKernel::inplace,
                          "Megatron-DeepSpeed runs Megatron's vocab-parallel cross-entropy op by op (megatron/mpu/"
                          "cross_entropy.py): the fp32 softmax computed and kept in place, its gradient written over it"},
        .compile_fuses_loss = {false, kMegatronNoCompile},
        .rope_fusion = {false,
                        "Megatron-DeepSpeed applies RoPE in PyTorch ops (megatron/model/rotary_pos_embedding.py "
                        "apply_rotary_pos_emb: t * cos + rotate_half(t) * sin)"},
        .bf16_params = {false, "DeepSpeed's BF16_Optimizer keeps fp32 master weights (runtime/bf16_optimizer.py)"},
        .fp8_keeps_quantized_inputs = {true, kTeKeepsFp8Inputs},
        .tp_keeps_gathered_inputs = {false, kMegatronRegathers},
        .tp_loss_parallel = {false, kMegatronLossIsItsOwn},
        .pp_stage_buffers = {false, kMegatronPipelineBuffers},
        .pp_blocking_sends = {true, kDeepSpeedBlockingP2p},
        .tp_collectives_copy_sequence = {false, kMegatronSequenceFirst},
        .tp_overlap_hides_input_grad_reduce = {true, kMegatronAsyncInputGrad},
        .tp_backward_collectives_beside_gemms = {true, kMegatronAsyncBackward},
        .zero1_all_reduces_gradients = {true,
                                        "DeepSpeed's BF16_Optimizer under the pipeline engine all-reduces the fp32 "
                                        "gradients (pipe/engine.py _bf16_reduce_grads: buffered_allreduce_fallback), "
                                        "updates its shard and all-gathers the bf16 parameters (bf16_optimizer.py "
                                        "step: all_gather_dp_groups), v0.7"},
        .zero_param_gather_beside_forward = {false,
                                             "DeepSpeed's optimizers all-gather the updated parameters inside their "
                                             "step (bf16_optimizer.py step: update_lp_params, then "
                                             "all_gather_dp_groups; zero/stage_1_and_2.py step likewise), before the "
                                             "next step's forward, v0.6-0.7"},
        .cp_comm = {CpComm::a2a,
                    "Megatron-DeepSpeed's sequence parallelism is DeepSpeed-Ulysses (--ds-sequence-parallel-size; "
                    "deepspeed/sequence/layer.py DistributedAttention: an all-to-all of q, k and v before the "
                    "attention and of its output after)"},
        .cp_gather_beside_local_block = {false, "DeepSpeed has no all-gather context parallelism: Transformer "
                                                "Engine's, exposed, stands in"},
        .expert_bias_eager = {false, "DeepSpeed MoE's experts are linear layers, whose bias F.linear adds in the GEMM's "
                                     "epilogue"},
        .moe_blocks_reduce_fp32 = {false, kOneReducePolicy},
        .tp_overlap_reduces_on_stream = {false, kNoTpOverlap},
        .norm_writes_fp8_inputs = {false, kSeparateNorms},
        .fused_qkv = {true, kMegatronFusedQkv},
        .fused_gate_up = {true, kMegatronFusedFc1},
    },
    FrameworkParameters{
        .framework = Framework::torchtitan,
        .attention = {AttentionKernel::sdpa_flash, kSdpaFlash},
        .elementwise = {ElementwiseKernels::eager, kEagerModules},
        .grad_dtype = {GradDtype::fp32,
                       "torchtitan's mixed_precision_reduce defaults to float32 (torchtitan/config/job_config.py)"},
        .grad_accumulation = {GradAccumulation::autograd, kAutogradAccumulation},
        .sharding = {ShardingFramework::fsdp2, "torchtitan shards with FSDP2 (fully_shard per transformer block)"},
        .fp8_recipe = {Fp8Recipe::current,
                       "torchao Float8Linear's default, tensorwise dynamic scaling: each tensor's own amax "
                       "(torchtitan --model.converters float8)"},
        .selective_recompute = {Recompute::op,
                                "torchtitan's selective_ac_option \"op\" (its llama3 configs' default): attention, "
                                "reduce-scatter and matmul outputs are saved except every second matmul of a block, "
                                "and the all-gathers run again in the backward "
                                "(torchtitan/distributed/activation_checkpoint.py)"},
        .fp32_loss = {true, "torchtitan's cross_entropy_loss upcasts the logits: pred.float() (components/loss.py)"},
        .cross_entropy = {CrossEntropyKernel::eager,
                          "torchtitan's cross_entropy_loss is F.cross_entropy(pred.float()) in eager PyTorch "
                          "(components/loss.py): log_softmax and nll_loss op by op"},
        .compile_fuses_loss = {true,
                               "build_cross_entropy_loss compiles the loss when training.compile is on, since "
                               "2025-04-02 (pytorch/torchtitan bbb1b616e); before, train.py left it eager "
                               "('compiling loss function causes CUDA errors', @9dec370)"},
        .rope_fusion = {false,
                        "torchtitan applies RoPE op by op (models/llama3/model.py apply_rotary_emb: view_as_complex "
                        "of the fp32 upcast, the multiply, the cast back); torch.compile fuses it with its neighbours"},
        .bf16_params = {false, "torchtitan builds the model in fp32 and FSDP2 shards that; bf16 is only the "
                                 "gathered copy (mixed_precision_param)"},
        .fp8_keeps_quantized_inputs = {false,
                                       "torchao's Float8Linear saves the high-precision input and weight "
                                       "(float8_linear.py, matmul_with_hp_or_float8_args: "
                                       "ctx.save_for_backward(input_hp, weight_hp_t)) and casts them again in "
                                       "its backward"},
        .tp_keeps_gathered_inputs = {true, kDTensorKeepsGathered},
        .tp_loss_parallel = {true, kTorchtitanLossParallel},
        .pp_stage_buffers = {true, kTorchPipelining},
        .pp_blocking_sends = {false, kTorchPipeliningAsyncSends},
        .tp_collectives_copy_sequence = {true, kDTensorSequenceSecond},
        .tp_overlap_hides_input_grad_reduce = {false, kMicroPipelineTp},
        .tp_backward_collectives_beside_gemms = {false, kDTensorOnStream},
        .zero1_all_reduces_gradients = {false, kNoZero1},
        .zero_param_gather_beside_forward = {true, kNoZeroParamGather},
        .cp_comm = {CpComm::all_gather,
                    "torchtitan's parallelism.context_parallel_rotate_method defaults to allgather (PyTorch's "
                    "context_parallel, torch/distributed/tensor/experimental/_attention.py _AllGatherRotater: one "
                    "all-gather of K and V a pass)"},
        .cp_gather_beside_local_block = {true,
                                         "PyTorch's _templated_ring_attention issues the all-gather before the "
                                         "attention of the local block and waits for it after that block "
                                         "(exchange_buffers at step 0, next_buffer at step 1); its backward "
                                         "gathers K and V the same way and passes the key/value gradients around "
                                         "a ring (ALL_TO_ALL rotater) in fp32 (_cp_options.convert_to_f32)"},
        .expert_bias_eager = {false, kExpertBiasUnread},
        .moe_blocks_reduce_fp32 = {false, kOneReducePolicy},
        .tp_overlap_reduces_on_stream = {true, kSymmetricMemoryReduce},
        .norm_writes_fp8_inputs = {false,
                                   "torchao's Float8Linear casts its bf16 input (torch.compile may fuse the cast into "
                                   "the norm kernel, not modelled)"},
        .fused_qkv = {false,
                      "torchtitan's Llama has wq, wk and wv linears (torchtitan/models/llama3/model.py Attention, as "
                      "at 820504e, 2025-06; models/common/attention.py QKVLinear since, FusedQKVLinear only under "
                      "make_gqa_config's fuse_qkv, off by default, from ad7a86533, 2026-04-16); torch.compile leaves "
                      "them apart (Inductor's linear batching, fx_passes/group_batch_fusion.py, takes sets of at "
                      "least five)"},
        .fused_gate_up = {false, "torchtitan's FeedForward has its w1 (gate) and w3 (up) linears apart "
                                 "(torchtitan/models/llama3/model.py)"},
    },
    FrameworkParameters{
        .framework = Framework::llm_foundry,
        .attention = {AttentionKernel::flash2,
                      "llm-foundry's attn_impl: flash calls the flash-attn package (FlashAttention-2)"},
        .elementwise = {ElementwiseKernels::eager, kEagerModules},
        .grad_dtype = {GradDtype::bf16,
                       "Composer FSDP mixed_precision PURE, as llm-foundry's example configs set it: parameters, "
                       "gradients and their reduction in bf16"},
        .grad_accumulation = {GradAccumulation::autograd, kAutogradAccumulation},
        .sharding = {ShardingFramework::fsdp1,
                     "Composer wraps the model with PyTorch FSDP1 (FullyShardedDataParallel, FULL_SHARD)"},
        .fp8_recipe = {Fp8Recipe::delayed,
                       "Composer runs fp8 through Transformer Engine's fp8_autocast with DelayedScaling"},
        .selective_recompute = {Recompute::full,
                                "llm-foundry's activation_checkpointing wraps whole blocks; it has no finer policy"},
        .fp32_loss = {true, "Composer's bf16 autocast runs cross_entropy in fp32 (an autocast fp32 op)"},
        .cross_entropy = {CrossEntropyKernel::fused,
                          "llm-foundry's loss_fn defaults to fused_crossentropy: flash-attn's CrossEntropyLoss, one "
                          "kernel each way (llmfoundry/models/mpt/modeling_mpt.py, ComposerMPTCausalLM)"},
        .compile_fuses_loss = {true, kAlreadyFused},
        .rope_fusion = {true,
                        "llm-foundry's attn_config rope_impl defaults to dail, the flash-attn package's fused "
                        "rotary kernel (llmfoundry/models/mpt/configuration_mpt.py)"},
        .bf16_params = {false, "FSDP1 keeps the flat parameter's shard in full precision (see sharding)"},
        .fp8_keeps_quantized_inputs = {true, kTeKeepsFp8Inputs},
        .tp_keeps_gathered_inputs = {true, kDTensorKeepsGathered},
        .tp_loss_parallel = {false, kFoundryLossFused},
        .pp_stage_buffers = {false, kFoundryNoPipeline},
        .pp_blocking_sends = {false, kFoundryNoPipeline},
        .tp_collectives_copy_sequence = {true, kDTensorSequenceSecond},
        .tp_overlap_hides_input_grad_reduce = {true,
                                               "llm-foundry's MPT blocks run Wqkv and a plain MLP's up_proj as one "
                                               "linear each, so PyTorch's micro-pipeline TP pass can fuse each input "
                                               "gradient's reduce-scatter with the matmul that produces it "
                                               "(torch/_inductor/fx_passes/micro_pipeline_tp.py); under MPTGLU the "
                                               "MLP's is a sum of two matmuls (fused_gate_up), taken as hidden too"},
        .tp_backward_collectives_beside_gemms = {false, kDTensorOnStream},
        .zero1_all_reduces_gradients = {false, kNoZero1},
        .zero_param_gather_beside_forward = {true, kNoZeroParamGather},
        .cp_comm = {CpComm::p2p, kNoContextParallel},
        .cp_gather_beside_local_block = {false, kTeGatherExposed},
        .expert_bias_eager = {false, kExpertBiasUnread},
        .moe_blocks_reduce_fp32 = {false, kOneReducePolicy},
        .tp_overlap_reduces_on_stream = {true, kSymmetricMemoryReduce},
        .norm_writes_fp8_inputs = {false, kSeparateNorms},
        .fused_qkv = {true, "llm-foundry's attention runs one Wqkv linear (attn_config fused_qkv defaults to "
                             "True, llmfoundry/models/layers/attention.py)"},
        .fused_gate_up = {false, "llm-foundry's MPTGLU adds a gate_proj linear beside MPTMLP's up_proj "
                                 "(llmfoundry/models/layers/ffn.py)"},
    },
    FrameworkParameters{
        .framework = Framework::nemo_automodel,
        .attention = {AttentionKernel::cudnn,
                      "NeMo Automodel's BackendConfig attn defaults to te (Transformer Engine's DotProductAttention: "
                      "cuDNN fused attention on Hopper): NVIDIA-NeMo/Automodel @037e04a, "
                      "components/models/common/te_utils.py"},
        .elementwise = {ElementwiseKernels::fused,
                        "BackendConfig defaults rms_norm te and rope_fusion on: Transformer Engine's fused kernels"},
        .grad_dtype = {GradDtype::bf16,
                       "FSDP2Manager's MixedPrecisionPolicy reduces in bfloat16 (NVIDIA-NeMo/Automodel @037e04a, "
                       "components/distributed/fsdp2.py)"},
        .grad_accumulation = {GradAccumulation::autograd, kAutogradAccumulation},
        .sharding = {ShardingFramework::fsdp2, "FSDP2Manager: PyTorch fully_shard per transformer block"},
        .fp8_recipe = {Fp8Recipe::current,
                       "components/quantization/fp8.py: torchao Float8Linear, tensorwise scaling unless a recipe is "
                       "named"},
        .selective_recompute = {Recompute::full,
                                "activation_checkpointing wraps whole transformer blocks (moe/parallelizer.py)"},
        .fp32_loss = {true, "MaskedCrossEntropy's fp32_upcast defaults to True (NVIDIA-NeMo/Automodel @037e04a, "
                            "components/loss/masked_ce.py)"},
        .cross_entropy = {CrossEntropyKernel::eager,
                          "MaskedCrossEntropy calls F.cross_entropy on the logits (NVIDIA-NeMo/Automodel @037e04a, "
                          "components/loss/masked_ce.py): log_softmax and nll_loss op by op"},
        .compile_fuses_loss = {false, "the recipes compile the model, not the loss (MaskedCrossEntropy is called "
                                      "outside it)"},
        .rope_fusion = {true,
                        "BackendConfig.rope_fusion defaults on with Transformer Engine on a GPU (NVIDIA-NeMo/Automodel "
                        "@037e04a, components/models/common/te_utils.py): Transformer Engine's fused "
                        "apply_rotary_pos_emb; the custom MoE models applied RoPE op by op until 3e239047 "
                        "(2026-01-08)"},
        .bf16_params = {true,
                        "models are initialised with initialize_weights(dtype=torch.bfloat16), which ends in "
                        "self.to(dtype) (NVIDIA-NeMo/Automodel @037e04a: components/models/*/model.py, "
                        "checkpoint/checkpointing.py load_base_model), so FSDP2 shards bf16 parameters and "
                        "torch.optim.Adam keeps its moments in their dtype"},
        .fp8_keeps_quantized_inputs = {false, "fp8 runs through torchao's Float8Linear, which keeps the bf16 input"},
        .tp_keeps_gathered_inputs = {true, kDTensorKeepsGathered},
        .tp_loss_parallel = {false, kAutomodelNoLossParallel},
        .pp_stage_buffers = {true, kAutomodelPipelining},
        .pp_blocking_sends = {false, kTorchPipeliningAsyncSends},
        .tp_collectives_copy_sequence = {true, kDTensorSequenceSecond},
        .tp_overlap_hides_input_grad_reduce = {false, kMicroPipelineTp},
        .tp_backward_collectives_beside_gemms = {false, kDTensorOnStream},
        .zero1_all_reduces_gradients = {false, kNoZero1},
        .zero_param_gather_beside_forward = {true, kNoZeroParamGather},
        .cp_comm = {CpComm::p2p,
                    "NeMo Automodel hands Transformer Engine's attention cp_comm_type p2p "
                    "(components/distributed/context_parallel/utils.py at 36044ad3d; all_gather on sliding-window "
                    "layers, not told apart here)"},
        .cp_gather_beside_local_block = {false, kTeGatherExposed},
        .expert_bias_eager = {true,
                              "GroupedExpertsDeepEP._apply_bias, the DeepEP path the benchmark configs run "
                              "(components/moe/layers.py @037e04a): torch.split of the grouped GEMM's output by "
                              "tokens_per_expert, one add an expert, torch.cat, .to(bf16); the down projection's bias "
                              "times the fp32 permuted_probs first"},
        .moe_blocks_reduce_fp32 = {true,
                                   "moe/parallelizer.py apply_fsdp (@037e04a) shards each block under "
                                   "MixedPrecisionPolicy(reduce_dtype=float32) when handed no policy, as the benchmark "
                                   "configs' parallelizer (parallelize_model) hands it none, and shards the routed "
                                   "experts apart with fully_shard's default policy, which reduces in the parameters' "
                                   "dtype"},
        .tp_overlap_reduces_on_stream = {true, kSymmetricMemoryReduce},
        .norm_writes_fp8_inputs = {false,
                                   "Transformer Engine's RMSNorm module and torchao's Float8Linear run apart: the "
                                   "linear layer casts its bf16 input"},
        .fused_qkv = {false, kHfSeparateQkv},
        .fused_gate_up = {false, kHfSeparateGateUp},
    },
};

}  // namespace

const FrameworkParameters& framework_parameters(Framework framework) {
  for (const auto& set : kSets)
    if (set.framework == framework) return set;
  throw std::logic_error("no parameter set for this framework");
}

ShardingParameters sharding_as_run(const TransformerSpec& model, const ParallelismSpec& parallelism,
                                   const TrainingSpec& training) {
  ShardingParameters s = sharding_parameters(parallelism.sharding, training.bf16_params);
  if (is_moe(model) && framework_parameters(training.framework).moe_blocks_reduce_fp32.value)
    s.reduce_bytes_per_param = 4.0;
  return s;
}

bool framework_rope_fusion(const FrameworkParameters& set, ElementwiseKernels elementwise) {
  // A set whose own elementwise kernels are eager gets fused ones from torch.compile, which fuses
  // RoPE with them.
  return set.rope_fusion.value ||
         (elementwise == ElementwiseKernels::fused && set.elementwise.value == ElementwiseKernels::eager);
}

bool runs_loss_parallel(const ParallelismSpec& parallelism, const TrainingSpec& training) {
  return training.cross_entropy == CrossEntropyKernel::eager && parallelism.tp > 1 &&
         framework_parameters(training.framework).tp_loss_parallel.value;
}

CrossEntropyKernel framework_cross_entropy(const FrameworkParameters& set, ElementwiseKernels elementwise) {
  if (elementwise == ElementwiseKernels::fused && set.compile_fuses_loss.value) return CrossEntropyKernel::fused;
  return set.cross_entropy.value;
}

}  // namespace clustersim::models
