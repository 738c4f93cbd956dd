#pragma once
// The one table of HTML reports the tests write (report_commands.txt): which command writes each,
// and the charts it must hold. html_report_test.cpp checks the files; the browser check
// (browser_report_test.cpp) renders each one in headless Chromium.

#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {

struct ReportCommand {
  std::string name;       // the report's name in messages and in docs/report-NAME.png
  std::string arguments;  // `clustersim ARGUMENTS --report FILE` writes it
  std::vector<std::string> charts;  // data-chart names it must hold
};

// The table, tests/tools/render/report_commands.txt (also read by tools/screenshots): one report
// a line, "NAME | ARGUMENTS | CHARTS"; '#' starts a comment line.
inline std::vector<ReportCommand> parse_report_commands(const std::string& text) {
  const auto trim = [](std::string field) {
    const auto first = field.find_first_not_of(" \t"), last = field.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : field.substr(first, last - first + 1);
  };
  std::vector<ReportCommand> table;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (trim(line).empty() || trim(line).front() == '#') continue;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '|');) fields.push_back(trim(cell));
    REQUIRE_MESSAGE(fields.size() == 3, "report_commands.txt: 3 fields separated by | in: " << line);
    ReportCommand report{.name = fields[0], .arguments = fields[1], .charts = {}};
    std::istringstream charts(fields[2]);
    for (std::string chart; charts >> chart;) report.charts.push_back(chart);
    REQUIRE_MESSAGE(!report.charts.empty(), "report_commands.txt: no chart named in: " << line);
    table.push_back(std::move(report));
  }
  return table;
}

inline const std::vector<ReportCommand>& report_commands() {
  static const std::vector<ReportCommand> table =
      parse_report_commands(read_text(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/tools/render/report_commands.txt"));
  return table;
}

struct WrittenReports {
  TempDir dir;
  std::map<std::string, std::string> paths;  // report name -> file
};

// Every report of the table, written once per test process (plan takes seconds).
inline const WrittenReports& written_reports() {
  static WrittenReports out;
  static bool written = false;
  if (written) return out;
  written = true;
  REQUIRE_MESSAGE(!report_commands().empty(), "tests/tools/render/report_commands.txt is missing or lists no report");
  for (const ReportCommand& report : report_commands()) {
    CAPTURE(report.name);
    const std::string path = out.dir / (report.name + ".html");
    const Outcome outcome = run_clustersim(report.arguments + " --report " + path);
    CAPTURE(outcome.err);
    REQUIRE(outcome.exit_code == 0);
    out.paths[report.name] = path;
  }
  return out;
}

}  // namespace clustersim::test
