#include "models/compute/memory.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"
#include "models/compute/flops.hpp"
#include "models/compute/runtime_memory.hpp"

namespace clustersim::models {
namespace {

// Korthikanti et al. 2022 table 2, for GPT-3 175B at s = 2048, b = 1, h = 12288, a = 96, t = 8:
// s b h = 25,165,824 and the attention-score term 5 a s / (h t) = 10.
constexpr double kGpt3Sbh = 2048.0 * 12288.0;

double gpt3_layer(Recompute recompute, bool sp, bool flash, std::int64_t tp = 8) {
  const AttentionKernel attention = flash ? AttentionKernel::cudnn : AttentionKernel::unfused;
  return activation_bytes_per_layer(
      test::gpt3_175b(), {.tp = tp, .sp = sp},
      {.seq_len = 2048, .micro_batch = 1, .recompute = recompute, .attention = attention});
}

TEST_CASE("memory: GPT-3 175B activations per layer follow Korthikanti's table with unfused attention") {
  CHECK(kGpt3Sbh == 25165824.0);
  // No parallelism: sbh (34 + 5as/h) = 25,165,824 x (34 + 80) = 2,868,903,936 B.
  CHECK(gpt3_layer(Recompute::none, false, false, 1) == doctest::Approx(2868903936.0));
  // Tensor parallel: sbh (10 + 24/t + 5as/(ht)) = sbh x 23 = 578,813,952 B.
  CHECK(gpt3_layer(Recompute::none, false, false) == doctest::Approx(578813952.0));
  // Tensor + sequence parallel: sbh (34/t + 5as/(ht)) = sbh x 14.25 = 358,612,992 B.
  CHECK(gpt3_layer(Recompute::none, true, false) == doctest::Approx(358612992.0));
  // Selective recompute drops the score term: sbh (10 + 24/t) = 327,155,712; with SP 34 sbh/t =
  // 106,954,752.
  CHECK(gpt3_layer(Recompute::selective, false, false) == doctest::Approx(327155712.0));
  CHECK(gpt3_layer(Recompute::selective, true, false) == doctest::Approx(106954752.0));
  // Full recompute keeps the layer input: 2 sbh = 50,331,648; with SP 2 sbh / t = 6,291,456.
  CHECK(gpt3_layer(Recompute::full, false, false) == doctest::Approx(50331648.0));
  CHECK(gpt3_layer(Recompute::full, true, false) == doctest::Approx(6291456.0));
}

TEST_CASE("memory: flash attention stores the selective-recompute row whatever the setting") {
  // A flash kernel keeps no s x s scores, so no recompute = selective = 34 sbh / t with SP.
  CHECK(gpt3_layer(Recompute::none, true, true) == doctest::Approx(106954752.0));
  CHECK(gpt3_layer(Recompute::selective, true, true) == doctest::Approx(106954752.0));
  CHECK(gpt3_layer(Recompute::none, false, true) == doctest::Approx(327155712.0));
}

TEST_CASE("memory: Llama 3 70B activations with grouped-query attention, SwiGLU and context parallel") {
  // s = 8192, b = 1, h = 8192, t = 8, SP, flash, no dropout: sbh = 67,108,864. Per sbh / t:
  // replicated 8 (two norm inputs, QKV and MLP inputs; no masks), Q 2, attention output 2, SwiGLU
  // 6 f/h = 21 (gate and up 4 f/h, down input 2 f/h); K and V 4 g/a = 0.5.
  // (8 + 2 + 2 + 21 + 0.5) / 8 = 4.1875 -> 281,018,368 B. cp = 2 halves the tokens per rank.
  const TrainingSpec training{.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::none};
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, training) ==
        doctest::Approx(281018368.0));
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .cp = 2, .sp = true}, training) ==
        doctest::Approx(281018368.0 / 2.0));
  // With dropout 0.1 the two masks come back: (10 + 2 + 2 + 21 + 0.5) / 8 = 4.4375 -> 297,795,584 B.
  TransformerSpec with_dropout = test::llama3_70b();
  with_dropout.dropout = 0.1;
  CHECK(activation_bytes_per_layer(with_dropout, {.tp = 8, .sp = true}, training) == doctest::Approx(297795584.0));
  // Keys and values copied to the query heads before the kernel (training.repeat_kv) are kept as
  // copied: 2 + 2 per sbh / t instead of 0.5, (8 + 2 + 2 + 21 + 4) / 8 = 4.625 -> 310,378,496 B.
  TrainingSpec repeated = training;
  repeated.repeat_kv = true;
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, repeated) ==
        doctest::Approx(310378496.0));
}

