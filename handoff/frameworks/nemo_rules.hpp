#pragma once
/// NeMo 2 / Megatron-Bridge's configuration checks, restated as clustersim rules checked against a
/// recipe's overrides: the dotted ConfigContainer fields an overrides file sets
/// ("model.tensor_model_parallel_size": "8") and the world size the launcher starts.
///
/// Read (not copied) from NVIDIA-NeMo/Megatron-Bridge at commit
/// 067f987df03b8355b03192d88d70f1709fedf51a (2026-08-22): src/megatron/bridge/training/config.py
/// (ConfigContainer.validate and the Megatron-FSDP checks), src/megatron/bridge/training/
/// comm_overlap.py, src/megatron/bridge/training/mixed_precision.py; and from the Megatron-Core it
/// pins (3rdparty/Megatron-LM @ 2a75ac12c54ba6a42b34024756820bf819a2e25f), whose config classes
/// the model provider extends: megatron/core/transformer/transformer_config.py,
/// megatron/core/model_parallel_config.py, megatron/core/transformer/transformer_block.py,
/// megatron/core/pipeline_parallel/schedules.py, megatron/core/num_microbatches_calculator.py.
/// A field the overrides leave out takes the value the rule states as Megatron-Core's default;
/// a recipe may set another, which these rules cannot see.
/// Limitations: only the checks a layout export can meet or break are encoded (not the
/// checkpoint, PEFT, packing, dataset-provider or Megatron-FSDP v2 ones).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "handoff/frameworks/framework_rule.hpp"

namespace clustersim::handoff {

inline constexpr std::string_view kMegatronBridgeCommit = "067f987df03b8355b03192d88d70f1709fedf51a";
inline constexpr std::string_view kMegatronBridgeShortCommit = "067f987";
inline constexpr std::string_view kBridgeMegatronCoreShortCommit = "2a75ac1";

/// A recipe's overrides as dotted fields, and the launch's world size.
struct NemoOverrides {
  std::vector<std::pair<std::string, std::string>> values{};  // in order; later entries win
  std::int64_t world_size = 0;

  bool has(std::string_view key) const;
  /// The text of the last entry; nullopt when absent or null ("", "null", "~", "None").
  std::optional<std::string> text(std::string_view key) const;
  /// Throw std::invalid_argument naming the key when the text is not of the type.
  std::int64_t integer(std::string_view key, std::int64_t fallback) const;
  bool boolean(std::string_view key, bool fallback) const;
  void set(std::string key, std::string value);
};

struct NemoRule {
  std::string_view id;
  std::string_view source;  // "config.py" of Megatron-Bridge, or a Megatron-Core file
  std::string_view requirement;
  std::string_view alternative;
  bool (*holds)(const NemoOverrides&);
};

std::span<const NemoRule> nemo_rules();

/// The rules `overrides` break, each with its source as "repository path @commit".
std::vector<RuleBreach> nemo_breaches(const NemoOverrides& overrides);

/// Megatron-Bridge's registered mixed-precision recipe names (mixed_precision.py) for bf16
/// parameters: bf16_mixed and its fp8 and fp4 variants.
std::span<const std::string_view> nemo_bf16_precision_recipes();

}  // namespace clustersim::handoff
