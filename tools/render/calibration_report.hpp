#pragma once
/// The fit report of `clustersim calibrate` (calibration/calibrate.hpp): per collective its
/// alpha-beta segments with 95% intervals and every measured size against the fit; the one-rank
/// collectives; the GEMM fit and its tile check; the profile's constants with their sources and
/// intervals; the notes. As text, or as one JSON object that also holds the profile written.

#include <string>

#include "calibration/calibrate.hpp"

namespace clustersim::tools {

/// `out_path`: where the profile was written (named in the report).
std::string calibration_report_text(const calibration::Calibration& result, const std::string& out_path);
/// One JSON object and a newline; `profile_text` is the profile's JSON as written.
std::string calibration_report_json(const calibration::Calibration& result, const std::string& out_path,
                                    const std::string& profile_text);

}  // namespace clustersim::tools
