#include "models/compute/layer_tensors.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

TEST_CASE("layer tensors: GPT-3 175B keeps its biases and LayerNorms under DeepSpeed's persistence threshold") {
  // h = 12,288, ffn 49,152: fused QKV 12,288 x 36,864, projection 12,288^2, two MLP matrices
  // 12,288 x 49,152; the largest bias (the first MLP's, 49,152) stays under 1e5 elements.
  const LayerTensors t = layer_parameter_tensors(test::gpt3_175b(), 1, 1e5);
  CHECK(t.tensors == 12.0);
  CHECK(t.gathered == 4.0);
  CHECK(t.gathered_params == 452984832.0 + 150994944.0 + 2.0 * 603979776.0);
  // Without a threshold every tensor is gathered: the matrices plus 36,864 + 12,288 x 4 + 49,152 +
  // 12,288 x 2 bias and norm elements.
  const LayerTensors all = layer_parameter_tensors(test::gpt3_175b(), 1, 0.0);
  CHECK(all.gathered == 12.0);
  CHECK(all.gathered_params == t.gathered_params + 36864.0 + 4.0 * 12288.0 + 49152.0 + 2.0 * 12288.0);
}

TEST_CASE("layer tensors: Llama 3 70B on 8 TP ranks, one K/V head each") {
  // q and o 8,192^2 / 8; k and v 8,192 x 128 (8 K/V heads over 8 ranks); gate, up and down
  // 8,192 x 28,672 / 8; two RMSNorm weights of 8,192 under the threshold.
  const LayerTensors t = layer_parameter_tensors(test::llama3_70b(), 8, 1e5);
  CHECK(t.tensors == 9.0);
  CHECK(t.gathered == 7.0);
  CHECK(t.gathered_params == 2.0 * 8388608.0 + 2.0 * 1048576.0 + 3.0 * 29360128.0);
  CHECK(kv_width_per_rank(test::llama3_70b(), 16) == 128.0);  // heads replicated past 8 ranks
}
