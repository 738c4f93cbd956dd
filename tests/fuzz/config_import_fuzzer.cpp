// libFuzzer target: the framework configuration importers (handoff/import/: a Megatron-LM command
// line or arguments file, a NeMo / Megatron-Bridge YAML, a torchtitan TOML, a DeepSpeed JSON
// config), each given every input, and the scenario an import gives loaded as `clustersim import`
// loads it. Built only with CLUSTERSIM_FUZZ=ON (tools/fuzz).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "handoff/import/config_import.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using clustersim::handoff::Framework;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  constexpr std::array frameworks{Framework::megatron_lm, Framework::nemo, Framework::torchtitan, Framework::deepspeed};
  for (const Framework framework : frameworks) {
    try {
      const auto imported = clustersim::handoff::import_config(framework, text, "fuzz", {});
      (void)clustersim::scenarios::load_scenario_text(imported.scenario.dump(2), "fuzz import");
    } catch (const clustersim::handoff::ImportError&) {
      // a clean error: what a configuration that cannot be read must give
    } catch (const clustersim::scenarios::ScenarioError&) {
      // a clean error: an imported layout the scenario rules refuse
    }
  }
  (void)clustersim::handoff::detect_framework(text, "fuzz");
  return 0;
}
