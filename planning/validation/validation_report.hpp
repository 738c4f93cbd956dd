#pragma once
/// Predicted against measured step time for every run of a validation CSV (see
/// scenarios/validation_runs.hpp for how rows become scenarios and measured step times).
/// error = (predicted - measured) / measured, signed: +0.05 means the model is 5% slow.
/// Statistics are over |error|: MAPE (mean), median and max; `bias` is the mean signed error.
/// Limitations: one simulated step per row with the analytic fidelity; rows keep CSV order.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "planning/validation/validation_family.hpp"
#include "scenarios/validation_runs.hpp"

namespace clustersim::planning {

struct ValidationResult {
  scenarios::ValidationCase run;
  double predicted_step_time_s = 0.0;
  double error = 0.0;
  double predicted_mfu = 0.0;
  double measured_mfu = 0.0;  // implied by the measured step time (model FLOPs, dense peak)
  double bubble_fraction = 0.0;
  double exposed_comm_fraction = 0.0;
  bool fits_in_memory = true;
};

struct ErrorStats {
  double mape = 0.0;    // mean |error|
  double median = 0.0;  // median |error|
  double max = 0.0;     // max |error|
  double bias = 0.0;    // mean signed error
  std::int64_t count = 0;
};

/// The statistics of signed errors; all zero for none.
ErrorStats error_stats(std::span<const double> errors);

/// The shares of the predicted step that communication leaves exposed, by which the report groups
/// the runs: [0, 2 %), [2, 6 %), [6, 12 %), [12, 20 %), [20 %, 100 %]. The published runs' errors
/// grow with that share, so a layout's share says how far its prediction is trusted beyond its
/// validation family's band.
inline constexpr std::array<double, 4> kExposedCommEdges{0.02, 0.06, 0.12, 0.20};

/// "under 2 %", "2-6 %", ..., "20 % and more": the label of the group holding `exposed_fraction`.
std::string exposed_comm_group(double exposed_fraction);

struct ValidationReport {
  std::vector<ValidationResult> rows;                     // CSV order
  std::vector<scenarios::SkippedRow> skipped;             // CSV order
  std::vector<std::pair<std::string, ErrorStats>> by_source;  // families, in order of first row
  // The runs grouped by their predicted exposed-communication share (kExposedCommEdges), least first;
  // groups without a run are left out.
  std::vector<std::pair<std::string, ErrorStats>> by_exposed_comm;
  // Validation families (family_label), in order of first row: the bands sweep and plan give.
  std::vector<std::pair<std::string, RunSpread>> by_validation_family;
  ErrorStats overall;
};

/// One mapped row simulated and compared, or skipped with the step model's reason.
std::variant<ValidationResult, scenarios::SkippedRow> validate_case(scenarios::ValidationCase run);

/// Maps, simulates and compares every row. Throws ScenarioError("<source>:<line>") for a malformed
/// file; rows the step model rejects are skipped with its message.
ValidationReport run_validation(std::string_view csv_text, std::string_view source_name);

}  // namespace clustersim::planning
