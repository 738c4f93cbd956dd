#pragma once
/// One import function per framework, each in its own file of this folder; config_import.hpp
/// dispatches to them. Each returns the scenario JSON and what it could not map, and throws
/// ImportError for text it cannot read.

#include "handoff/import/config_import.hpp"

namespace clustersim::handoff {

ImportedScenario import_torchtitan(std::string_view text, std::string_view source, const ImportOptions& options);
ImportedScenario import_deepspeed(std::string_view text, std::string_view source, const ImportOptions& options);
ImportedScenario import_megatron_lm(std::string_view text, std::string_view source, const ImportOptions& options);
ImportedScenario import_nemo(std::string_view text, std::string_view source, const ImportOptions& options);

}  // namespace clustersim::handoff