TEST_CASE("memory: Transformer Engine's fp8 layers keep their GEMM inputs as 1-byte copies, torchao's do not") {
  // Llama 3 70B as above (tp = 8, SP, flash, no dropout), per sbh / t with Transformer Engine fp8:
  // norm inputs 4 and the QKV and MLP inputs 1 + 1; Q 2; the attention output 2 (the kernel's
  // backward reads it) plus its 1-byte copy for the projection; SwiGLU gate and up 4 f/h = 14 and
  // the down projection's input 1 f/h = 3.5; K and V 0.5: 29 / 8 = 3.625 -> 243,269,632 B.
  const double sbh = 8192.0 * 8192.0;
  TrainingSpec fp8{.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::none};
  fp8.precision = Precision::fp8;
  fp8.framework = Framework::megatron_core;
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, fp8) ==
        doctest::Approx(3.625 * sbh));
  // torchao's Float8Linear keeps the bf16 input, and bf16 weight gradients need it: 4.1875 sbh
  // with Megatron's sequence shards; torchtitan's DTensor layers keep the QKV and MLP inputs
  // gathered, 2 + 2 sbh instead of (2 + 2) sbh / 8: 7.6875 sbh.
  TrainingSpec torchao = fp8;
  torchao.framework = Framework::torchtitan;
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, torchao) ==
        doctest::Approx(7.6875 * sbh));
  TrainingSpec bf16_backward = fp8;
  bf16_backward.fp8_backward = false;
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, bf16_backward) ==
        doctest::Approx(4.1875 * sbh));
  // FP8 attention keeps Q, K and V at 1 byte: Q 1 and K, V 0.25 per sbh / t, 29 - 1 - 0.25 = 27.75.
  TrainingSpec fp8_attention = fp8;
  fp8_attention.fp8_attention = true;
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, fp8_attention) ==
        doctest::Approx(27.75 / 8.0 * sbh));
}

TEST_CASE("memory: PyTorch's TP layers keep their gathered inputs, Megatron's the sequence shard") {
  // Llama 3 70B, tp = 8, SP, bf16, no recompute: the QKV and MLP inputs are 2 + 2 bytes per token
  // and hidden unit, kept as the rank's 1/8 by Megatron-LM and whole by DTensor's ColwiseParallel:
  // 4 sbh (1 - 1/8) = 3.5 sbh more under torchtitan, whatever else the two frameworks keep alike.
  const double sbh = 8192.0 * 8192.0;
  TrainingSpec megatron{.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::none};
  megatron.framework = Framework::megatron_core;
  TrainingSpec dtensor = megatron;
  dtensor.framework = Framework::torchtitan;
  const double kept = activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, dtensor) -
                      activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, megatron);
  CHECK(kept == doctest::Approx(3.5 * sbh));
  // Without TP there is nothing to gather.
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 1}, dtensor) ==
        doctest::Approx(activation_bytes_per_layer(test::llama3_70b(), {.tp = 1}, megatron)));
}

TEST_CASE("memory: torchtitan's op-level checkpointing keeps attention and every other matmul's output") {
  // Llama 3 8B (h 4096, 8 k/v heads of 128: kv 1024, f 14336) at b = 2, s = 8192, tp = 1: the
  // layer input, q, v, attention output, w1's and w2's outputs, 2 bytes each per token:
  // 2 (4 h + kv + f) = 2 x 31,744 = 63,488 B a token, 16,384 tokens -> 1,040,187,392 B, against
  // 33 h + 4 kv = 139,264 B a token for Korthikanti's selective recompute (the row above).
  const TrainingSpec op{.seq_len = 8192, .micro_batch = 2, .recompute = Recompute::op};
  CHECK(activation_bytes_per_layer(test::llama3_8b(), {.tp = 1}, op) == doctest::Approx(16384.0 * 63488.0));
  TrainingSpec selective = op;
  selective.recompute = Recompute::selective;
  CHECK(activation_bytes_per_layer(test::llama3_8b(), {.tp = 1}, selective) ==
        doctest::Approx(16384.0 * (8.0 * 4096 + (2.0 + 2.0 + 6.0 * 3.5) * 4096 + 4.0 * 1024)));
  // Llama 3 70B on tp = 8 with SP (h 8192, kv per rank 128, f 28672): input 2 h / 8, q and
  // attention output 4 h / 8, v 2 x 128, w1 2 f / 8, w2's unreduced output 2 h and its
  // reduce-scatter 2 h / 8 -> (2048 + 4096 + 256 + 7168 + 16384 + 2048) B = 32,000 B a token.
  const TrainingSpec op70{.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::op};
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, op70) == doctest::Approx(8192.0 * 32000.0));
}

TEST_CASE("memory: QK-Norm keeps its inputs, the projected query and key") {
  // Qwen3-30B-A3B at tp 2, one sequence of 4096 tokens: a rank's 16 query heads and 2 key heads of
  // 128 are 2304 columns a token, kept at 2 B before the norms.
  models::TransformerSpec model = test::qwen3_30b_a3b();
  const ParallelismSpec tp2{.tp = 2, .sp = true};
  const TrainingSpec training{.seq_len = 4096, .micro_batch = 1, .recompute = Recompute::none};
  const double without = activation_bytes_per_layer(model, tp2, training);
  model.qk_norm = true;
  CHECK(activation_bytes_per_layer(model, tp2, training) - without == doctest::Approx(2.0 * 2304.0 * 4096.0));
}

