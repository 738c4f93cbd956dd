#include "models/compute/layer_tensors.hpp"

#include <array>

namespace clustersim::models {

double kv_width_per_rank(const TransformerSpec& model, std::int64_t tp) {
  const std::int64_t kv_heads_per_rank = (model.kv_heads + tp - 1) / tp;  // replicated if g < tp
  return static_cast<double>(kv_heads_per_rank * (model.hidden / model.heads));
}

LayerTensors layer_parameter_tensors(const TransformerSpec& model, std::int64_t tp, double persistence_threshold) {
  const auto h = static_cast<double>(model.hidden);
  const auto f = static_cast<double>(model.ffn_hidden);
  const auto t = static_cast<double>(tp);
  const double kv = kv_width_per_rank(model, tp);
  std::array<double, 12> sizes{};
  std::size_t count = 0;
  auto add = [&](double elements) { sizes[count++] = elements; };
  if (model.mlp == MlpKind::swiglu) {
    add(h * h / t);  // q
    add(h * kv);     // k, v
    add(h * kv);
    add(h * h / t);  // output projection
    for (int m = 0; m < 3; ++m) add(h * f / t);  // gate, up, down
    add(h);  // two RMSNorm weights
    add(h);
  } else {
    add(h * (h / t + 2.0 * kv));  // fused QKV and its bias
    add(h / t + 2.0 * kv);
    add(h * h / t);  // projection and its bias
    add(h);
    for (int n = 0; n < 4; ++n) add(h);  // two LayerNorms, weight and bias
    add(h * f / t);  // MLP matrices and their biases
    add(f / t);
    add(h * f / t);
    add(h);
  }
  LayerTensors out;
  for (std::size_t i = 0; i < count; ++i) {
    out.tensors += 1.0;
    if (sizes[i] < persistence_threshold) continue;
    out.gathered += 1.0;
    out.gathered_params += sizes[i];
  }
  return out;
}

}  // namespace clustersim::models
