#include "scenarios/csv_reader.hpp"

#include "scenarios/scenario_error.hpp"

namespace clustersim::scenarios {

std::vector<CsvRecord> read_csv(std::string_view text, std::string_view source_name) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<CsvRecord> records;
  std::int64_t line = 1;
  auto fail = [&](std::int64_t at, const std::string& rule) {
    throw ScenarioError(std::string(source_name) + ":" + std::to_string(at), "", rule);
  };

  std::size_t i = 0;
  const std::size_t n = text.size();
  auto at_line_end = [&](std::size_t k) { return k < n && (text[k] == '\n' || text[k] == '\r'); };
  // Consumes one line break (CRLF, LF or a lone CR) at i.
  auto skip_line_end = [&] {
    if (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') ++i;
    ++i;
    ++line;
  };

  while (i < n) {
    if (at_line_end(i)) {  // blank line
      skip_line_end();
      continue;
    }
    CsvRecord record{.line = line, .fields = {}};
    while (true) {  // one field per iteration
      std::string field;
      if (i < n && text[i] == '"') {
        const std::int64_t opened_on = line;
        ++i;
        while (true) {
          if (i >= n) fail(opened_on, "quoted field is not closed before the end of the file");
          if (text[i] == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          field += text[i++];
        }
        if (i < n && text[i] != ',' && !at_line_end(i)) {
          fail(line, "unexpected character after the closing quote of a field (a quote inside a "
                     "quoted field must be doubled)");
        }
      } else {
        while (i < n && text[i] != ',' && !at_line_end(i)) {
          if (text[i] == '"') fail(line, "quote inside an unquoted field (quote the whole field)");
          field += text[i++];
        }
      }
      record.fields.push_back(std::move(field));
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    records.push_back(std::move(record));
    if (i < n) skip_line_end();
  }
  return records;
}

}  // namespace clustersim::scenarios
