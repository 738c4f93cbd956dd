#pragma once
/// One export function per framework, each in its own file of this folder; launch_config.hpp
/// dispatches to them.

#include <string>
#include <string_view>
#include <vector>

#include "handoff/export/launch_config.hpp"

namespace clustersim::handoff {

LaunchConfig export_megatron_lm(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                                const planning::Layout& layout);
LaunchConfig export_torchtitan(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                               const planning::Layout& layout);
LaunchConfig export_deepspeed(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                              const planning::Layout& layout);
LaunchConfig export_nemo(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                         const planning::Layout& layout);

/// Notes for the FSDP2 sync keys no framework export sets (training.fsdp_sync_once,
/// training.fsdp_sync_every_micro_batch), appended to `notes`; `framework` names the framework in
/// them ("torchtitan", "Megatron-LM", ...).
void note_fsdp_sync_keys(const models::TrainingSpec& training, std::string_view framework,
                         std::vector<std::string>& notes);

/// The note for training.repeat_kv, which no framework's current release sets (their attention
/// takes the key-value groups as they are), appended to `notes` where it is on.
void note_repeat_kv(const models::TrainingSpec& training, std::string_view framework, std::vector<std::string>& notes);

}  // namespace clustersim::handoff
