#include "models/spec/moe.hpp"

#include <algorithm>
#include <numeric>

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
  if (!is_moe(model)) return 0;  // a search asks this of every stage of every layout
  std::int64_t first = 0, n = 0;
  for (std::size_t i = 0; i < split.size(); ++i) {
    if (static_cast<std::int64_t>(i) % pp == stage) n += moe_layers_in(model, first, split[i]);
    first += split[i];
  }
  return n;
}

double expert_holders_per_token(const TransformerSpec& model, MoeRouting routing, std::int64_t holders) {
  const std::int64_t experts = model.experts, k = std::min(model.experts_per_token, experts);
  if (experts <= 0 || k <= 0 || holders <= 1) return 1.0;
  const std::int64_t per_holder = std::max<std::int64_t>(1, experts / holders);
  if (routing == MoeRouting::uniform) {
    double missed = 1.0;  // C(E - e, k) / C(E, k)
    for (std::int64_t i = 0; i < k; ++i)
      missed *= std::max(0.0, static_cast<double>(experts - per_holder - i) / static_cast<double>(experts - i));
    return static_cast<double>(holders) * (1.0 - missed);
  }
  // Starts k t mod E repeat after E / gcd(k, E) tokens.
  const std::int64_t cycle = experts / std::gcd(k, experts);
  double sum = 0.0;
  for (std::int64_t t = 0; t < cycle; ++t) {
    const std::int64_t first = (k * t) % experts, last = first + k - 1;
    std::int64_t count = last < experts ? last / per_holder - first / per_holder + 1
                                        : (holders - first / per_holder) + ((last - experts) / per_holder + 1);
    sum += static_cast<double>(std::min(count, holders));
  }
  return sum / static_cast<double>(cycle);
}

}  // namespace clustersim::models
