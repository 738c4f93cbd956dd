// libFuzzer target: the scenario loader with --set overrides. The input is a scenario document,
// then, after each NUL byte, one "path=value" override (JSON text holds no NUL, so the split is
// unambiguous). Built only with CLUSTERSIM_FUZZ=ON (tools/fuzz).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t end = input.find('\0');
  const std::string_view document = input.substr(0, end);
  std::vector<std::string> sets;
  for (std::size_t start = end; start < input.size();) {
    const std::size_t next = input.find('\0', start + 1);
    sets.emplace_back(input.substr(start + 1, next == std::string_view::npos ? next : next - start - 1));
    start = next;
  }
  try {
    const clustersim::scenarios::Scenario scenario = clustersim::scenarios::load_scenario_text(document, "fuzz", sets);
    // What was accepted must write and read back.
    (void)clustersim::scenarios::load_scenario_text(clustersim::scenarios::to_json(scenario), "fuzz round trip");
  } catch (const clustersim::scenarios::ScenarioError&) {
    // a clean error: what bad input must give
  }
  return 0;
}
