#include "models/compute/layer_tensors.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

// DeepSpeed v0.3's stage-3 defaults: persistence threshold 1e5, reuse distance and live limit 1e9.
constexpr TensorRules kDeepSpeed{.persistence_threshold = 1e5, .reuse_distance = 1e9, .max_live = 1e9};

// Megatron-LM's 530B GPT of Narayanan et al. 2021: h = 20,480, MLP 81,920.
TransformerSpec gpt_530b() {
  TransformerSpec m = test::gpt3_175b();
  m.layers = 105;
  m.hidden = 20480;
  m.ffn_hidden = 81920;
  m.heads = 128;
  m.kv_heads = 128;
  return m;
}

}  // namespace

TEST_CASE("layer tensors: GPT-3 175B keeps its biases and LayerNorms under DeepSpeed's persistence threshold") {
  // h = 12,288, ffn 49,152: fused QKV 12,288 x 36,864, projection 12,288^2, two MLP matrices
  // 12,288 x 49,152; the largest bias (the first MLP's, 49,152) stays under 1e5 elements.
  const LayerTensors t = layer_parameter_tensors(test::gpt3_175b(), 1, {.persistence_threshold = 1e5});
  CHECK(t.tensors == 12.0);
  CHECK(t.gathered == 4.0);
  CHECK(t.gathered_params == 452984832.0 + 150994944.0 + 2.0 * 603979776.0);
  CHECK(t.regathered == 0.0);  // no reuse distance: nothing released after a recomputed forward
  // Without a threshold every tensor is gathered: the matrices plus 36,864 + 12,288 x 4 + 49,152 +
  // 12,288 x 2 bias and norm elements.
  const LayerTensors all = layer_parameter_tensors(test::gpt3_175b(), 1, {});
  CHECK(all.gathered == 12.0);
  CHECK(all.gathered_params == t.gathered_params + 36864.0 + 4.0 * 12288.0 + 49152.0 + 2.0 * 12288.0);
}

TEST_CASE("layer tensors: Llama 3 70B on 8 TP ranks, one K/V head each") {
  // q and o 8,192^2 / 8; k and v 8,192 x 128 (8 K/V heads over 8 ranks); gate, up and down
  // 8,192 x 28,672 / 8; two RMSNorm weights of 8,192 under the threshold.
  const LayerTensors t = layer_parameter_tensors(test::llama3_70b(), 8, {.persistence_threshold = 1e5});
  CHECK(t.tensors == 9.0);
  CHECK(t.gathered == 7.0);
  CHECK(t.gathered_params == 2.0 * 8388608.0 + 2.0 * 1048576.0 + 3.0 * 29360128.0);
  CHECK(kv_width_per_rank(test::llama3_70b(), 16) == 128.0);  // heads replicated past 8 ranks
}

TEST_CASE("layer tensors: DeepSpeed regathers what a recomputed forward released, and prefetches under its live limit") {
  // 175B: QKV 453.0 M, projection 151.0 M, MLP 604.0 M each (biases persistent). After the
  // recomputed forward, the modules after a module and their backwards: fc2 none (kept), fc1
  // 2 x 604.0 M = 1.21e9 >= 1e9, the projection and QKV more: 3 regathered. Every module holds
  // under 1e9, so every gather is issued ahead: 4 in the forward; in the backward 4 recomputed and
  // 3 regathered.
  const LayerTensors gpt3 = layer_parameter_tensors(test::gpt3_175b(), 1, kDeepSpeed, true);
  CHECK(gpt3.regathered == 3.0);
  CHECK(gpt3.prefetched_forward == 4.0);
  CHECK(gpt3.prefetched_backward == 7.0);
  // Without recomputation the backward gathers all four, in reverse, each ahead.
  const LayerTensors plain = layer_parameter_tensors(test::gpt3_175b(), 1, kDeepSpeed, false);
  CHECK(plain.regathered == 0.0);
  CHECK(plain.prefetched_backward == 4.0);
  // 530B: QKV 1,258.3 M, projection 419.4 M, MLP 1,677.7 M each. Only a gather whose module
  // before holds under 1e9 goes ahead: forward, fc1 after the projection (1 of 4); backward
  // (QKV, proj, fc1, fc2 recomputed, fc2 kept, fc1, proj, QKV regathered), fc1 after the
  // projection and QKV after the projection (2 of 7).
  const LayerTensors big = layer_parameter_tensors(gpt_530b(), 1, kDeepSpeed, true);
  CHECK(big.gathered_params == 1258291200.0 + 419430400.0 + 2.0 * 1677721600.0);
  CHECK(big.regathered == 3.0);
  CHECK(big.prefetched_forward == 1.0);
  CHECK(big.prefetched_backward == 2.0);
}
