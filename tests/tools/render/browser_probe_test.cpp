// The browser check's rules, each shown to fire: a hand-written page, rendered in headless
// Chromium, breaks every rule once in a chart made for it and keeps them all in a clean chart; the
// probe (browser_probe.js) and browser_rules.hpp must find exactly those breaches.

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>
#include <utility>

#include "tests/tools/render/browser_rules.hpp"
#include "tests/tools/render/headless_chromium.hpp"

namespace clustersim::test {
namespace {

// Each chart a block of its own, so that none sits beside another; text 14 px and #222 unless a
// chart says otherwise. Four painted rectangles per chart that must count as drawn.
constexpr const char* kPage = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><style>
body { margin: 8px; font-family: sans-serif; color: #222; }
svg.chart { display: block; margin-bottom: 10px; }
svg text { font-size: 14px; fill: #222; }
</style></head><body>
<svg class="chart" data-chart="clean" width="400" height="120" viewBox="0 0 400 120">
  <rect x="0" y="0" width="40" height="20" fill="#4e79a7" data-kind="forward"/>
  <rect x="50" y="0" width="40" height="20" fill="#4e79a7" data-kind="forward"/>
  <rect x="100" y="0" width="40" height="20" fill="#59a14f"/>
  <rect x="150" y="0" width="40" height="20" fill="#59a14f"/>
  <rect x="10" y="50" width="12" height="12" fill="#4e79a7" data-kind="forward" class="swatch"/>
  <text x="26" y="60" data-legend="forward">forward</text>
  <text x="200" y="60">well apart</text>
  <text x="200" y="100" style="fill: #767676">the palest grey that passes</text>
  <rect x="10" y="80" width="110" height="30" fill="#0072b2"/>
  <text x="15" y="100" style="fill: #ffffff">white on blue</text>
</svg>
<svg class="chart" data-chart="broken" width="400" height="160" viewBox="0 0 400 160">
  <rect x="0" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="50" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="100" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="150" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="200" y="0" width="0" height="0" data-kind="missing"/>
  <text x="10" y="50">first label</text>
  <text x="30" y="53">second label</text>
  <text x="10" y="100" style="font-size: 10px">tiny</text>
  <text x="200" y="100" style="fill: #bbbbbb">pale</text>
  <rect x="100" y="80" width="90" height="30" fill="#0072b2"/>
  <text x="105" y="100">dark on blue</text>
  <text x="200" y="140" data-legend="missing">names nothing drawn</text>
  <rect x="284" y="10" width="12" height="12" fill="#b07aa1" data-kind="swatch-only"/>
  <text x="300" y="20" data-legend="swatch-only">only its swatch</text>
  <rect x="10" y="130" width="12" height="12" fill="#edc948"/><text x="26" y="140" class="legend">CP comm</text>
</svg>
<svg class="chart" data-chart="scaled" width="200" height="60" viewBox="0 0 400 120">
  <rect x="0" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="50" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="100" y="0" width="40" height="20" fill="#4e79a7"/>
  <rect x="150" y="0" width="40" height="20" fill="#4e79a7"/>
  <text x="10" y="80">14 px in a viewBox drawn at half size</text>
</svg>
<svg class="chart" data-chart="empty" width="80" height="40"></svg>
<p>A caption <b>with bold words</b> inside it is one label, not two overlapping ones.</p>
<p style="margin-top: -30px">A paragraph drawn over the one above</p>
<div style="overflow-x: auto; width: 300px"><div style="width: 600px">content twice as wide as its box</div></div>
<div style="width: 1200px">a line wider than the window</div>
</body></html>
)";

TEST_CASE("html report: headless Chromium probe finds each rule's breach, and none in a clean chart") {
  if (!chromium_or_skip()) return;
  const TempDir dir;
  const std::string path = dir / "rules.html";
  std::ofstream(path) << kPage;
  const auto probe = probe_in_chromium(path);
  REQUIRE(probe);
  std::set<std::pair<std::string, std::string>> found;
  for (const Breach& breach : breaches(*probe, {"clean", "broken", "absent"})) {
    MESSAGE(describe("hand-written", breach));
    found.insert({breach.chart, breach.rule});
  }
  const std::set<std::pair<std::string, std::string>> expected{
      {"absent", rule::chart_present},
      {"broken", rule::label_overlap},   // 'first label' and 'second label', 20 px apart, 3 px down
      {"broken", rule::font_size},       // 'tiny', 10 px
      {"broken", rule::contrast},        // 'pale', #bbbbbb on white: 1.9:1; 'dark on blue', #222 on
                                         // #0072b2: 3.1:1 (where white on it passes, 5.2:1)
      {"broken", rule::legend_drawn},    // data-legend="missing": its only data-kind has no box;
                                         // "swatch-only": its only data-kind is its own swatch; and
                                         // 'CP comm', whose swatch colour nothing else has
      {"broken", rule::legend_marked},   // 'CP comm' has no data-legend
      {"scaled", rule::font_size},       // 14 px text at half scale: 7 px on screen
      {"empty", rule::chart_size},       // 80 x 40 px
      {"empty", rule::chart_painted},    // nothing inside
      {"(page)", rule::label_overlap},   // the two paragraphs, not the caption and its <b>
      {"(page)", rule::page_width},      // the 1,200 px line scrolls the page sideways
      {"(page)", rule::right_edge},      // ... and ends past the window's edge
      {"(page)", rule::scroll_inside},   // the 300 px box scrolling its 600 px content
  };
  CHECK(found == expected);
  // The three failing legend entries are all found, and the overlap is measured where it is.
  for (const Breach& breach : breaches(*probe, {})) {
    if (breach.chart == "broken" && breach.rule == rule::legend_drawn) CHECK(breach.count == 3);
    if (breach.chart == "broken" && breach.rule == rule::label_overlap) CHECK(breach.count == 1);
    if (breach.chart == "broken" && breach.rule == rule::contrast) CHECK(breach.count == 2);
    // The paragraph over the caption covers its text and its bold words: two pairs, and never the
    // caption with the words inside it.
    if (breach.chart == "(page)" && breach.rule == rule::label_overlap) CHECK(breach.count == 2);
  }
}

}  // namespace
}  // namespace clustersim::test
