// libFuzzer target: the calibration profile loader (calibration/profile.cpp). Built only with
// CLUSTERSIM_FUZZ=ON (tools/fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calibration/profile.hpp"
#include "scenarios/scenario_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const clustersim::calibration::CalibrationProfile profile = clustersim::calibration::parse_profile(text, "fuzz");
    // What was accepted must write and read back.
    (void)clustersim::calibration::parse_profile(clustersim::calibration::profile_to_json(profile), "fuzz round trip");
  } catch (const clustersim::scenarios::ScenarioError&) {
    // a clean error: what bad input must give
  }
  return 0;
}
