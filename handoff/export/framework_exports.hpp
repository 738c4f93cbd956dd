#pragma once
/// One export function per framework, each in its own file of this folder; launch_config.hpp
/// dispatches to them.

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

}  // namespace clustersim::handoff
