#include "scenarios/layers_per_chunk.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenarios/json_input.hpp"
#include "scenarios/scenario_bounds.hpp"

namespace clustersim::scenarios {

std::optional<Violation> check_layers_per_chunk(std::string_view json_text) {
  nlohmann::json array;
  try {
    array = parse_json_input(json_text);
  } catch (const JsonInputError& error) {
    return Violation{error.pointer(), error.rule()};
  }
  if (!array.is_array()) return Violation{"", "must be an array of layer counts, got " + array.dump()};
  const double most = key_bounds::layers.max;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const nlohmann::json& item = array[i];
    const bool whole = item.is_number_integer() ||
                       (item.is_number_float() && std::trunc(item.get<double>()) == item.get<double>());
    if (!whole || item.get<double>() < 0 || item.get<double>() > most)
      return Violation{fmt::format("/{}", i), fmt::format("must be a layer count, an integer in [0, {}], got {}",
                                                          most, item.dump())};
  }
  return std::nullopt;
}

std::vector<std::int64_t> parse_layers_per_chunk(std::string_view json_text) {
  const nlohmann::json array = nlohmann::json::parse(json_text.begin(), json_text.end());
  std::vector<std::int64_t> layers;
  layers.reserve(array.size());
  for (const nlohmann::json& item : array) layers.push_back(static_cast<std::int64_t>(item.get<double>()));
  return layers;
}

std::string layers_per_chunk_json(const std::vector<std::int64_t>& layers) { return nlohmann::json(layers).dump(); }

}  // namespace clustersim::scenarios
