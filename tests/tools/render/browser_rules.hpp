#pragma once
// The rules a rendered report must keep, applied to what browser_probe.js measured in Chromium.
// Each broken rule comes back as one Breach per chart: the rule, the chart and the labels or
// elements that break it, so that a failure names all three.

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::test {

// The rules, by the short names the known-breach list uses.
namespace rule {
inline constexpr const char* chart_present = "chart-present";    // every chart the report must hold is drawn
inline constexpr const char* chart_size = "chart-size";          // each chart's box is over 100 x 50 px
inline constexpr const char* chart_painted = "chart-painted";    // ... with more than 3 painted shapes
inline constexpr const char* label_overlap = "label-overlap";    // no two text labels overlap
inline constexpr const char* font_size = "font-size";            // chart text at least 12 px on screen
inline constexpr const char* contrast = "contrast";              // chart text 4.5:1 against what it is drawn on
inline constexpr const char* page_width = "page-width";          // no sideways scrolling at 1,000 px
inline constexpr const char* right_edge = "right-edge";          // nothing past the viewport's right edge
inline constexpr const char* scroll_inside = "scroll-inside";    // no box scrolls its content sideways
inline constexpr const char* legend_drawn = "legend-drawn";      // each legend entry names something drawn
inline constexpr const char* legend_marked = "legend-marked";    // legend entries carry data-legend
}  // namespace rule

// What each rule asks, for the messages.
inline const std::map<std::string, std::string>& rule_text() {
  static const std::map<std::string, std::string> text{
      {rule::chart_present, "every chart the report must hold is drawn"},
      {rule::chart_size, "every chart is larger than 100 x 50 px"},
      {rule::chart_painted, "every chart has more than 3 painted shapes"},
      {rule::label_overlap, "no two text labels overlap by more than 1 px in both axes"},
      {rule::font_size, "chart text is at least 12 px on screen"},
      {rule::contrast, "chart text has at least 4.5:1 contrast against what it is drawn on"},
      {rule::page_width, "the page does not scroll sideways in a 1,000 px window"},
      {rule::right_edge, "no element reaches past the right edge of a 1,000 px window"},
      {rule::scroll_inside, "no box's content is wider than the box (scrolled or cut off) in a 1,000 px window"},
      {rule::legend_drawn, "every legend entry names something drawn in the chart"},
      {rule::legend_marked, "every legend entry is marked data-legend=\"KIND\" (with data-kind=\"KIND\" on what it names)"},
  };
  return text;
}

struct Breach {
  std::string chart;  // the chart's data-chart name, or "(page)"
  std::string rule;
  std::size_t count = 0;            // how many labels or elements break it there
  std::vector<std::string> examples;  // the first few, described
};

// Collects breaches, one per (chart, rule), keeping a few examples of each.
class Breaches {
 public:
  static constexpr std::size_t kExamplesShown = 3;
  void add(const std::string& chart, const std::string& rule, const std::string& example) {
    Breach& breach = by_key_[{chart, rule}];
    breach.chart = chart;
    breach.rule = rule;
    ++breach.count;
    if (breach.examples.size() < kExamplesShown) breach.examples.push_back(example);
  }
  std::vector<Breach> list() const {
    std::vector<Breach> out;
    for (const auto& entry : by_key_) out.push_back(entry.second);
    return out;
  }

 private:
  std::map<std::pair<std::string, std::string>, Breach> by_key_;
};

inline std::string quoted(const nlohmann::json& text) { return "'" + text.get<std::string>() + "'"; }
inline std::string number(const nlohmann::json& value) {
  std::ostringstream out;
  out << value.get<double>();
  return out.str();
}

/// The rules `probe` breaks; `charts`: those the report must hold.
inline std::vector<Breach> breaches(const nlohmann::json& probe, const std::vector<std::string>& charts) {
  // Thresholds of the rules (browser_probe.js applies those of the label rules itself).
  constexpr double kMinChartWidthPx = 100, kMinChartHeightPx = 50;
  constexpr int kMinPaintedShapes = 4;
  Breaches out;
  std::set<std::string> drawn_charts;
  for (const auto& chart : probe.at("charts")) {
    const std::string name = chart.at("chart");
    drawn_charts.insert(name);
    const double width = chart.at("width"), height = chart.at("height");
    if (width <= kMinChartWidthPx || height <= kMinChartHeightPx) {
      out.add(name, rule::chart_size, number(chart.at("width")) + " x " + number(chart.at("height")) + " px");
    }
    if (chart.at("painted").get<int>() < kMinPaintedShapes) {
      out.add(name, rule::chart_painted, number(chart.at("painted")) + " painted shapes");
    }
  }
  if (charts.empty() && drawn_charts.empty()) out.add("(page)", rule::chart_present, "no svg.chart at all");
  for (const auto& chart : charts) {
    if (!drawn_charts.contains(chart)) out.add(chart, rule::chart_present, "no <svg class=\"chart\" data-chart=\"" + chart + "\">");
  }
  for (const auto& overlap : probe.at("overlaps")) {
    const std::string a = overlap.at("chart"), b = overlap.at("chart_b");
    out.add(a == b ? a : a + " / " + b, rule::label_overlap,
            quoted(overlap.at("a")) + " and " + quoted(overlap.at("b")) + " by " + number(overlap.at("dx")) + " x " +
                number(overlap.at("dy")) + " px");
  }
  for (const auto& small : probe.at("small_text")) {
    out.add(small.at("chart"), rule::font_size, quoted(small.at("label")) + " at " + number(small.at("px")) + " px");
  }
  for (const auto& pale : probe.at("low_contrast")) {
    out.add(pale.at("chart"), rule::contrast,
            quoted(pale.at("label")) + " in " + pale.at("colour").get<std::string>() + ", " + number(pale.at("ratio")) + ":1");
  }
  const auto& overflow = probe.at("overflow");
  if (overflow.at("scroll_width").get<double>() > overflow.at("viewport").get<double>()) {
    out.add("(page)", rule::page_width,
            "scroll width " + number(overflow.at("scroll_width")) + " px in a " + number(overflow.at("viewport")) +
                " px wide viewport");
  }
  for (const auto& beyond : overflow.at("beyond")) {
    const std::string element = beyond.at("element");
    const std::size_t in_chart = element.find(" in chart ");
    out.add(in_chart == std::string::npos ? "(page)" : element.substr(in_chart + 10), rule::right_edge,
            element + " ends at " + number(beyond.at("right")) + " px, past " + number(overflow.at("viewport")) + " px");
  }
  for (const auto& scrolls : overflow.at("scrolls")) {
    out.add(scrolls.at("chart"), rule::scroll_inside,
            scrolls.at("element").get<std::string>() + " holds " + number(scrolls.at("content")) + " px in " +
                number(scrolls.at("box")) + " px");
  }
  for (const auto& legend : probe.at("legends")) {
    const std::string chart = legend.at("chart");
    if (!legend.at("marked").get<bool>()) {
      out.add(chart, rule::legend_marked, quoted(legend.at("label")) + " has no data-legend");
    }
    if (legend.at("drawn").get<int>() == 0) {
      out.add(chart, rule::legend_drawn,
              quoted(legend.at("label")) + " (" + legend.at("kind").get<std::string>() + ") matches nothing drawn");
    }
  }
  return out.list();
}

/// One line naming the report, chart, rule and the first examples.
inline std::string describe(const std::string& report, const Breach& breach) {
  std::ostringstream out;
  out << report << " report, chart " << breach.chart << ": breaks rule " << breach.rule << " ("
      << rule_text().at(breach.rule) << "): " << breach.count << (breach.count == 1 ? " case" : " cases");
  for (std::size_t i = 0; i < breach.examples.size(); ++i) out << (i == 0 ? ", e.g. " : "; ") << breach.examples[i];
  if (breach.count > breach.examples.size()) out << "; ...";
  return out.str();
}

}  // namespace clustersim::test