TEST_CASE("memory: a model without dropout stores no masks, unfused attention only its softmax output") {
  // GPT-3 175B shape at dropout 0, s = 2048, b = 1: Korthikanti's 34 sbh loses the two 1-byte
  // masks (32 sbh), and the 5 as^2 b score term keeps only the 2-byte softmax output.
  // No parallelism, unfused: sbh (32 + 2 a s / h) = 25,165,824 x (32 + 32) = 1,610,612,736 B.
  // t = 8 with SP, flash: 32 sbh / 8 = 100,663,296 B.
  TransformerSpec model = test::gpt3_175b();
  model.dropout = 0.0;
  const TrainingSpec unfused{.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::none,
                             .attention = AttentionKernel::unfused};
  CHECK(activation_bytes_per_layer(model, {}, unfused) == doctest::Approx(1610612736.0));
  const TrainingSpec flash{.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::none};
  CHECK(activation_bytes_per_layer(model, {.tp = 8, .sp = true}, flash) == doctest::Approx(100663296.0));
  // The first stage keeps the embedding's mask (sbh / t = 3,145,728 B per micro-batch) only with dropout.
  const ParallelismSpec par{.tp = 8, .pp = 8, .sp = true};
  const double mask = 2048.0 * 12288.0 / 8.0;
  const MemoryBreakdown without = memory_per_gpu(model, par, flash, test::h100(), 12, true, false, 8.0);
  const MemoryBreakdown with = memory_per_gpu(test::gpt3_175b(), par, flash, test::h100(), 12, true, false, 8.0);
  CHECK(without.other_bytes == 0.0);
  CHECK(with.other_bytes == doctest::Approx(8.0 * mask));
}

TEST_CASE("memory: micro-batches in flight per schedule") {
  // GPipe holds all m; 1F1B holds pp - stage, at most m.
  CHECK(micro_batches_in_flight(Schedule::gpipe, 8, 1, 16, 0) == 16.0);
  CHECK(micro_batches_in_flight(Schedule::one_f_one_b, 8, 1, 16, 0) == 8.0);
  CHECK(micro_batches_in_flight(Schedule::one_f_one_b, 8, 1, 16, 7) == 1.0);
  CHECK(micro_batches_in_flight(Schedule::one_f_one_b, 8, 1, 4, 0) == 4.0);
  // Interleaved p = 4, v = 2, m = 16, first stage: p (1 + (p-1)/(p v)) = 4 x 1.375 = 5.5 (Korthikanti).
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 2, 16, 0) == doctest::Approx(5.5));
  // Last stage: Megatron-LM warms up (v-1) p = 4 chunks, plus 1: 5 half-stage chunks = 2.5.
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 2, 16, 3) == doctest::Approx(2.5));
  // m = 2: at most m v = 4 chunks, i.e. all 2 micro-batches.
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 2, 2, 0) == doctest::Approx(2.0));
  // v = 1 is plain 1F1B.
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 1, 16, 1) == 3.0);
  // Groups of N = 8 micro-batches a chunk: 2 (4 - 0 - 1) + (2 - 1) 8 + 1 = 15 chunk units, 7.5
  // micro-batches of the stage's layers; N = m = 16 (breadth-first): every chunk-0 forward and 7
  // of chunk 1, 23 units, 11.5.
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 2, 16, 0, 8) == doctest::Approx(7.5));
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 2, 16, 0, 16) == doctest::Approx(11.5));
  CHECK(micro_batches_in_flight(Schedule::interleaved, 4, 2, 16, 0, 4) ==
        micro_batches_in_flight(Schedule::interleaved, 4, 2, 16, 0));
}

TEST_CASE("memory: Adam state bytes per parameter for each ZeRO stage") {
  // Llama 3 8B on one stage, tp = 1, dp = 8: 8,030,261,248 parameters. Mixed-precision Adam:
  // ZeRO-0 2 + 4 + 12 = 18 B; ZeRO-1 6 + 12/8 = 7.5 B; ZeRO-2 2 + 16/8 = 4 B. ZeRO-3 by framework:
  // FSDP2 steps its fp32 shard itself, 4 + 4 (fp32 gradients) + 8 (moments) = 16/8 = 2 B; FSDP1
  // the same with bf16 gradients, 14/8 = 1.75 B; Megatron-FSDP keeps a bf16 shard beside the fp32
  // master, 2 + 4 + 12 = 18/8 = 2.25 B; DeepSpeed's ZeRO-3 of 2021 the fp16 one, 2 + 2 + 12 = 16/8.
  const double n = 8030261248.0;
  const auto state = [&](int zero, ShardingFramework sharding = ShardingFramework::fsdp2) {
    const MemoryBreakdown m = memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = zero, .sharding = sharding},
                                             {.seq_len = 8192, .micro_batch = 1}, test::h100(), 32, true, true, 1.0);
    CHECK(m.parameters == doctest::Approx(n));
    return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
  };
  CHECK(state(0) == doctest::Approx(18.0 * n));
  CHECK(state(1) == doctest::Approx(7.5 * n));
  CHECK(state(2) == doctest::Approx(4.0 * n));
  CHECK(state(3) == doctest::Approx(2.0 * n));
  CHECK(state(3, ShardingFramework::fsdp1) == doctest::Approx(1.75 * n));
  CHECK(state(3, ShardingFramework::megatron_fsdp) == doctest::Approx(2.25 * n));
  CHECK(state(3, ShardingFramework::deepspeed_zero3_2021) == doctest::Approx(2.0 * n));
  // Context-parallel ranks hold the same parameters, so the optimizer shards over dp x cp = 16.
  const MemoryBreakdown cp2 = memory_per_gpu(test::llama3_8b(), {.dp = 8, .cp = 2, .zero = 1},
                                             {.seq_len = 8192, .micro_batch = 1}, test::h100(), 32, true, true, 1.0);
  CHECK(cp2.optimizer_bytes == doctest::Approx(12.0 / 16.0 * n));
}

