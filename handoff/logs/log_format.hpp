#pragma once
/// Which log a file is, told from its lines, and reading it as that: the training frameworks' step
/// logs (step_log.hpp) and nccl-tests output (calibration/nccl_tests_log.hpp). The first line that
/// only one format prints decides: ":::MLLOG " (MLPerf), "elapsed time per iteration (ms):"
/// (Megatron-LM), "train_step_timing in s" (NeMo), a torchtitan "step: ... loss: ... tps:" line,
/// nccl-tests' "# nThread" header.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "calibration/nccl_tests_log.hpp"
#include "handoff/logs/step_log.hpp"

namespace clustersim::handoff {

/// Throws calibration::InputError "<file>:<line>: ..." naming the first non-blank line (line 0 for
/// an empty file) when no line is of a known format.
LogFormat detect_log_format(std::string_view text, const std::string& file);

struct TrainingLog {
  LogFormat format = LogFormat::megatron_lm;
  std::optional<StepLog> steps{};                    // a framework's log
  std::optional<calibration::NcclTestsLog> nccl{};   // an nccl-tests log
};

TrainingLog parse_training_log(std::string_view text, const std::string& file);
/// Reads the file (errors name the path as given) and parses it.
TrainingLog read_training_log(const std::filesystem::path& path);

}  // namespace clustersim::handoff
