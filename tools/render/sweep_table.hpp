#pragma once
/// The ranked rows of a sweep as `clustersim sweep` and `clustersim merge` print them: text, JSON
/// and CSV, and the JSON read back for merge. Every figure is written to JSON with full precision,
/// so a sharded search merged from its shard files prints byte for byte what one run prints.

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planning/search/sweep_rows.hpp"

namespace clustersim::tools {

struct TableOptions {
  std::size_t top = 0;  // rows to print; 0: all
};

/// The ranked rows as text (rows already ranked).
std::string sweep_text(const planning::SweepHeader& header, const std::vector<planning::SweepRow>& rows, const TableOptions& options);
/// One JSON object: the header, counts and the first `top` ranked rows (all with top = 0).
nlohmann::ordered_json sweep_json(const planning::SweepHeader& header, const std::vector<planning::SweepRow>& rows,
                                  const TableOptions& options);
/// Every row as CSV, in rank order, with a header line.
std::string sweep_csv(const std::vector<planning::SweepRow>& rows);

/// Reads back what sweep_json wrote (for merge). Throws std::runtime_error on malformed input.
void read_sweep_json(const nlohmann::json& document, planning::SweepHeader& header, std::vector<planning::SweepRow>& rows);

}  // namespace clustersim::tools
