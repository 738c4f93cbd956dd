#pragma once
/// `collective --report`: bus bandwidth against size (the prediction, and a real nccl-tests log
/// when --compare gives one), the sizes as a table (predicted and measured busbw and their
/// ratio), then the predicted nccl-tests output.

#include <string>

#include "calibration/nccl_tests_log.hpp"
#include "tools/render/nccl_tests_table.hpp"

namespace clustersim::tools {

std::string collective_report_html(const NcclTestsRun& run, const std::string& scenario_name,
                                   const calibration::NcclTestsLog* measured);

}  // namespace clustersim::tools
