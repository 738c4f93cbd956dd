// The browser check: every HTML report of report_commands.hpp, rendered in headless Chromium in a
// 1,000 x 800 px window, must keep the rules of browser_rules.hpp (charts present and painted,
// labels apart, readable and dark, nothing past the right edge, legends naming what is drawn).
// One Chromium launch per report, a few seconds each. The test fails when Chromium is there (or
// can be installed, or in CI) and a report breaks a rule; it skips, saying why, only where
// Chromium can be neither found nor installed.

#include <doctest/doctest.h>

#include "tests/tools/render/browser_rules.hpp"
#include "tests/tools/render/headless_chromium.hpp"
#include "tests/tools/render/report_commands.hpp"

namespace clustersim::test {
namespace {

// "html report: headless Chromium" is the prefix tools/check's sanitizer stage leaves out.
TEST_CASE("html report: headless Chromium renders every report within the chart rules") {
  if (!chromium_or_skip()) return;
  const WrittenReports& reports = written_reports();
  for (const ReportCommand& report : report_commands()) {
    CAPTURE(report.name);
    const auto probe = probe_in_chromium(reports.paths.at(report.name));
    if (!probe) continue;  // probe_in_chromium has failed the test, saying why
    for (const Breach& breach : breaches(*probe, report.charts)) FAIL_CHECK(describe(report.name, breach));
  }
}

}  // namespace
}  // namespace clustersim::test
