#include <doctest/doctest.h>

#include "scenarios/key_suggestion.hpp"

using clustersim::scenarios::closest_key;

TEST_CASE("key suggestion: a shared prefix outweighs raw edit distance") {
  // "nic_gbps" is 6 edits from nic_gbit_per_s and 4 from num_gpus; the user meant the NIC rate.
  const std::vector<std::string_view> cluster_keys{"num_gpus", "nic_gbit_per_s", "gpus_per_node"};
  CHECK(closest_key("nic_gbps", cluster_keys) == std::optional<std::string_view>("nic_gbit_per_s"));
  CHECK(closest_key("num_gpu", cluster_keys) == std::optional<std::string_view>("num_gpus"));
  // Nothing plausible: no suggestion rather than a wrong one.
  CHECK_FALSE(closest_key("zzzzzz", cluster_keys).has_value());
  CHECK_FALSE(closest_key("tp", {}).has_value());
}