TEST_CASE("memory: ZeRO-2 holds one layer's unsharded fp32 gradients until their reduce-scatter") {
  // Llama 3 8B, dp = 8: a layer is 218,103,808 matrix entries + 2 x 4,096 norm gains = 218,112,000
  // parameters, whose fp32 gradients (872,448,000 B) wait for their reduce-scatter into the shard.
  const auto other = [](int zero) {
    return memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = zero}, {.seq_len = 8192, .micro_batch = 1},
                          test::h100(), 32, true, true, 1.0)
        .other_bytes;
  };
  CHECK(other(2) - other(1) == doctest::Approx(218112000.0 * 4.0));
  // On one data-parallel rank (dp = cp = 1) nothing is reduce-scattered: ZeRO-2 holds what ZeRO-1
  // holds, the whole gradient being the shard.
  const auto alone = [](int zero) {
    return memory_per_gpu(test::llama3_8b(), {.dp = 1, .zero = zero}, {.seq_len = 8192, .micro_batch = 1},
                          test::h100(), 32, true, true, 1.0)
        .total_bytes;
  };
  CHECK(alone(2) == alone(1));
}

TEST_CASE("memory: bf16 parameters keep no fp32 master and bf16 Adam moments") {
  // Llama 3 8B, dp = 8, as above, with the model cast to bf16 (training.bf16_params): ZeRO-1
  // 2 + 4 (fp32 main gradients) + 4/8 (bf16 m and v) = 6.5 B; FSDP2 shards the bf16 parameters and
  // reduces bf16 gradients, (2 + 2 + 4)/8 = 1 B, half its mixed-precision 2 B.
  const double n = 8030261248.0;
  const auto state = [&](int zero) {
    TrainingSpec t{.seq_len = 8192, .micro_batch = 1};
    t.bf16_params = true;
    const MemoryBreakdown m =
        memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = zero}, t, test::h100(), 32, true, true, 1.0);
    return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
  };
  CHECK(state(1) == doctest::Approx(6.5 * n));
  CHECK(state(3) == doctest::Approx(1.0 * n));
}

TEST_CASE("memory: Llama 3 70B parameters per GPU on tp = 8, pp = 4 stages of 20 layers") {
  // Per layer per rank: 855,638,016 / 8 = 106,954,752 matrix entries + 2 x 8192 norm gains
  // = 106,971,136; 20 layers = 2,139,422,720. The embedding shard, 128256 x 8192 / 8 = 131,334,144,
  // sits on the first stage; the logits shard and the final norm (8192) on the last.
  const TransformerSpec model = test::llama3_70b();
  const ParallelismSpec par{.tp = 8, .pp = 4};
  CHECK(parameters_per_gpu(model, par, 20, false, false) == doctest::Approx(2139422720.0));
  CHECK(parameters_per_gpu(model, par, 20, true, false) == doctest::Approx(2139422720.0 + 131334144.0));
  CHECK(parameters_per_gpu(model, par, 20, false, true) == doctest::Approx(2139422720.0 + 131334144.0 + 8192.0));
}

TEST_CASE("memory: tied embeddings are one matrix on a single stage and a copy per end stage") {
  // GPT-3 175B, V h = 51200 x 12288 = 629,145,600 at tp = 1.
  const TransformerSpec model = test::gpt3_175b();
  const double vh = 629145600.0;
  const double both = parameters_per_gpu(model, {}, 0, true, true);
  CHECK(both == doctest::Approx(vh + 12288.0));
  CHECK(parameters_per_gpu(model, {}, 0, true, false) == doctest::Approx(vh));
  CHECK(parameters_per_gpu(model, {}, 0, false, true) == doctest::Approx(vh + 12288.0));
}

TEST_CASE("memory: activations scale with the stage's layers and micro-batches in flight") {
  // GPT-3 175B, t = 8 with SP, flash, 12 layers on a middle stage, 8 micro-batches in flight:
  // 12 x 8 x 106,954,752 B. A middle stage has no embedding or logits activations.
  const MemoryBreakdown m = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .dp = 1, .sp = true},
                                           {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::none},
                                           test::h100(), 12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(12.0 * 8.0 * 106954752.0));
  CHECK(m.other_bytes == 0.0);
  CHECK(m.tensor_bytes() ==
        doctest::Approx(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes));
  CHECK(m.total_bytes == doctest::Approx(m.tensor_bytes() + m.runtime_bytes()));
}

