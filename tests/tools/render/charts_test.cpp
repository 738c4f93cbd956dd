// The charts of the HTML reports, read as text (no browser): round ticks that cover the data,
// legends that list only what is drawn, text labels that do not overlap, layouts that do not fit
// kept out of the ranking's bars, coinciding Pareto options said as such, and each job's report
// with its charts and values computed here independently of the chart code.

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"
#include "tests/tools/render/report_commands.hpp"
#include "tools/render/charts/failures_charts.hpp"
#include "tools/render/charts/pareto_chart.hpp"
#include "tools/render/charts/ranking_chart.hpp"
#include "tools/render/svg/axis.hpp"
#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::test {
namespace {

using tools::svg::Axis;

// A 1-2-5 value: m x 10^k with m in {1, 2, 5}.
bool is_one_two_five(double step) {
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  return std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6;
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The <svg class="chart"> elements of a page, by data-chart.
std::map<std::string, std::string> charts_in_page(const std::string& html) {
  std::map<std::string, std::string> out;
  for (std::size_t at = html.find("<svg class=\"chart\""); at != std::string::npos;
       at = html.find("<svg class=\"chart\"", at + 1)) {
    const std::size_t name_at = html.find("data-chart=\"", at) + 12;
    const std::string name = html.substr(name_at, html.find('"', name_at) - name_at);
    out[name] = html.substr(at, html.find("</svg>", at) + 6 - at);
  }
  return out;
}

std::set<std::string> chart_attribute_values(const std::string& svg, const std::string& attribute) {
  std::set<std::string> out;
  const std::regex pattern(" " + attribute + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), pattern); it != std::sregex_iterator(); ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

// Every legend entry names a kind some mark of the chart carries (the swatch itself does not).
void check_chart_legend(const std::string& name, const std::string& svg) {
  CAPTURE(name);
  const auto kinds = chart_attribute_values(svg, "data-kind");
  for (const std::string& legend : chart_attribute_values(svg, "data-legend")) {
    CAPTURE(legend);
    CHECK(kinds.count(legend) == 1);
  }
}

// The text labels of a chart, with the font the page gives their class; rotated ones (the y
// axis title) are left out. No two may overlap.
void check_chart_labels_apart(const std::string& name, const std::string& svg) {
  CAPTURE(name);
  struct Label {
    tools::svg::Box box;
    std::string text;
  };
  std::vector<Label> labels;
  const std::regex pattern(
      "<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" class=\"([^\"]*)\" text-anchor=\"(start|middle|end)\"([^>]*)>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), pattern); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (std::string(m[5]).find("transform") != std::string::npos) continue;
    const std::string cls = m[3];
    const double font = cls == "tick" || cls == "mb" || cls.starts_with("value inside") ? 13.0 : cls == "axis-title" ? 15.0 : 14.0;
    const std::string anchor = m[4];
    const auto a = anchor == "start" ? tools::svg::Anchor::start
                   : anchor == "middle" ? tools::svg::Anchor::middle
                                        : tools::svg::Anchor::end;
    labels.push_back({tools::svg::text_box(std::stod(m[1]), std::stod(m[2]), std::string(m[6]), font, a), m[6]});
  }
  CHECK(!labels.empty());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      CAPTURE(labels[i].text);
      CAPTURE(labels[j].text);
      CHECK_FALSE(labels[i].box.overlaps(labels[j].box, 0.0));
    }
  }
}

}  // namespace

TEST_CASE("charts: linear ticks are 5-10 round 1-2-5 steps that cover the data") {
  for (const auto& range : std::vector<std::pair<double, double>>{
           {0, 1}, {0, 18.557}, {0, 0.0042}, {0, 883}, {0, 79.2}, {3.2e5, 9.7e5}, {99.22, 99.59}, {-3.1e7, 5.2e7},
           {0, 1.0}, {51.31, 51.97}, {0, 7}}) {
    // Plain names, not a structured binding: clang 14 cannot capture those in CAPTURE's lambda.
    const double lo = range.first, hi = range.second;
    CAPTURE(lo);
    CAPTURE(hi);
    const Axis axis = tools::svg::linear_axis(lo, hi, 0, 800, lo <= 0);
    REQUIRE(axis.ticks.size() >= 5);
    CHECK(axis.ticks.size() <= 10);
    CHECK(axis.ticks.front() <= lo);
    CHECK(axis.ticks.back() >= hi);
    const double step = axis.ticks[1] - axis.ticks[0];
    CHECK(is_one_two_five(step));
    for (const double t : axis.ticks) CHECK(std::abs(t / step - std::round(t / step)) < 1e-6);
  }
  // By hand: over 0 .. 18.557 a step of 2 needs 11 ticks (0 .. 20), one too many; 5 gives 5.
  const Axis step = tools::svg::linear_axis(0, 18.557, 0, 800);
  CHECK(step.ticks == std::vector<double>{0, 5, 10, 15, 20});
}

