// Megatron-LM: the pretrain_gpt.py launch script of a layout, checked against Megatron-LM's
// argument rules (handoff/frameworks/megatron_lm_rules.hpp). A layout Megatron-LM refuses as given
// (torch FSDP2 with pipeline or expert parallelism or tied embeddings) is offered as Megatron-FSDP,
// which runs them, when that passes the rules.

#include <string>
#include <utility>

#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"
#include "handoff/export/megatron_args.hpp"

namespace clustersim::handoff {

namespace {

LaunchConfig config_of(const MegatronLaunch& launch) {
  LaunchConfig config{.framework = Framework::megatron_lm,
                      .source = fmt::format("NVIDIA/Megatron-LM @{}", kMegatronLmShortCommit)};
  config.notes = launch.notes;
  if (launch.nnodes > 1)
    config.notes.push_back("run the script on every node with NODE_RANK (0 to nodes - 1) and MASTER_ADDR (node 0's "
                           "address) set");
  return config;
}

}  // namespace

LaunchConfig export_megatron_lm(const models::TransformerSpec& model, const models::ClusterSpec& cluster,
                                const planning::Layout& layout) {
  const MegatronLaunch as_given = megatron_launch(model, cluster, layout);
  LaunchConfig config = config_of(as_given);
  config.breaches = megatron_lm_breaches(as_given.arguments);
  // The script, and the NCCL options file it names where it names one.
  const auto add_files = [&](const MegatronLaunch& launch) {
    config.files.push_back({.name = "pretrain_gpt.sh", .content = megatron_script(launch)});
    if (std::string nccl = nccl_communicator_config(layout.parallelism); !nccl.empty())
      config.files.push_back({.name = std::string(kNcclCommunicatorConfigFile), .content = std::move(nccl)});
  };
  if (config.breaches.empty()) {
    add_files(as_given);
    return config;
  }
  // ZeRO-3 as torch FSDP2 broken: the Megatron-FSDP form, where it passes every rule.
  const bool fsdp2 = layout.parallelism.zero >= 3 && layout.parallelism.sharding == models::ShardingFramework::fsdp2;
  if (fsdp2) {
    const MegatronLaunch alternative = megatron_launch(model, cluster, layout, MegatronSharding::megatron_fsdp);
    if (megatron_lm_breaches(alternative.arguments).empty()) {
      LaunchConfig offered = config_of(alternative);
      config.notes = offered.notes;
      config.notes.push_back("the script is the Megatron-FSDP form (optim_grads_params) the breaches offer; "
                             "Megatron-FSDP gathers whole layers as FSDP2 does, from one flat buffer");
      add_files(alternative);
    }
  }
  return config;
}

}  // namespace clustersim::handoff
