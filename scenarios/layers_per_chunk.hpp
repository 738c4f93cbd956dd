#pragma once
/// parallelism.layers_per_chunk as the scenario format writes it: a JSON array of the transformer
/// layers of each model chunk, in model order. The cross-field rules (one entry per chunk, the sum
/// the model's layers, an empty chunk only at the two ends) are layout rules
/// (models/spec/layout_rules.hpp); here only the items' own: whole numbers from 0 to
/// key_bounds::layers.max.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {

/// The first broken rule of the array's JSON text, its pointer relative to the key ("/2").
std::optional<Violation> check_layers_per_chunk(std::string_view json_text);

/// The layer counts of JSON text that passes check_layers_per_chunk.
std::vector<std::int64_t> parse_layers_per_chunk(std::string_view json_text);

/// The compact JSON array that parse_layers_per_chunk reads back.
std::string layers_per_chunk_json(const std::vector<std::int64_t>& layers);

}  // namespace clustersim::scenarios