TEST_CASE("charts: log axes tick at powers of ten or binary sizes and cover the data") {
  const Axis decades = tools::svg::log10_axis(0.8, 3.2e5, 0, 800);
  CHECK(decades.ticks.front() <= 0.8);
  CHECK(decades.ticks.back() >= 3.2e5);
  for (const double t : decades.ticks) CHECK(std::abs(std::log10(t) - std::round(std::log10(t))) < 1e-9);
  const Axis few = tools::svg::log10_axis(9.9, 156, 0, 800);  // the checkpoint sweep's minutes
  CHECK(few.ticks == std::vector<double>{5, 10, 20, 50, 100, 200});
  const Axis bytes = tools::svg::log2_axis(1024, 8.0 * (1 << 30), 0, 800);  // collective's 1K .. 8G
  CHECK(bytes.ticks.size() >= 5);
  CHECK(bytes.ticks.size() <= 10);
  CHECK(bytes.ticks.front() == 1024);
  CHECK(bytes.ticks.back() >= 8.0 * (1 << 30));
  for (const double t : bytes.ticks) CHECK(std::exp2(std::round(std::log2(t))) == t);
  CHECK(tools::svg::bytes_label(1024) == "1K");
  CHECK(tools::svg::bytes_label(8.0 * (1 << 30)) == "8G");
  CHECK(tools::svg::axis_title("cost (USD)", decades) == "cost (USD, log scale)");
}

// WCAG 2 contrast ratios worked by hand from the sRGB bytes: blue #0072b2 has luminance 0.152, so
// white on it is 1.05 / 0.202 = 5.2:1 and black 0.202 / 0.05 = 4.0:1; vermillion #d55e00 (0.222)
// gives white 3.9:1 and black 5.4:1; orange #e69f00 (0.416) white 2.3:1 and black 9.3:1.
TEST_CASE("charts: text on a fill is white or black, whichever contrasts more with it") {
  CHECK(tools::svg::text_colour_on(tools::svg::blue) == "#ffffff");
  CHECK(tools::svg::text_colour_on(tools::svg::vermillion) == "#000000");
  CHECK(tools::svg::text_colour_on(tools::svg::orange) == "#000000");
  CHECK(tools::svg::text_colour_on("#000000") == "#ffffff");
  CHECK(tools::svg::text_colour_on("#ffffff") == "#000000");
  CHECK(tools::svg::text_colour_on("url(#hatch)") == "#000000");  // not a colour: taken as the page's white
}

TEST_CASE("charts: a layout that does not fit is listed apart, never drawn as a bar") {
  planning::SweepRow fits{.name = "a", .status = planning::RowStatus::simulated, .step_time_s = 10,
                          .band = {.fast_s = 9, .slow_s = 12}, .tokens_per_s_per_gpu = 800, .fits = true};
  planning::SweepRow too_big = fits;
  too_big.name = "b";
  too_big.fits = false;
  too_big.tokens_per_s_per_gpu = 1200;  // faster, but it does not fit
  too_big.reason = "needs 92.1 GiB, 77.2 usable";
  planning::SweepRow estimate{.name = "c", .status = planning::RowStatus::too_large, .reason = "needs 140 GiB"};
  const std::vector<planning::SweepRow> rows{too_big, fits, estimate};
  const std::string svg = tools::charts::ranking_svg(rows, 30);
  CHECK(occurrences(svg, "class=\"segment\"") == 1);
  CHECK(svg.find("1. a") != std::string::npos);
  CHECK(svg.find(">1. b") == std::string::npos);
  // The band as tokens/s: 800 x 10 / 12 = 666.7 to 800 x 10 / 9 = 888.9.
  CHECK(svg.find("800 (667-889)") != std::string::npos);
  const auto apart = tools::charts::rows_apart(rows, 30);
  REQUIRE(apart.size() == 2);
  CHECK(apart[0]->name == "b");
  CHECK(apart[1]->name == "c");
}

