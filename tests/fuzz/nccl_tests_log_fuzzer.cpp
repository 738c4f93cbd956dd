// libFuzzer target: the nccl-tests log parser (calibration/nccl_tests_log.cpp). Built only with
// CLUSTERSIM_FUZZ=ON (tools/fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calibration/input_error.hpp"
#include "calibration/nccl_tests_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)clustersim::calibration::parse_nccl_tests_log(text, "fuzz");
  } catch (const clustersim::calibration::InputError&) {
    // a clean error: what bad input must give
  }
  return 0;
}
