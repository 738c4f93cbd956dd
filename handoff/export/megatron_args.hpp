#pragma once
/// The Megatron-LM command-line arguments that set up a layout, for `clustersim plan`: parallel
/// sizes, the interleaved schedule's layers per chunk, an uneven first and last stage, sequence and
/// context parallelism, batch sizes, recomputation, the distributed optimizer or FSDP, precision.
/// Limitations: ZeRO-2 has no Megatron-LM flag (it is said so in a comment line); model-shape
/// flags (--num-layers, --hidden-size, ...) are left to the user's model script.
/// Source: Megatron-LM megatron/training/arguments.py (flag names as of core 0.8-0.12).

#include <string>
#include <vector>

#include "planning/search/layout_search.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::handoff {

/// One argument (with its value) per entry, in the order a launch script would list them.
std::vector<std::string> megatron_args(const models::TransformerSpec& model, const planning::Layout& layout);

}  // namespace clustersim::handoff