TEST_CASE("charts: coinciding Pareto options are reported and drawn once") {
  using tools::charts::ParetoPoint;
  const std::vector<ParetoPoint> points{
      {.label = "128 x h100 rail", .days = 104.1, .cost_usd = 957e3, .on_front = false, .gpu = "h100", .topology = "rail"},
      {.label = "128 x h100 fat", .days = 104.1, .cost_usd = 957e3, .on_front = false, .gpu = "h100", .topology = "fat"},
      {.label = "256 x b200 rail", .days = 30.6, .cost_usd = 834e3, .on_front = true, .chosen = true, .gpu = "b200", .topology = "rail"},
      {.label = "256 x b200 fat", .days = 30.6, .cost_usd = 834e3, .on_front = true, .gpu = "b200", .topology = "fat"},
      {.label = "128 x b200 rail", .days = 60.5, .cost_usd = 825e3, .on_front = true, .gpu = "b200", .topology = "rail"}};
  const auto groups = tools::charts::coinciding_groups(points);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == std::vector<std::size_t>{0, 1});
  CHECK(groups[1] == std::vector<std::size_t>{2, 3});
  const std::string html = tools::charts::pareto_figure(points, 60, 0);
  CHECK(html.find("5 options are drawn as 3 points") != std::string::npos);
  CHECK(occurrences(html, "data-coincide=\"2\"") == 2);
  const auto svg = charts_in_page(html).at("pareto");
  check_chart_legend("pareto", svg);
  check_chart_labels_apart("pareto", svg);
  // Only the rail marker of each group is drawn: the legend has no "fat" entry.
  CHECK(svg.find("data-legend=\"topology-fat\"") == std::string::npos);
}

TEST_CASE("charts: the time-to-train histogram counts every run in bins with round edges") {
  const std::vector<double> days{51.31, 51.35, 51.36, 51.42, 51.42, 51.44, 51.97};
  const auto h = tools::charts::time_to_train_histogram(days);
  std::int64_t total = 0;
  for (const auto c : h.counts) total += c;
  CHECK(total == 7);
  CHECK(h.edges.front() <= 51.31);
  CHECK(h.edges.back() > 51.97);
  // The axis step over 51.31 .. 51.97 is 0.1 (8 ticks); bins are half of it.
  CHECK(h.edges[1] - h.edges[0] == doctest::Approx(0.05));
}

