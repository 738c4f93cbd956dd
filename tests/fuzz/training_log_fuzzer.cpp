// libFuzzer target: the training-log readers of `clustersim compare` (handoff/logs/: Megatron-LM,
// NeMo, torchtitan and MLPerf logs, told apart by their content). Built only with CLUSTERSIM_FUZZ=ON
// (tools/fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calibration/input_error.hpp"
#include "handoff/logs/log_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)clustersim::handoff::parse_training_log(text, "fuzz");
  } catch (const clustersim::calibration::InputError&) {
    // a clean error: what bad input must give
  }
  return 0;
}
