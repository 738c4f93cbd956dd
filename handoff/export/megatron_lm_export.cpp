#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"
#include "handoff/export/megatron_args.hpp"

namespace clustersim::handoff {

LaunchConfig export_megatron_lm(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                                const planning::Layout& layout) {
  LaunchConfig config{.framework = Framework::megatron_lm, .source = "megatron/training/arguments.py"};
  std::string script = fmt::format("torchrun --nnodes {} --nproc-per-node {} pretrain_gpt.py",
                                   cluster.num_gpus / cluster.gpus_per_node, cluster.gpus_per_node);
  for (const std::string& arg : megatron_args(model, layout)) script += " \\\n  " + arg;
  config.files.push_back({.name = "pretrain_gpt.sh", .content = script + "\n"});
  return config;
}

}  // namespace clustersim::handoff