TEST_CASE("charts: every report has its charts, legends of what is drawn and no overlapping labels") {
  const WrittenReports& reports = written_reports();
  std::map<std::string, std::string> pages;
  for (const ReportCommand& report : report_commands()) {
    CAPTURE(report.name);
    pages[report.name] = read_text(reports.paths.at(report.name));
    const std::string& html = pages[report.name];
    CHECK(html.starts_with("<!DOCTYPE html>"));
    CHECK(occurrences(html, "http") == occurrences(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(html.find("<pre>") != std::string::npos);  // the text report, wrapped (white-space: pre-wrap)
    const auto charts = charts_in_page(html);
    for (const std::string& chart : report.charts) {
      CAPTURE(chart);
      REQUIRE(charts.count(chart) == 1);
      const std::string& svg = charts.at(chart);
      CHECK(svg.find("width=\"100%\"") != std::string::npos);
      CHECK(svg.find("viewBox=\"0 0 ") != std::string::npos);
      CHECK(svg.find("class=\"axis-title\"") != std::string::npos);
      check_chart_legend(chart, svg);
      check_chart_labels_apart(chart, svg);
      // Width at most 1,000 (so 13 px text stays above 12 px on a 1,000 px page).
      std::smatch box;
      REQUIRE(std::regex_search(svg, box, std::regex("viewBox=\"0 0 ([0-9.]+) ")));
      CHECK(std::stod(box[1]) <= 1000.0);
    }
  }
  // The run is ZeRO-1 without context or expert parallelism: its timeline has TP, PP and DP
  // communication only, and the legend says so.
  const std::string timeline = charts_in_page(pages["run"]).at("timeline");
  for (const char* kind : {"tp-comm", "pp-comm", "dp-comm"}) CHECK(timeline.find(std::string("data-legend=\"") + kind) != std::string::npos);
  for (const char* kind : {"cp-comm", "ep-comm"}) CHECK(timeline.find(std::string("data-legend=\"") + kind) == std::string::npos);
  CHECK(timeline.find("data-kind=\"step-end\"") != std::string::npos);
  // PP sends joined into pieces of at least 2 px: none narrower.
  const std::regex pp("data-kind=\"pp-comm\" x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  std::size_t pp_pieces = 0;
  for (auto it = std::sregex_iterator(timeline.begin(), timeline.end(), pp); it != std::sregex_iterator(); ++it, ++pp_pieces) {
    CHECK(std::stod((*it)[1]) >= 2.0);
  }
  CHECK(pp_pieces > 0);
  // The step's seconds as the JSON gives them, in the breakdown.
  const Outcome run_json = run_clustersim("run --json");
  const auto step_s = nlohmann::json::parse(run_json.out)["step_time_s"].get<double>();
  CHECK(charts_in_page(pages["run"]).at("breakdown").find(fmt::format("{:.3g} s", step_s)) != std::string::npos);
  // Tables are HTML tables.
  CHECK(pages["sweep"].find("<table class=\"data\" data-table=\"sweep\">") != std::string::npos);
  CHECK(pages["plan"].find("<table class=\"data\" data-table=\"options\">") != std::string::npos);
}

TEST_CASE("charts: tco marks each break-even month that tco --json computes") {
  const TempDir dir;
  const Outcome o = run_clustersim("tco scenarios/seed/rent-vs-build.json --runs 20 --quiet --json --report " + (dir / "t.html"));
  REQUIRE(o.exit_code == 0);
  const auto j = nlohmann::json::parse(o.out);
  const std::string svg = charts_in_page(read_text(dir / "t.html")).at("cost-curves");
  std::size_t marked = 0;
  for (const auto& rent : j["rent"]) {
    const double months = rent["break_even_months"].get<double>();
    CAPTURE(months);
    CHECK(svg.find(fmt::format("break-even against {}: {:.1f} months", rent["option"].get<std::string>(), months)) !=
          std::string::npos);
    ++marked;
  }
  CHECK(marked == 2);  // on demand and reserved
  CHECK(occurrences(svg, "class=\"point-mark\" data-kind=\"break-even\"") == marked);
}

TEST_CASE("charts: failures marks Young's interval sqrt(2 x checkpoint stall x MTTI)") {
  const TempDir dir;
  const Outcome o =
      run_clustersim("failures scenarios/seed/checkpoints-70b.json --runs 50 --quiet --json --report " + (dir / "f.html"));
  REQUIRE(o.exit_code == 0);
  const auto j = nlohmann::json::parse(o.out);
  const double stall_s = j["checkpoint"]["stall_s"].get<double>();
  const double mtti_s = j["run"]["mtti_hours"].get<double>() * 3600.0;
  const double young_min = std::sqrt(2.0 * stall_s * mtti_s) / 60.0;  // Young 1974
  const std::string svg = charts_in_page(read_text(dir / "f.html")).at("goodput-interval");
  CHECK(svg.find(fmt::format("Young's interval sqrt(2 x checkpoint cost x MTTI): {:.1f} min", young_min)) != std::string::npos);
  // One point per simulated interval.
  CHECK(occurrences(svg, "<circle cx=") == j["interval"]["sweep"].size());
}

TEST_CASE("charts: collective --compare draws every row of the real log over the prediction") {
  const TempDir dir;
  const std::string log = "tests/calibration/data/h100_1n8g_allreduce_nccl-tests-290.txt";
  const Outcome o = run_clustersim("collective --compare " + log + " --report " + (dir / "c.html"));
  REQUIRE(o.exit_code == 0);
  const std::string svg = charts_in_page(read_text(dir / "c.html")).at("busbw");
  const std::size_t measured_at = svg.find("data-kind=\"measured\"");
  REQUIRE(measured_at != std::string::npos);
  const std::string measured = svg.substr(measured_at, svg.find("</g>", measured_at) - measured_at);
  // Rows of the log that carry a size: counted from the file itself (lines of numbers after the header).
  std::size_t rows = 0;
  const std::string text = read_text(std::string(CLUSTERSIM_SOURCE_DIR) + "/" + log);
  const std::regex row("\\n\\s+([0-9]+)\\s+[0-9]+\\s+float");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it) {
    if (std::stoll((*it)[1]) > 0) ++rows;
  }
  CHECK(rows > 0);
  CHECK(occurrences(measured, "<circle") == rows);
  check_fails_cleanly(run_clustersim("collective --compare " + log), "--compare LOG is drawn in the report");
}

}  // namespace clustersim::test
