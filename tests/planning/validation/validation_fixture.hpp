#pragma once
// Small validation CSVs for the band tests: rows of the built-in published_runs.csv, optionally
// changed (another GPU, precision or ZeRO stage), whose measured step time is set to a chosen
// multiple of what the step model predicts for them, so that a family's band is known by hand.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "planning/validation/validation_report.hpp"
#include "scenarios/csv_reader.hpp"
#include "scenarios/validation_runs.hpp"

namespace clustersim::test {

struct FixtureRow {
  std::string id;                              // a row of the built-in CSV
  double measured_over_predicted = 1.0;        // the measured step time, as a multiple of the prediction
  std::map<std::string, std::string> changes{};  // column -> new value
  std::string new_id{};                        // the row's id in the fixture (default: id)
};

inline std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    std::string quoted = "\"";
    for (const char c : fields[i]) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    line += (i ? "," : "") + quoted + "\"";
  }
  return line + "\n";
}

/// The fixture's rows under the built-in header; each row's prediction is the step model's now.
inline std::string fixture_csv(const std::vector<FixtureRow>& wanted) {
  const auto records = scenarios::read_csv(scenarios::embedded_validation_csv(), "embedded");
  const std::vector<std::string>& header = records.front().fields;
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    throw std::invalid_argument("no column " + name);
  };
  std::string text = csv_line(header);
  for (const FixtureRow& w : wanted) {
    std::vector<std::string> fields;
    for (std::size_t r = 1; r < records.size(); ++r) {
      if (records[r].fields.at(column("id")) == w.id) fields = records[r].fields;
    }
    REQUIRE_MESSAGE(!fields.empty(), "no built-in row " << w.id);
    if (!w.new_id.empty()) fields[column("id")] = w.new_id;
    for (const auto& [name, value] : w.changes) fields[column(name)] = value;
    for (const char* measured : {"measured_tflops_per_gpu", "measured_mfu", "measured_tokens_per_sec_per_gpu"}) {
      fields[column(measured)].clear();
    }
    // Any step time maps the row; the prediction does not depend on what was measured.
    fields[column("measured_step_time_s")] = "1";
    const std::string one_row = csv_line(header) + csv_line(fields);
    const auto rows = scenarios::read_validation_rows(one_row, "fixture");
    auto mapped = scenarios::map_validation_row(rows.at(0), "fixture");
    REQUIRE_MESSAGE(std::holds_alternative<scenarios::ValidationCase>(mapped), "row " << w.id << " is skipped");
    const auto result = planning::validate_case(std::get<scenarios::ValidationCase>(std::move(mapped)));
    REQUIRE(std::holds_alternative<planning::ValidationResult>(result));
    const double predicted = std::get<planning::ValidationResult>(result).predicted_step_time_s;
    fields[column("measured_step_time_s")] = fmt::format("{:.17g}", w.measured_over_predicted * predicted);
    text += csv_line(fields);
  }
  return text;
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace clustersim::test
