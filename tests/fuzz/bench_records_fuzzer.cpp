// libFuzzer target: the JSON-lines bench-record parser (calibration/bench_records.cpp). Built only
// with CLUSTERSIM_FUZZ=ON (tools/fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calibration/bench_records.hpp"
#include "calibration/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)clustersim::calibration::parse_bench_records(text, "fuzz");
  } catch (const clustersim::calibration::InputError&) {
    // a clean error: what bad input must give
  }
  return 0;
}