TEST_CASE("memory: the last stage holds the output norm, logits input and fp32 logits") {
  // Korthikanti: 4 sbh/t (1 + V/h) per micro-batch with SP. GPT-3 175B, t = 8, one micro-batch in
  // flight: 4 x 25,165,824 / 8 x (1 + 51200/12288) = 12,582,912 + 52,428,800 = 65,011,712 B.
  const MemoryBreakdown m = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                           {.seq_len = 2048, .micro_batch = 1}, test::h100(), 12, false, true, 1.0);
  CHECK(m.other_bytes == doctest::Approx(65011712.0));
  // Interleaved, the last stage holds 7.5 micro-batches of its layers but only the last chunk
  // makes logits, whose backward follows at once: still one micro-batch's 65,011,712 B. GPipe
  // keeps all of them.
  const MemoryBreakdown interleaved =
      memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .vp = 2, .sp = true},
                     {.seq_len = 2048, .micro_batch = 1, .schedule = Schedule::interleaved}, test::h100(), 12,
                     false, true, 7.5);
  CHECK(interleaved.other_bytes == doctest::Approx(65011712.0));
  const MemoryBreakdown gpipe = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                               {.seq_len = 2048, .micro_batch = 1, .schedule = Schedule::gpipe},
                                               test::h100(), 12, false, true, 16.0);
  CHECK(gpipe.other_bytes == doctest::Approx(16.0 * 65011712.0));
  // Without the loss's fp32 upcast the softmax of the logits is bf16: 2 s b V / t = 26,214,400 B
  // of the 52,428,800 go.
  const MemoryBreakdown bf16_loss = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                                   {.seq_len = 2048, .micro_batch = 1, .fp32_loss = false},
                                                   test::h100(), 12, false, true, 1.0);
  CHECK(bf16_loss.other_bytes == doctest::Approx(65011712.0 - 26214400.0));
  // An eager cross-entropy holds the fp32 log-probabilities, nll_loss's dense fp32 gradient and
  // log_softmax's fp32 gradient at once: 3 x 52,428,800 B instead of one.
  const MemoryBreakdown eager = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                               {.seq_len = 2048, .micro_batch = 1,
                                                .cross_entropy = CrossEntropyKernel::eager},
                                               test::h100(), 12, false, true, 1.0);
  CHECK(eager.other_bytes == doctest::Approx(12582912.0 + 3.0 * 52428800.0));
  // torchtitan runs it under TP as DTensor's loss_parallel, whose backward holds the saved
  // log-probabilities, the zero-filled gradient, their exp and the sum of the two at once: four
  // copies. Without TP it is aten's eager loss again: s b V = 2048 x 51200 x 4 B = 419,430,400 B
  // a copy, three of them, beside 4 s b h = 100,663,296 B.
  // (No pipeline here: torchtitan's pipeline keeps buffers of its own, tested below.)
  const MemoryBreakdown loss_parallel = memory_per_gpu(
      test::gpt3_175b(), {.tp = 8, .sp = true},
      {.seq_len = 2048, .micro_batch = 1, .framework = Framework::torchtitan, .cross_entropy = CrossEntropyKernel::eager},
      test::h100(), 12, false, true, 1.0);
  CHECK(loss_parallel.other_bytes == doctest::Approx(12582912.0 + 4.0 * 52428800.0));
  const MemoryBreakdown one_rank = memory_per_gpu(
      test::gpt3_175b(), {},
      {.seq_len = 2048, .micro_batch = 1, .framework = Framework::torchtitan, .cross_entropy = CrossEntropyKernel::eager},
      test::h100(), 12, false, true, 1.0);
  CHECK(one_rank.other_bytes == doctest::Approx(100663296.0 + 3.0 * 419430400.0));
}

TEST_CASE("memory: full recompute keeps layer inputs plus one layer's working set") {
  // GPT-3 175B, t = 8 with SP, 12 layers, 8 in flight: stored 12 x 8 x 2 sbh/t = 96 x 6,291,456;
  // during a layer's backward its recomputed activations (34 sbh/t = 106,954,752) are live.
  const MemoryBreakdown m = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                           {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::full},
                                           test::h100(), 12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(96.0 * 6291456.0));
  CHECK(m.other_bytes == doctest::Approx(106954752.0));
}

TEST_CASE("memory: with unfused attention the layer being recomputed also holds its scores") {
  // As above with unfused attention: the recomputed layer's working set is Korthikanti's
  // no-recompute row, sbh (34/t + 5as/(ht)) = 25,165,824 x 14.25 = 358,612,992 B; the stored
  // layer inputs are unchanged.
  const MemoryBreakdown m = memory_per_gpu(
      test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
      {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::full, .attention = AttentionKernel::unfused},
      test::h100(), 12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(96.0 * 6291456.0));
  CHECK(m.other_bytes == doctest::Approx(358612992.0));
}

TEST_CASE("memory: selective recompute with unfused attention holds one layer's scores while it recomputes them") {
  // As above with selective recomputation: the stored layers keep Korthikanti's selective row,
  // 34 sbh/t = 106,954,752 B each, and the layer whose attention core is being recomputed holds its
  // 5as/h part, 358,612,992 - 106,954,752 = 251,658,240 B, during its backward. With flash attention
  // nothing is dropped, so nothing is recomputed into memory.
  const auto selective = [](AttentionKernel attention) {
    return memory_per_gpu(
        test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
        {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::selective, .attention = attention},
        test::h100(), 12, false, false, 8.0);
  };
  const MemoryBreakdown unfused = selective(AttentionKernel::unfused);
  CHECK(unfused.activations_bytes == doctest::Approx(96.0 * 106954752.0));
  CHECK(unfused.other_bytes == doctest::Approx(251658240.0));
  CHECK(selective(AttentionKernel::flash2).other_bytes == 0.0);
}

