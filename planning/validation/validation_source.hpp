#pragma once
/// Where a validation study reads its runs: a validation CSV file, or the built-in
/// scenarios/validation/published_runs.csv; and one row of it as the scenario `clustersim run`
/// reads (scenarios/validation_runs.hpp maps rows to scenarios).

#include <string>

#include "scenarios/scenario.hpp"

namespace clustersim::planning {

struct ValidationCsv {
  std::string name{};  // the file's path, or the built-in file's name
  std::string text{};
};

/// `path` empty: the built-in file. Throws ScenarioError(path) for a file that cannot be opened.
ValidationCsv load_validation_csv(const std::string& path);

/// The mapped scenario of the row with this id. Throws std::invalid_argument when no row has it,
/// or when the row is skipped (with the reason); ScenarioError for a malformed file.
scenarios::Scenario validation_row_scenario(const ValidationCsv& csv, const std::string& id);

}  // namespace clustersim::planning
