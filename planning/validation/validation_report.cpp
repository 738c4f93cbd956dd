#include "planning/validation/validation_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

#include "models/step/step_model.hpp"
#include "calibration/step_inputs.hpp"
#include "scenarios/layout_pointer.hpp"

namespace clustersim::planning {

ErrorStats error_stats(std::span<const double> errors) {
  ErrorStats stats;
  if (errors.empty()) return stats;
  std::vector<double> magnitudes;
  for (const double e : errors) {
    magnitudes.push_back(std::abs(e));
    stats.mape += std::abs(e);
    stats.bias += e;
  }
  const auto n = static_cast<double>(errors.size());
  stats.mape /= n;
  stats.bias /= n;
  stats.count = static_cast<std::int64_t>(errors.size());
  std::sort(magnitudes.begin(), magnitudes.end());
  const std::size_t mid = magnitudes.size() / 2;
  stats.median = magnitudes.size() % 2 == 1 ? magnitudes[mid] : (magnitudes[mid - 1] + magnitudes[mid]) / 2.0;
  stats.max = magnitudes.back();
  return stats;
}

ValidationReport run_validation(std::string_view csv_text, std::string_view source_name) {
  ValidationReport report;
  std::vector<std::string> family_order;
  std::map<std::string, std::vector<double>> family_errors;
  std::vector<double> all_errors;
  for (const auto& row : scenarios::read_validation_rows(csv_text, source_name)) {
    scenarios::MappedRow mapped = scenarios::map_validation_row(row, source_name);
    if (auto* skipped = std::get_if<scenarios::SkippedRow>(&mapped)) {
      report.skipped.push_back(std::move(*skipped));
      continue;
    }
    auto& run = std::get<scenarios::ValidationCase>(mapped);
    models::StepReport step;
    try {
      step = models::simulate_step(calibration::step_inputs(run.scenario)).report;
    } catch (const models::LayoutError& error) {
      report.skipped.push_back({.id = run.id,
                                .family = run.family,
                                .line = run.line,
                                .reason = "layout rejected by the step model: " + scenarios::json_pointer(error.field()) +
                                          ": " + error.rule()});
      continue;
    }
    const double measured = run.measured.step_time_s;
    const double error = (step.times.step_time_s - measured) / measured;
    const std::string family(run.family->name);
    if (!family_errors.contains(family)) family_order.push_back(family);
    family_errors[family].push_back(error);
    all_errors.push_back(error);
    report.rows.push_back({.run = std::move(run),
                           .predicted_step_time_s = step.times.step_time_s,
                           .error = error,
                           .predicted_mfu = step.mfu,
                           .measured_mfu = step.mfu * step.times.step_time_s / measured,
                           .bubble_fraction = step.times.bubble_fraction,
                           .exposed_comm_fraction = step.times.exposed_comm_fraction,
                           .fits_in_memory = step.fits_in_memory});
  }
  for (const auto& family : family_order) {
    report.by_source.emplace_back(family, error_stats(family_errors[family]));
  }
  report.overall = error_stats(all_errors);
  return report;
}

}  // namespace clustersim::planning
