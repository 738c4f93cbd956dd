#include "handoff/import/config_import.hpp"

#include <fmt/format.h>

#include "handoff/import/framework_imports.hpp"
#include "scenarios/json_input.hpp"

namespace clustersim::handoff {

ImportedScenario import_config(Framework framework, std::string_view text, std::string_view source,
                               const ImportOptions& options) {
  // Every format read here is UTF-8 text (TOML requires it), and what the import copies from it
  // ends up in JSON, which holds UTF-8 only.
  if (const auto bad = scenarios::first_invalid_utf8(text))
    throw ImportError(fmt::format("{}: not UTF-8 text (byte {})", source, *bad + 1));
  switch (framework) {
    case Framework::torchtitan: return import_torchtitan(text, source, options);
    case Framework::deepspeed: return import_deepspeed(text, source, options);
    case Framework::megatron_lm: return import_megatron_lm(text, source, options);
    case Framework::nemo: return import_nemo(text, source, options);
  }
  throw ImportError(fmt::format("{}: unknown framework", source));
}

std::optional<Framework> detect_framework(std::string_view text, std::string_view file_name) {
  const auto ends_with = [&](std::string_view suffix) { return file_name.ends_with(suffix); };
  if (ends_with(".toml")) return Framework::torchtitan;
  if (ends_with(".yaml") || ends_with(".yml")) return Framework::nemo;
  // A Megatron-DeepSpeed launch script: its `deepspeed` launcher line or the --deepspeed flag.
  if (!ends_with(".json") && (text.find("--deepspeed_config") != std::string_view::npos ||
                              text.find("--deepspeed-config") != std::string_view::npos))
    return Framework::deepspeed;
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
