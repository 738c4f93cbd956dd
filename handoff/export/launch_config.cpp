#include "handoff/export/launch_config.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "handoff/export/framework_exports.hpp"

namespace clustersim::handoff {

LaunchConfig export_launch(Framework framework, const models::TransformerSpec& model,
                           const models::ClusterSpec& cluster, const planning::Layout& layout) {
  switch (framework) {
    case Framework::megatron_lm: return export_megatron_lm(model, cluster, layout);
    case Framework::torchtitan: return export_torchtitan(model, cluster, layout);
    case Framework::deepspeed: return export_deepspeed(model, cluster, layout);
    case Framework::nemo: return export_nemo(model, cluster, layout);
  }
  throw std::invalid_argument("--export: unknown framework");
}

void note_fsdp_sync_keys(const models::TrainingSpec& training, std::string_view framework,
                         std::vector<std::string>& notes) {
  if (training.fsdp_sync_once)
    notes.push_back(fmt::format("training.fsdp_sync_once is not exported: it is NeMo Automodel's "
                                "enable_fsdp_optimizations, which has no {} setting",
                                framework));
  if (training.fsdp_sync_every_micro_batch)
    notes.push_back(fmt::format("training.fsdp_sync_every_micro_batch is not exported: it is FSDP2 under PyTorch's "
                                "pipelining with a stage module that is not itself FSDP-wrapped, which {} does not "
                                "build",
                                framework));
}

void note_repeat_kv(const models::TrainingSpec& training, std::string_view framework, std::vector<std::string>& notes) {
  if (training.repeat_kv)
    notes.push_back(fmt::format("training.repeat_kv is not exported: {} hands the attention the key-value groups as "
                                "they are (torchtitan's Llama copied them to the query heads until 2026-01-27)",
                                framework));
}

std::string launch_config_text(const LaunchConfig& config) {
  std::string text = fmt::format("{} ({}): ", framework_name(config.framework), config.source);
  text += config.runs_as_given() ? "runs this layout as given\n" : "does not run this layout as given\n";
  for (const RuleBreach& b : config.breaches) {
    text += fmt::format("  breaks {} ({}): {}\n", b.rule, b.source, b.message);
    if (!b.alternative.empty()) text += fmt::format("    instead: {}\n", b.alternative);
  }
  for (const std::string& note : config.notes) text += fmt::format("  note: {}\n", note);
  for (const LaunchFile& file : config.files) text += fmt::format("--- {}\n{}", file.name, file.content);
  return text;
}

nlohmann::ordered_json launch_config_json(const LaunchConfig& config) {
  nlohmann::ordered_json breaches = nlohmann::ordered_json::array();
  for (const RuleBreach& b : config.breaches)
    breaches.push_back({{"rule", b.rule}, {"source", b.source}, {"message", b.message}, {"alternative", b.alternative}});
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const LaunchFile& f : config.files) files.push_back({{"name", f.name}, {"content", f.content}});
  return {{"framework", framework_name(config.framework)},
          {"source", config.source},
          {"runs_as_given", config.runs_as_given()},
          {"breaches", breaches},
          {"notes", config.notes},
          {"files", files}};
}

}  // namespace clustersim::handoff
