// The HTML reports of report_commands.hpp: self-contained files holding their charts. What a
// browser draws from them is checked by browser_report_test.cpp.

#include <doctest/doctest.h>

#include <string>

#include "tests/tools/cli_runner.hpp"
#include "tests/tools/render/report_commands.hpp"

namespace clustersim::test {
namespace {

// Counts occurrences of `needle`.
std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_CASE("html report: one self-contained file per command, with its charts") {
  const WrittenReports& reports = written_reports();
  for (const ReportCommand& report : report_commands()) {
    const std::string& name = report.name;
    CAPTURE(name);
    const std::string html = read_text(reports.paths.at(name));
    CHECK(html.starts_with("<!DOCTYPE html>"));
    // Nothing fetched: no script, stylesheet, image, font or frame from anywhere.
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("<img") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
    CHECK(html.find("url(http") == std::string::npos);
    CHECK(count(html, "http") == count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    for (const auto& chart : report.charts) {
      CAPTURE(chart);
      CHECK(html.find("data-chart=\"" + chart + "\"") != std::string::npos);
    }
  }
  // The timeline shows forward, backward, communication and idle time, and micro-batch numbers.
  const std::string run = read_text(reports.paths.at("run"));
  for (const auto* part : {"class=\"forward\"", "class=\"backward\"", "class=\"comm\"", "class=\"bubble\"",
                           "class=\"mb\""}) {
    CAPTURE(part);
    CHECK(count(run, part) > 0);
  }
}

}  // namespace
}  // namespace clustersim::test
