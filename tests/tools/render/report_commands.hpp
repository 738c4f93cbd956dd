#pragma once
// The one table of HTML reports the tests write: which command writes each, and the charts it
// must hold. html_report_test.cpp checks the files; the browser check (browser_report_test.cpp)
// renders each one in headless Chromium.

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {

struct ReportCommand {
  std::string name;       // the report's name in messages and in docs/report-NAME.png
  std::string arguments;  // `clustersim ARGUMENTS --report FILE` writes it
  std::vector<std::string> charts;  // data-chart names it must hold; empty: at least one chart
  // false: the command is skipped while its --help does not mention --report (see below).
  bool required = true;
};

// tco, failures and collective are being given --report on another branch (issue 21): until that
// lands they are skipped because their --help has no --report, and only for that reason. At the
// merge the lead sets `required` (and names their charts), so that a missing report fails.
inline const std::vector<ReportCommand>& report_commands() {
  static const std::vector<ReportCommand> table{
      {"run", "run", {"timeline", "timeline-warm-up", "breakdown"}},
      {"sweep", "sweep scenarios/seed/twelve-layouts.json", {"ranking", "timeline", "breakdown"}},
      {"plan",
       "plan --gpus h100-sxm,b200 --min-gpus 128 --max-gpus 256 --topologies rail_optimized --deadline-days 60 --quiet",
       {"pareto", "timeline", "breakdown"}},
      {"tco", "tco --quiet", {}, false},
      {"failures", "failures --runs 50 --quiet", {}, false},
      {"collective", "collective --quiet", {}, false},
  };
  return table;
}

// Whether `clustersim COMMAND --help` offers --report.
inline bool offers_report(const ReportCommand& report) {
  const std::string command = report.arguments.substr(0, report.arguments.find(' '));
  return run_clustersim(command + " --help").out.find("--report") != std::string::npos;
}

struct WrittenReports {
  TempDir dir;
  std::map<std::string, std::string> paths;  // report name -> file; absent: skipped (see skipped)
  std::vector<std::string> skipped;          // why each skipped report was skipped
};

// Every report of the table, written once per test process (plan takes seconds).
inline const WrittenReports& written_reports() {
  static WrittenReports out;
  static bool written = false;
  if (written) return out;
  written = true;
  for (const ReportCommand& report : report_commands()) {
    CAPTURE(report.name);
    if (!report.required && !offers_report(report)) {
      out.skipped.push_back(report.name + ": `clustersim " + report.arguments.substr(0, report.arguments.find(' ')) +
                            " --help` has no --report yet");
      continue;
    }
    const std::string path = out.dir / (report.name + ".html");
    const Outcome outcome = run_clustersim(report.arguments + " --report " + path);
    CAPTURE(outcome.err);
    REQUIRE(outcome.exit_code == 0);
    out.paths[report.name] = path;
  }
  return out;
}

}  // namespace clustersim::test
