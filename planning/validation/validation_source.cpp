#include "planning/validation/validation_source.hpp"

#include <stdexcept>
#include <variant>

#include <fmt/format.h>

#include "scenarios/scenario_error.hpp"
#include "scenarios/bounded_input.hpp"
#include "scenarios/validation_runs.hpp"

namespace clustersim::planning {

ValidationCsv load_validation_csv(const std::string& path) {
  if (path.empty()) {
    return {.name = std::string(scenarios::embedded_validation_csv_name),
            .text = std::string(scenarios::embedded_validation_csv())};
  }
  return {.name = path, .text = scenarios::read_input_file_bounded(path)};
}

scenarios::Scenario validation_row_scenario(const ValidationCsv& csv, const std::string& id) {
  for (const auto& row : scenarios::read_validation_rows(csv.text, csv.name)) {
    if (row.id != id) continue;
    const scenarios::MappedRow mapped = scenarios::map_validation_row(row, csv.name);
    if (const auto* skipped = std::get_if<scenarios::SkippedRow>(&mapped)) {
      throw std::invalid_argument(fmt::format("validate: row {} is skipped: {}", id, skipped->reason));
    }
    return std::get<scenarios::ValidationCase>(mapped).scenario;
  }
  throw std::invalid_argument(fmt::format("validate: {} has no row with id \"{}\"", csv.name, id));
}

}  // namespace clustersim::planning
