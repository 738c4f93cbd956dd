#include "handoff/import/config_import.hpp"

#include <fmt/format.h>

#include "handoff/import/framework_imports.hpp"

namespace clustersim::handoff {

ImportedScenario import_config(Framework framework, [[maybe_unused]] std::string_view text, std::string_view source,
                               [[maybe_unused]] const ImportOptions& options) {
  switch (framework) {
    case Framework::megatron_lm: return import_megatron_lm(text, source, options);
    case Framework::nemo: return import_nemo(text, source, options);
    default: break;
  }
  throw ImportError(fmt::format("{}: import of {} configurations is not available yet", source, framework_name(framework)));
}

std::optional<Framework> detect_framework(std::string_view text, std::string_view file_name) {
  const auto ends_with = [&](std::string_view suffix) { return file_name.ends_with(suffix); };
  if (ends_with(".toml")) return Framework::torchtitan;
  if (ends_with(".yaml") || ends_with(".yml")) return Framework::nemo;
  if (ends_with(".json") && (text.find("zero_optimization") != std::string_view::npos ||
                             text.find("train_micro_batch_size_per_gpu") != std::string_view::npos ||
                             text.find("train_batch_size") != std::string_view::npos))
    return Framework::deepspeed;
  if (text.find("--tensor-model-parallel-size") != std::string_view::npos ||
      text.find("--num-layers") != std::string_view::npos || text.find("tensor_model_parallel_size=") != std::string_view::npos ||
      text.find("tensor_model_parallel_size ...") != std::string_view::npos)  // Megatron-LM's printed arguments
    return Framework::megatron_lm;
  return std::nullopt;
}

}  // namespace clustersim::handoff
