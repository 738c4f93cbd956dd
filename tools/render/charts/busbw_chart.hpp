#pragma once
/// The picture of `clustersim collective`: bus bandwidth against message size on a log2 axis of
/// binary sizes ("busbw"), the prediction and, when given, a real nccl-tests log's rows (the
/// faster of out-of-place and in-place at each size, as calibration reads them).

#include <optional>
#include <string>

#include "calibration/nccl_tests_log.hpp"
#include "tools/render/nccl_tests_table.hpp"

namespace clustersim::tools::charts {

std::string busbw_svg(const NcclTestsRun& predicted, const calibration::NcclTestsLog* measured);

/// busbw of a log row at its faster placement.
double measured_busbw_gbps(const calibration::NcclTestsRow& row);

}  // namespace clustersim::tools::charts