TEST_CASE("memory: unfused attention stores the 5as/h term per micro-batch in flight") {
  // GPT-3 175B, t = 8 with SP, no recompute, 12 layers, 8 micro-batches in flight (as the test of
  // flash above): 12 x 8 x 358,612,992 B (Korthikanti's TP + SP row) instead of 12 x 8 x 106,954,752.
  const MemoryBreakdown m = memory_per_gpu(
      test::gpt3_175b(), {.tp = 8, .pp = 8, .dp = 1, .sp = true},
      {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::none, .attention = AttentionKernel::unfused},
      test::h100(), 12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(12.0 * 8.0 * 358612992.0));
}

TEST_CASE("memory: gradients take the configured dtype, ZeRO-3 its framework's reduce dtype") {
  // Llama 3 8B, ZeRO-1 over 8 ranks: fp32 gradients 4 B, bf16 2 B per parameter.
  const double n = 8030261248.0;
  const TrainingSpec fp32{.seq_len = 8192, .micro_batch = 1};
  TrainingSpec bf16 = fp32;
  bf16.grad_dtype = GradDtype::bf16;
  CHECK(memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = 1}, fp32, test::h100(), 32, true, true, 1.0)
            .gradients_bytes == doctest::Approx(4.0 * n));
  CHECK(memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = 1}, bf16, test::h100(), 32, true, true, 1.0)
            .gradients_bytes == doctest::Approx(2.0 * n));
  // DeepSpeed's BF16_Optimizer holds the 16-bit .grad beside its fp32 buffer: 4 + 2 B.
  TrainingSpec bf16_optimizer = fp32;
  bf16_optimizer.grad_accumulation = GradAccumulation::fp32_cast_add;
  CHECK(memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = 1}, bf16_optimizer, test::h100(), 32, true, true, 1.0)
            .gradients_bytes == doctest::Approx(6.0 * n));
  // ZeRO-3 shards DeepSpeed's fp16 gradients: 2 / 8 B per parameter, whatever grad_dtype says.
  const ParallelismSpec ds{.dp = 8, .zero = 3, .sharding = ShardingFramework::deepspeed_zero3_2021};
  CHECK(memory_per_gpu(test::llama3_8b(), ds, fp32, test::h100(), 32, true, true, 1.0).gradients_bytes ==
        doctest::Approx(2.0 / 8.0 * n));
}

TEST_CASE("memory: ZeRO-3 holds its framework's gathered units and one unit's unsharded gradient") {
  // Llama 3 8B layer on one rank: attention 2 h^2 + 2 h (8 x 128) = 41,943,040, MLP 3 h f =
  // 176,160,768, norms 8,192: 218,112,000 parameters. FSDP2: this block and the prefetched one in
  // bf16 (2 x 2 B) and the block's gradient reduced in fp32 (4 B): 8 x 218,112,000 = 1,744,896,000 B.
  const TrainingSpec training{.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::full};
  const MemoryBreakdown fsdp2 =
      memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = 3}, training, test::h100(), 32, false, false, 1.0);
  TrainingSpec stored = training;
  stored.recompute = Recompute::none;
  const double recomputed_layer = activation_bytes_per_layer(test::llama3_8b(), {.dp = 8, .zero = 3}, stored);
  CHECK(fsdp2.other_bytes - recomputed_layer == doctest::Approx(1744896000.0));
  // DeepSpeed ZeRO-3 of 2021 gathers one tensor at a time; GPT-3 175B's largest, an MLP matrix of
  // h x 4h = 603,979,776 parameters, is under the 1e9 live limit, so the next one is prefetched
  // while it works: 2 x 2 B gathered + 2 B gradient -> 3,623,878,656 B.
  const ParallelismSpec ds{.dp = 8, .zero = 3, .sharding = ShardingFramework::deepspeed_zero3_2021};
  const MemoryBreakdown deepspeed = memory_per_gpu(test::gpt3_175b(), ds, training, test::a100(), 96, false, false, 1.0);
  TrainingSpec gpt_stored = training;
  gpt_stored.recompute = Recompute::none;
  CHECK(deepspeed.other_bytes - activation_bytes_per_layer(test::gpt3_175b(), ds, gpt_stored) ==
        doctest::Approx(3623878656.0));
}

