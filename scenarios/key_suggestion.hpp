#pragma once
/// "Did you mean" for a misspelt scenario key: the allowed key closest to it, if it is a plausible
/// typo. Keys are "<quantity>_<unit>", so a shared prefix counts for more than raw edit distance
/// (Levenshtein): "nic_gbps" means nic_gbit_per_s (distance 6), not num_gpus (distance 4).

#include <optional>
#include <string_view>
#include <vector>

namespace clustersim::scenarios {

std::optional<std::string_view> closest_key(std::string_view key, const std::vector<std::string_view>& allowed);

}  // namespace clustersim::scenarios
