#pragma once
/// The training frameworks clustersim hands layouts to and reads configurations from, by the name
/// the command line uses (`--export megatron-lm`, `import --framework torchtitan`).

#include <optional>
#include <span>
#include <string_view>

namespace clustersim::handoff {

enum class Framework {
  megatron_lm,  // NVIDIA Megatron-LM: pretrain_gpt.py command-line arguments
  nemo,         // NVIDIA NeMo 2 / Megatron-Bridge: recipe overrides (YAML)
  torchtitan,   // PyTorch torchtitan: its TOML job config
  deepspeed,    // Megatron-DeepSpeed: the DeepSpeed JSON config with launcher and model flags
};

/// "megatron-lm", "nemo", "torchtitan", "deepspeed".
std::string_view framework_name(Framework framework);
/// Every framework, in the order above.
std::span<const Framework> all_frameworks();
/// The framework of a name as framework_name gives it; nullopt for anything else.
std::optional<Framework> parse_framework(std::string_view name);
/// "megatron-lm, nemo, torchtitan, deepspeed": for error messages.
std::string_view framework_name_list();

}  // namespace clustersim::handoff