TEST_CASE("memory: fp8 parameter gathers hold the layers' fp8 copies, the embedding 16-bit") {
  // Llama 3 8B, all 32 layers and the embedding on one rank (a first stage, no output layer):
  // 32 x 218,112,000 = 6,979,584,000 layer parameters and 128,256 x 4,096 = 525,336,576 embedding
  // parameters. ZeRO-1's parameter buffer (Megatron-LM --fp8-param-gather) keeps the layers in fp8
  // (1 B) and the embedding in bf16 (2 B).
  const double layers = 32.0 * 218112000.0, embedding = 128256.0 * 4096.0;
  TrainingSpec training{.seq_len = 8192, .micro_batch = 1, .precision = Precision::fp8};
  const ParallelismSpec zero1{.dp = 8, .zero = 1};
  const MemoryBreakdown bf16 = memory_per_gpu(test::llama3_8b(), zero1, training, test::h100(), 32, true, false, 1.0);
  training.fp8_param_gather = true;
  const MemoryBreakdown fp8 = memory_per_gpu(test::llama3_8b(), zero1, training, test::h100(), 32, true, false, 1.0);
  CHECK(bf16.weights_bytes == doctest::Approx(2.0 * (layers + embedding)));
  CHECK(fp8.weights_bytes == doctest::Approx(1.0 * layers + 2.0 * embedding));
  // FSDP2: the gathered block and its prefetched neighbour in fp8 (2 x 1 B) and the block's fp32
  // gradient (4 B): 6 B a layer parameter where bf16 gathers take 8 (the test above).
  TrainingSpec full = training;
  full.recompute = Recompute::full;
  const MemoryBreakdown fsdp2 = memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = 3}, full, test::h100(), 32, false, false, 1.0);
  TrainingSpec stored = full;
  stored.recompute = Recompute::none;
  CHECK(fsdp2.other_bytes - activation_bytes_per_layer(test::llama3_8b(), {.dp = 8, .zero = 3}, stored) ==
        doctest::Approx(6.0 * 218112000.0));
}

TEST_CASE("memory: FSDP2 under a pipeline holds the stage's gathered parameters and fp32 gradients") {
  // Llama 3 8B, 16 layers a stage (pp = 2, a middle stage: no embedding), dp = 8: 16 x 218,112,000
  // = 3,489,792,000 parameters, gathered in bf16 (2 B) and accumulated unsharded in fp32 (4 B) on
  // top of the shard's (4 + 4 + 8) / 8 B; in place of the per-pass units, one unit's bf16 gradient
  // before it is added in (2 x 218,112,000 B).
  const double n = 16.0 * 218112000.0;
  const TrainingSpec training{.seq_len = 8192, .micro_batch = 1};
  const MemoryBreakdown piped =
      memory_per_gpu(test::llama3_8b(), {.pp = 2, .dp = 8, .zero = 3}, training, test::h100(), 16, false, false, 1.0);
  CHECK(piped.weights_bytes == doctest::Approx(n * (4.0 / 8.0 + 2.0)));
  CHECK(piped.gradients_bytes == doctest::Approx(n * (4.0 / 8.0 + 4.0)));
  CHECK(piped.optimizer_bytes == doctest::Approx(n * 8.0 / 8.0));
  const MemoryBreakdown flat =
      memory_per_gpu(test::llama3_8b(), {.pp = 1, .dp = 8, .zero = 3}, training, test::h100(), 16, false, false, 1.0);
  CHECK(piped.other_bytes - flat.other_bytes == doctest::Approx(2.0 * 218112000.0 - 8.0 * 218112000.0));
}

TEST_CASE("memory: the runtime's parts: NCCL connections, channels, communicators") {
  // One connection: Simple 4,194,304 + LL128 120 x 640 x 8 x 8 = 4,915,200 + LL 8 x 512 x 8 x 16 =
  // 524,288 = 9,633,792 B.
  CHECK(nccl_connection_bytes() == 9633792.0);
  // Two channels per NVLink: A100 12 links -> 24; H100 18 -> 36, capped at 32; no NVLink -> 2.
  CHECK(nccl_channels(test::a100()) == 24);
  CHECK(nccl_channels(test::h100()) == 32);
  GpuSpec pcie = test::h100();
  pcie.nvlink_bytes_per_s = 0.0;
  CHECK(nccl_channels(pcie) == 2);
  // A 4-GPU A100 communicator: 24 channels x 3 connections x 9,633,792 = 693,633,024 B, within 1 %
  // of the 688 MB NVIDIA/nccl #964 measured.
  CHECK(nccl_buffer_bytes({.collective = 1}, test::a100()) == 693633024.0);
  CHECK(nccl_buffer_bytes({.collective = 1}, test::a100()) == doctest::Approx(688e6).epsilon(0.01));

  // Megatron-style layout tp 8, pp 8, dp 16 with tied embeddings: the world, TP, DP and, on the end
  // stages, the embedding group; the pipeline's point-to-point communicator.
  const ParallelismSpec p{.tp = 8, .pp = 8, .dp = 16};
  const Communicators first = communicators(p, true, true, false);
  const Communicators middle = communicators(p, true, false, false);
  CHECK(first.collective == 4);
  CHECK(middle.collective == 3);
  CHECK(middle.point_to_point == 1);
  // H100 middle stage: 3 x 32 x 3 + 1 x (2 peers x 2 channels) = 292 connections = 2,813,067,264 B.
  CHECK(nccl_buffer_bytes(middle, test::h100()) == 292.0 * 9633792.0);
  // Pure data parallel: world and DP; context parallel adds its ring; hybrid sharding a replica group.
  CHECK(communicators({.dp = 8}, false, true, true).collective == 2);
  CHECK(communicators({.dp = 8}, false, true, true).point_to_point == 0);
  CHECK(communicators({.dp = 4, .cp = 2}, false, true, true).point_to_point == 1);
  CHECK(communicators({.dp = 64, .zero = 3, .shard_group = 8}, false, true, true).collective == 3);

  // cuBLAS workspaces: 4 streams x 32 MiB on Hopper, x 4 MiB on Ampere.
  CHECK(workspace_bytes(test::h100()) == 134217728.0);
  CHECK(workspace_bytes(test::a100()) == 16777216.0);

  // 10 GB of tensors on an H100 with two communicators: context 400 MB, NCCL 2 x 32 x 3 x
  // 9,633,792 = 1,849,688,064 B, workspaces 134,217,728 B, fragmentation 5 % = 500 MB.
  const RuntimeMemory r = runtime_memory(10e9, {.collective = 2}, test::h100());
  CHECK(r.cuda_context_bytes == 400e6);
  CHECK(r.nccl_bytes == 1849688064.0);
  CHECK(r.workspace_bytes == 134217728.0);
  CHECK(r.fragmentation_bytes == doctest::Approx(500e6));
  CHECK(r.total() == doctest::Approx(400e6 + 1849688064.0 + 134217728.0 + 500e6));
}

