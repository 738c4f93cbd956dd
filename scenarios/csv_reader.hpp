#pragma once
/// A small RFC 4180 CSV reader: comma-separated fields, records ended by CRLF or LF, fields in
/// double quotes may hold commas, line breaks and doubled quotes ("" stands for ").
/// Each record remembers the file line it starts on, so later checks can name "<file>:<line>".
/// Limitations: comma separator only; no trimming of spaces around fields (RFC 4180 keeps them);
/// a UTF-8 byte-order mark at the start is skipped; blank lines are skipped (RFC 4180 has none).
/// Errors: ScenarioError("<source>:<line>", "", rule) for an unterminated quoted field or a quote
/// inside an unquoted field or after a closing quote.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::scenarios {

struct CsvRecord {
  std::int64_t line = 0;  // 1-based line of the file on which the record starts
  std::vector<std::string> fields{};
};

/// Every record of `text`, the header included, in file order.
std::vector<CsvRecord> read_csv(std::string_view text, std::string_view source_name);

}  // namespace clustersim::scenarios
