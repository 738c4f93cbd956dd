#pragma once
/// The reports of `clustersim validate` (planning/validation/validation_report.hpp): a row per run (predicted
/// and measured step time, signed error, basis), error statistics per source and overall, the
/// skipped rows with their reasons and, on request, each row's derivation and assumptions; or one
/// JSON object with the same.

#include <string>
#include <string_view>

#include "planning/validation/validation_report.hpp"

namespace clustersim::tools {

/// One JSON object and a newline.
std::string validation_report_json(const planning::ValidationReport& report);
/// `details`: also each row's measured-time derivation, cross-checks and assumptions.
std::string validation_report_text(const planning::ValidationReport& report, std::string_view source_name,
                                   bool details);

}  // namespace clustersim::tools
