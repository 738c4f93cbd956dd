#include "planning/validation/validation_report.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <variant>

#include <fmt/format.h>

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

std::variant<ValidationResult, scenarios::SkippedRow> validate_case(scenarios::ValidationCase run) {
  models::StepReport step;
  try {
    step = models::step_report(calibration::step_inputs(run.scenario));
  } catch (const models::LayoutError& error) {
    return scenarios::SkippedRow{.id = run.id,
                                 .family = run.family,
                                 .line = run.line,
                                 .reason = "layout rejected by the step model: " + scenarios::json_pointer(error.field()) +
                                           ": " + error.rule()};
  }
  const double measured = run.measured.step_time_s;
  const double error = (step.times.step_time_s - measured) / measured;
  return ValidationResult{.run = std::move(run),
                          .predicted_step_time_s = step.times.step_time_s,
                          .error = error,
                          .predicted_mfu = step.mfu,
                          .measured_mfu = step.mfu * step.times.step_time_s / measured,
                          .bubble_fraction = step.times.bubble_fraction,
                          .exposed_comm_fraction = step.times.exposed_comm_fraction,
                          .fits_in_memory = step.fits_in_memory};
}

namespace {

// The group of an exposed share: the number of edges it reaches.
std::size_t exposed_comm_index(double exposed_fraction) {
  std::size_t group = 0;
  while (group < kExposedCommEdges.size() && exposed_fraction >= kExposedCommEdges[group]) ++group;
  return group;
}

std::string exposed_comm_label(std::size_t group) {
  const auto percent = [](double edge) { return static_cast<int>(std::lround(edge * 100.0)); };
  if (group == 0) return fmt::format("under {} %", percent(kExposedCommEdges.front()));
  if (group == kExposedCommEdges.size()) return fmt::format("{} % and more", percent(kExposedCommEdges.back()));
  return fmt::format("{}-{} %", percent(kExposedCommEdges[group - 1]), percent(kExposedCommEdges[group]));
}

}  // namespace

std::string exposed_comm_group(double exposed_fraction) { return exposed_comm_label(exposed_comm_index(exposed_fraction)); }

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
    auto validated = validate_case(std::move(std::get<scenarios::ValidationCase>(mapped)));
    if (auto* skipped = std::get_if<scenarios::SkippedRow>(&validated)) {
      report.skipped.push_back(std::move(*skipped));
      continue;
    }
    auto& result = std::get<ValidationResult>(validated);
    const std::string family(result.run.family->name);
    if (!family_errors.contains(family)) family_order.push_back(family);
    family_errors[family].push_back(result.error);
    all_errors.push_back(result.error);
    const auto& s = result.run.scenario;
    const std::string label = family_label(validation_family(s.cluster.gpu.name, s.parallelism, s.training, s.model.experts > 0));
    auto spread = std::find_if(report.by_validation_family.begin(), report.by_validation_family.end(),
                               [&](const auto& entry) { return entry.first == label; });
    if (spread == report.by_validation_family.end()) {
      report.by_validation_family.emplace_back(label, RunSpread{});
      spread = std::prev(report.by_validation_family.end());
    }
    spread->second.add(result.run.measured.step_time_s, result.predicted_step_time_s);
    report.rows.push_back(std::move(result));
  }
  for (const auto& family : family_order) {
    report.by_source.emplace_back(family, error_stats(family_errors[family]));
  }
  // The groups, least exposed first.
  std::vector<std::vector<double>> exposed_errors(kExposedCommEdges.size() + 1);
  for (const auto& r : report.rows) exposed_errors[exposed_comm_index(r.exposed_comm_fraction)].push_back(r.error);
  for (std::size_t g = 0; g < exposed_errors.size(); ++g)
    if (!exposed_errors[g].empty()) report.by_exposed_comm.emplace_back(exposed_comm_label(g), error_stats(exposed_errors[g]));
  report.overall = error_stats(all_errors);
  return report;
}

}  // namespace clustersim::planning
