// libFuzzer target: the validation CSV (scenarios/csv_reader.cpp, scenarios/validation_runs.cpp):
// the rows, and each row mapped to a scenario or a reason to skip it. Built only with
// CLUSTERSIM_FUZZ=ON (tools/fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenarios/scenario_error.hpp"
#include "scenarios/validation_runs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& row : clustersim::scenarios::read_validation_rows(text, "fuzz")) {
      (void)clustersim::scenarios::map_validation_row(row, "fuzz");
    }
  } catch (const clustersim::scenarios::ScenarioError&) {
    // a clean error: what bad input must give
  }
  return 0;
}
