#pragma once
/// Horizontal bars on a value axis: one row per item, each bar a stack of segments (the parts of a
/// step time, of a GPU's memory, of lost GPU-hours), optionally with an uncertainty band drawn as
/// a whisker, the value written beside the bar and a reference line (usable HBM) across all rows.
/// The legend lists the kinds of the segments drawn (with a value above zero), nothing else.

#include <optional>
#include <string>
#include <vector>

#include "tools/render/svg/axis.hpp"

namespace clustersim::tools::charts {

struct Segment {
  std::string kind;          // data-kind
  std::string legend_label;  // its legend text
  std::string fill;
  double value = 0.0;
  std::string title{};       // hover text
  std::string inside_text{};   // written on the segment where it fits ("13.4 s (72 %)")
  std::string outside_text{};  // else beside the bar ("bubble 913 ms (5 %)")
};

struct BarRow {
  std::string label{};
  std::vector<Segment> segments{};
  std::string value_text{};                          // beside the bar
  std::optional<std::pair<double, double>> band{};  // whisker from first to second (axis units)
};

struct ReferenceLine {
  double value = 0.0;
  std::string kind;   // data-kind and legend
  std::string label;  // legend text
};

struct BarChart {
  std::string chart;        // data-chart
  std::string description;  // <desc>
  std::string axis_title;   // quantity and unit
  svg::TickFormat tick_format = svg::number_label;
  std::vector<BarRow> rows{};
  std::optional<ReferenceLine> reference{};
  std::vector<std::string> patterns{};  // <defs> the fills refer to
  std::string band_label{};             // legend text of the whiskers, when a row has one
};

std::string bar_chart_svg(const BarChart& chart);

}  // namespace clustersim::tools::charts
