#include "models/compute/memory.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"
#include "models/compute/flops.hpp"

namespace clustersim::models {
namespace {

// Korthikanti et al. 2022 table 2, for GPT-3 175B at s = 2048, b = 1, h = 12288, a = 96, t = 8:
// s b h = 25,165,824 and the attention-score term 5 a s / (h t) = 10.
constexpr double kGpt3Sbh = 2048.0 * 12288.0;

double gpt3_layer(Recompute recompute, bool sp, bool flash, std::int64_t tp = 8) {
  const AttentionKernel attention = flash ? AttentionKernel::flash : AttentionKernel::unfused;
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
  // s = 8192, b = 1, h = 8192, t = 8, SP, flash: sbh = 67,108,864. Per sbh / t: replicated 10, Q 2,
  // attention output 2, SwiGLU 6 f/h = 21 (gate and up 4 f/h, down input 2 f/h); K and V 4 g/a = 0.5.
  // (10 + 2 + 2 + 21 + 0.5) / 8 = 4.4375 -> 297,795,584 B. cp = 2 halves the tokens per rank.
  const TrainingSpec training{.seq_len = 8192, .micro_batch = 1, .recompute = Recompute::none};
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .sp = true}, training) ==
        doctest::Approx(297795584.0));
  CHECK(activation_bytes_per_layer(test::llama3_70b(), {.tp = 8, .cp = 2, .sp = true}, training) ==
        doctest::Approx(297795584.0 / 2.0));
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
}

TEST_CASE("memory: Adam state bytes per parameter for each ZeRO stage") {
  // Llama 3 8B on one stage, tp = 1, dp = 8: 8,030,261,248 parameters. Mixed-precision Adam:
  // ZeRO-0 2 + 4 + 12 = 18 B; ZeRO-1 6 + 12/8 = 7.5 B; ZeRO-2 2 + 16/8 = 4 B; ZeRO-3 18/8 = 2.25 B.
  const double n = 8030261248.0;
  const auto state = [&](int zero) {
    const MemoryBreakdown m = memory_per_gpu(test::llama3_8b(), {.dp = 8, .zero = zero},
                                             {.seq_len = 8192, .micro_batch = 1}, 32, true, true, 1.0);
    CHECK(m.parameters == doctest::Approx(n));
    return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
  };
  CHECK(state(0) == doctest::Approx(18.0 * n));
  CHECK(state(1) == doctest::Approx(7.5 * n));
  CHECK(state(2) == doctest::Approx(4.0 * n));
  CHECK(state(3) == doctest::Approx(2.25 * n));
  // Context-parallel ranks hold the same parameters, so the optimizer shards over dp x cp = 16.
  const MemoryBreakdown cp2 = memory_per_gpu(test::llama3_8b(), {.dp = 8, .cp = 2, .zero = 1},
                                             {.seq_len = 8192, .micro_batch = 1}, 32, true, true, 1.0);
  CHECK(cp2.optimizer_bytes == doctest::Approx(12.0 / 16.0 * n));
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
                                           12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(12.0 * 8.0 * 106954752.0));
  CHECK(m.other_bytes == 0.0);
  CHECK(m.total_bytes ==
        doctest::Approx(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes));
}

TEST_CASE("memory: the last stage holds the output norm, logits input and fp32 logits") {
  // Korthikanti: 4 sbh/t (1 + V/h) per micro-batch with SP. GPT-3 175B, t = 8, one micro-batch in
  // flight: 4 x 25,165,824 / 8 x (1 + 51200/12288) = 12,582,912 + 52,428,800 = 65,011,712 B.
  const MemoryBreakdown m = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                           {.seq_len = 2048, .micro_batch = 1}, 12, false, true, 1.0);
  CHECK(m.other_bytes == doctest::Approx(65011712.0));
}

TEST_CASE("memory: full recompute keeps layer inputs plus one layer's working set") {
  // GPT-3 175B, t = 8 with SP, 12 layers, 8 in flight: stored 12 x 8 x 2 sbh/t = 96 x 6,291,456;
  // during a layer's backward its recomputed activations (34 sbh/t = 106,954,752) are live.
  const MemoryBreakdown m = memory_per_gpu(test::gpt3_175b(), {.tp = 8, .pp = 8, .sp = true},
                                           {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::full},
                                           12, false, false, 8.0);
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
      12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(96.0 * 6291456.0));
  CHECK(m.other_bytes == doctest::Approx(358612992.0));
}

TEST_CASE("memory: unfused attention stores the 5as/h term per micro-batch in flight") {
  // GPT-3 175B, t = 8 with SP, no recompute, 12 layers, 8 micro-batches in flight (as the test of
  // flash above): 12 x 8 x 358,612,992 B (Korthikanti's TP + SP row) instead of 12 x 8 x 106,954,752.
  const MemoryBreakdown m = memory_per_gpu(
      test::gpt3_175b(), {.tp = 8, .pp = 8, .dp = 1, .sp = true},
      {.seq_len = 2048, .micro_batch = 1, .recompute = Recompute::none, .attention = AttentionKernel::unfused},
      12, false, false, 8.0);
  CHECK(m.activations_bytes == doctest::Approx(12.0 * 8.0 * 358612992.0));
}

TEST_CASE("memory: fitting leaves the named reserve free") {
  // An 80 GiB GPU with the 3 GiB reserve fits 77 GiB of model state, not 77.5 GiB.
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  GpuSpec gpu = test::h100();
  gpu.hbm_bytes = 80.0 * gib;
  CHECK(kMemoryReserveBytes == 3.0 * gib);
  CHECK(fits_in_memory(77.0 * gib, gpu));
  CHECK_FALSE(fits_in_memory(77.5 * gib, gpu));
  CHECK(fits_in_memory(79.5 * gib, gpu, 0.0));
}

}  // namespace
}  // namespace clustersim::models
