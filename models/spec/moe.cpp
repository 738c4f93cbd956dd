#include "models/spec/moe.hpp"

#include <algorithm>

namespace clustersim::models {

bool is_moe_layer(const TransformerSpec& model, std::int64_t index) {
  if (!is_moe(model) || index < model.dense_layers) return false;
  const std::int64_t freq = std::max<std::int64_t>(1, model.moe_layer_freq);
  return (index - model.dense_layers) % freq == 0;
}

std::int64_t moe_layers_in(const TransformerSpec& model, std::int64_t first, std::int64_t count) {
  std::int64_t n = 0;
  for (std::int64_t i = first; i < first + count; ++i) n += is_moe_layer(model, i) ? 1 : 0;
  return n;
}

std::int64_t moe_layers_of_stage(const TransformerSpec& model, std::span<const std::int64_t> split, std::int64_t pp,
                                 std::int64_t stage) {
  std::int64_t first = 0, n = 0;
  for (std::size_t i = 0; i < split.size(); ++i) {
    if (static_cast<std::int64_t>(i) % pp == stage) n += moe_layers_in(model, first, split[i]);
    first += split[i];
  }
  return n;
}

}  // namespace clustersim::models