TEST_CASE("memory: the peak is the tensors plus the runtime's parts, and fits up to the HBM CUDA reports") {
  // Llama 3 8B, ZeRO-1 over 8 H100: two collective communicators (world, DP).
  const MemoryBreakdown m = memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = 1}, {.seq_len = 8192, .micro_batch = 1},
                                           test::h100(), 32, true, true, 1.0);
  CHECK(m.cuda_context_bytes == kCudaContextBytes);
  CHECK(m.nccl_bytes == 1849688064.0);
  CHECK(m.workspace_bytes == 134217728.0);
  CHECK(m.fragmentation_bytes == doctest::Approx(kAllocatorFragmentation * m.tensor_bytes()));
  CHECK(m.total_bytes == doctest::Approx(m.tensor_bytes() + m.runtime_bytes()));
  GpuSpec gpu = test::h100();
  gpu.hbm_bytes = m.total_bytes;
  CHECK(fits_in_memory(m.total_bytes, gpu));
  CHECK_FALSE(fits_in_memory(m.total_bytes + 1.0, gpu));
}

TEST_CASE("memory: torch.distributed.pipelining keeps a buffer per micro-batch and the last stage's logits") {
  // GPT-3 175B, TP 8 with SP, PP 4, 8 micro-batches of 1 x 2048 tokens. A stage's input or output is
  // 2 x 2048 x 12288 / 8 = 6,291,456 B. A middle stage with 3 in flight keeps the 5 inputs not in
  // flight (the 3 others are its first layer's saved inputs) and 8 output gradients and 3 outputs: 16;
  // the first stage receives nothing: 8 + 4 = 12 with 4 in flight; the last sends nothing: 7 inputs
  // with 1 in flight, and its 8 micro-batches' bf16 logits, 2 x 2048 x 51200 each (the whole
  // vocabulary, replicated across TP without loss_parallel), or 51200 / 8 of it under loss_parallel.
  const TrainingSpec titan{.seq_len = 2048, .micro_batch = 1, .global_batch = 8, .framework = Framework::torchtitan};
  const ParallelismSpec p{.tp = 8, .pp = 4, .sp = true};
  const double hidden_states = 6291456.0;
  CHECK(pipelining_buffer_bytes(test::gpt3_175b(), p, titan, false, false, 3.0) == doctest::Approx(16.0 * hidden_states));
  CHECK(pipelining_buffer_bytes(test::gpt3_175b(), p, titan, true, false, 4.0) == doctest::Approx(12.0 * hidden_states));
  CHECK(pipelining_buffer_bytes(test::gpt3_175b(), p, titan, false, true, 1.0) ==
        doctest::Approx(7.0 * hidden_states + 8.0 * 2.0 * 2048.0 * 51200.0));
  TrainingSpec eager_loss = titan;
  eager_loss.cross_entropy = CrossEntropyKernel::eager;
  CHECK(pipelining_buffer_bytes(test::gpt3_175b(), p, eager_loss, false, true, 1.0) ==
        doctest::Approx(7.0 * hidden_states + 8.0 * 2.0 * 2048.0 * 51200.0 / 8.0));
  // Megatron's schedules keep none of it; without a pipeline there is nothing to keep.
  TrainingSpec megatron = titan;
  megatron.framework = Framework::megatron_core;
  CHECK(pipelining_buffer_bytes(test::gpt3_175b(), p, megatron, false, false, 3.0) == 0.0);
  CHECK(pipelining_buffer_bytes(test::gpt3_175b(), {.tp = 8, .sp = true}, titan, true, true, 1.0) == 0.0);
  // memory_per_gpu adds it to the stage's other bytes.
  const MemoryBreakdown with = memory_per_gpu(test::gpt3_175b(), p, titan, test::h100(), 24, false, false, 3.0);
  const MemoryBreakdown without = memory_per_gpu(test::gpt3_175b(), p, megatron, test::h100(), 24, false, false, 3.0);
  CHECK(with.other_bytes - without.other_bytes == doctest::Approx(16.0 * hidden_states));
}

}  // namespace
}  // namespace clustersim::models
