#pragma once
/// Lines and points on two axes: the cumulative cost curves of tco, goodput against the
/// checkpoint interval of failures, busbw against size of collective. Vertical marks (an optimum,
/// a break-even month) and single points go on top; every kind drawn has its legend entry, and
/// values are named in the legend rather than written on the plot, so no label covers another.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/render/svg/axis.hpp"

namespace clustersim::tools::charts {

struct Series {
  std::string kind;
  std::string label;
  std::string colour;
  std::vector<std::pair<double, double>> points{};
  bool dashed = false;
  bool markers = false;  // a dot at every point
};

struct VerticalMark {
  std::string kind;
  std::string label;
  double x = 0.0;
  std::string colour;
  bool dashed = true;
};

struct PointMark {
  std::string kind;
  std::string label;  // legend text of its kind
  double x = 0.0, y = 0.0;
  std::string colour;
  std::string title{};
};

struct LineChart {
  std::string chart;
  std::string description;
  std::string x_title, y_title;  // quantities and units
  svg::Scale x_scale = svg::Scale::linear, y_scale = svg::Scale::linear;
  svg::TickFormat x_format = svg::number_label, y_format = svg::number_label;
  bool y_from_zero = true;
  std::vector<Series> series{};
  std::vector<VerticalMark> verticals{};
  std::vector<PointMark> marks{};
};

std::string line_chart_svg(const LineChart& chart);

}  // namespace clustersim::tools::charts
