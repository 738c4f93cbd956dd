// The HTML reports of run, sweep and plan: self-contained, and with charts a browser draws.
// The browser check renders each report in headless Chromium (Debian's `chromium`, installed here
// with apt-get when missing and possible) and measures every chart after layout.

#include <doctest/doctest.h>

#include <tuple>

#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <string>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

// Counts occurrences of `needle`.
std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

struct Reports {
  TempDir dir;
  std::map<std::string, std::string> paths;  // command -> report file
};

// Written once for all test cases (plan and sweep take seconds).
const Reports& reports() {
  static Reports out;
  if (!out.paths.empty()) return out;
  const std::map<std::string, std::string> commands{
      {"run", "run"},
      {"sweep", "sweep scenarios/seed/twelve-layouts.json"},
      {"plan", "plan --gpus h100-sxm,b200 --min-gpus 128 --max-gpus 256 --topologies rail_optimized "
               "--deadline-days 60 --quiet"}};
  for (const auto& entry : commands) {
    const auto& name = std::get<0>(entry);
    const auto& command = std::get<1>(entry);
    const std::string path = out.dir / (name + ".html");
    const Outcome outcome = run_clustersim(command + " --report " + path);
    REQUIRE(outcome.exit_code == 0);
    out.paths[name] = path;
  }
  return out;
}

// The charts each report must hold.
const std::map<std::string, std::vector<std::string>> kCharts{
    {"run", {"timeline", "timeline-warm-up", "breakdown"}},
    {"sweep", {"ranking", "timeline", "breakdown"}},
    {"plan", {"pareto", "timeline", "breakdown"}}};

TEST_CASE("html report: one self-contained file per command, with its charts") {
  for (const auto& entry : kCharts) {
    const auto& name = entry.first;  // a plain name: clang 14 cannot capture a structured binding
    const auto& charts = entry.second;
    CAPTURE(name);
    const std::string html = read_text(reports().paths.at(name));
    CHECK(html.starts_with("<!DOCTYPE html>"));
    // Nothing fetched: no script, stylesheet, image, font or frame from anywhere.
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("<img") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
    CHECK(html.find("url(http") == std::string::npos);
    CHECK(count(html, "http") == count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    for (const auto& chart : charts) {
      CAPTURE(chart);
      CHECK(html.find("data-chart=\"" + chart + "\"") != std::string::npos);
    }
  }
  // The timeline shows forward, backward, communication and idle time, and micro-batch numbers.
  const std::string run = read_text(reports().paths.at("run"));
  for (const auto* part : {"class=\"forward\"", "class=\"backward\"", "class=\"comm\"", "class=\"bubble\"",
                           "class=\"mb\""}) {
    CAPTURE(part);
    CHECK(count(run, part) > 0);
  }
}

// Runs `chromium --headless`, returns its stdout, or nothing when there is no usable Chromium.
std::optional<std::string> chromium_dump_dom(const std::string& html_path, std::string& why_not) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
    // The check installs what it needs where it can (as root, with apt-get and a package source).
    if (::geteuid() == 0 && std::system("command -v apt-get >/dev/null 2>&1") == 0) {
      if (std::system("apt-get install -y chromium >/dev/null 2>&1") != 0) why_not = "apt-get install failed";
    }
    if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
      why_not = "chromium is not installed and `apt-get install -y chromium` was not possible here";
      return std::nullopt;
    }
  }
  const TempDir dir;
  const std::string out = dir / "dom.html";
  const std::string command = "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
                              "--user-data-dir='" + (dir / "profile") + "' --dump-dom 'file://" + html_path + "' >'" +
                              out + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0) {
    why_not = "chromium --headless failed to run";
    return std::nullopt;
  }
  return read_text(out);
}

TEST_CASE("html report: headless Chromium draws every chart with a size and painted shapes") {
  // Each report gets a measuring script appended (to a copy): after layout it records, per chart,
  // its rendered size and how many of its rectangles and circles have a non-empty box.
  const std::string probe = R"(<script>
const out = [];
for (const svg of document.querySelectorAll('svg.chart')) {
  const box = svg.getBoundingClientRect();
  let painted = 0;
  for (const e of svg.querySelectorAll('rect,circle')) { const b = e.getBBox(); if (b.width > 0 && b.height > 0) painted++; }
  out.push(svg.dataset.chart + ':' + Math.round(box.width) + ':' + Math.round(box.height) + ':' + painted);
}
document.body.setAttribute('data-check', out.join(' '));
</script>)";
  const TempDir dir;
  for (const auto& entry : kCharts) {
    const auto& name = entry.first;  // a plain name: clang 14 cannot capture a structured binding
    const auto& charts = entry.second;
    CAPTURE(name);
    std::string html = read_text(reports().paths.at(name));
    html.insert(html.rfind("</body>"), probe);
    const std::string copy = dir / (name + "-probe.html");
    std::ofstream(copy) << html;
    std::string why_not;
    const auto dom = chromium_dump_dom(copy, why_not);
    if (!dom) {
      MESSAGE("skipped the browser check: " << why_not);
      return;
    }
    std::smatch match;
    REQUIRE(std::regex_search(*dom, match, std::regex("data-check=\"([^\"]*)\"")));
    std::map<std::string, std::array<int, 3>> measured;
    const std::string text = match[1];
    const std::regex item("([a-z-]+):(\\d+):(\\d+):(\\d+)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), item); it != std::sregex_iterator(); ++it) {
      measured[(*it)[1]] = {std::stoi((*it)[2]), std::stoi((*it)[3]), std::stoi((*it)[4])};
    }
    for (const auto& chart : charts) {
      CAPTURE(chart);
      REQUIRE(measured.contains(chart));
      CHECK(measured[chart][0] > 100);  // width in CSS pixels
      CHECK(measured[chart][1] > 50);   // height
      CHECK(measured[chart][2] > 3);    // painted bars, boxes or points
    }
  }
}

}  // namespace
}  // namespace clustersim::test
