#pragma once
/// `clustersim import`: a training framework's configuration (a Megatron-LM command line or
/// arguments file, a NeMo 2 / Megatron-Bridge YAML, a torchtitan TOML, a DeepSpeed JSON config)
/// turned into a clustersim scenario, with what could not be mapped named.

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "handoff/frameworks/framework.hpp"

namespace clustersim::handoff {

/// What a configuration file does not say and the launcher does: the cluster it runs on.
struct ImportOptions {
  std::int64_t nodes = 0;          // 0: from the configuration where it says (else one node)
  std::int64_t gpus_per_node = 0;  // 0: from the configuration where it says (else 8)
  std::string gpu{};               // a GPU preset name; empty: the configuration's, else h100-sxm
  // The text of a file the configuration names (Megatron-LM's --nccl-communicator-config-path),
  // as the caller resolves the name (the CLI: beside the configuration); none where it cannot be
  // read. Unset: such files are not read.
  std::function<std::optional<std::string>(const std::string& name)> read_named_file{};
};

struct ImportedScenario {
  nlohmann::ordered_json scenario{};    // a scenario JSON object, as `clustersim run` reads it
  std::vector<std::string> unmapped{};  // settings of the configuration clustersim does not model
  std::vector<std::string> notes{};     // settings mapped with an assumption, and the assumption
};

/// Raised for a configuration that cannot be read (syntax) or that lacks what a scenario needs;
/// the message names the file, the setting and the rule. The CLI reports it with exit code 2.
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The scenario of `text` (the contents of `source`, named in errors) in `framework`'s format.
ImportedScenario import_config(Framework framework, std::string_view text, std::string_view source,
                               const ImportOptions& options);

/// The framework whose format `text` is in (by file name and content), nullopt if none fits.
std::optional<Framework> detect_framework(std::string_view text, std::string_view file_name);

}  // namespace clustersim::handoff
