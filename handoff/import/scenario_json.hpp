#pragma once
/// The scenario JSON an import writes: the model as a preset where its shape is one (else its
/// fields), the cluster from the launcher or ImportOptions, every parallelism and training key.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "handoff/import/config_import.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::handoff {

/// The model preset whose shape is `model`'s (every field but the name), nullopt if none.
/// `ignore_vocab`: match on the other fields (a configuration that names a tokenizer file only).
std::optional<std::string> matching_model_preset(const models::TransformerSpec& model, bool ignore_vocab = false);

/// The cluster of an import: ImportOptions first, then what the configuration's launcher said
/// (0: not said), else one node of 8; the GPU preset h100-sxm unless given.
struct ImportedCluster {
  std::string gpu{};
  std::int64_t nodes = 1;
  std::int64_t gpus_per_node = 8;
  std::int64_t num_gpus() const { return nodes * gpus_per_node; }
};
ImportedCluster imported_cluster(const ImportOptions& options, std::int64_t config_nodes,
                                 std::int64_t config_gpus_per_node, std::int64_t config_world_size,
                                 std::vector<std::string>& notes);

/// {"name", "model", "cluster", "parallelism", "training"} as `clustersim run` reads them.
nlohmann::ordered_json scenario_json(std::string_view name, const models::TransformerSpec& model,
                                     const std::optional<std::string>& preset, const ImportedCluster& cluster,
                                     const models::ParallelismSpec& parallelism, const models::TrainingSpec& training);

}  // namespace clustersim::handoff
