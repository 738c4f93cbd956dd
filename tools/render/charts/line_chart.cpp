#include "tools/render/charts/line_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/legend.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

constexpr double lc_left = 100, lc_plot_w = 860, lc_plot_h = 380, lc_right = 30;

svg::Axis make(svg::Scale scale, double lo, double hi, double a, double b, bool from_zero) {
  switch (scale) {
    case svg::Scale::log10: return svg::log10_axis(lo, hi, a, b);
    case svg::Scale::log2: return svg::log2_axis(lo, hi, a, b);
    case svg::Scale::linear: break;
  }
  return svg::linear_axis(lo, hi, a, b, from_zero);
}

}  // namespace

std::string line_chart_svg(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  const auto cover = [&](double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    if (chart.x_scale != svg::Scale::linear && !(x > 0)) return;
    if (chart.y_scale != svg::Scale::linear && !(y > 0)) return;
    x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x), y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  };
  svg::Legend legend;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) cover(x, y);
    if (!s.points.empty()) {
      legend.use({s.kind, s.label, s.colour, s.markers && s.points.size() == 1 ? svg::Swatch::circle
                                             : s.dashed                        ? svg::Swatch::dashed_line
                                                                               : svg::Swatch::line});
    }
  }
  for (const VerticalMark& v : chart.verticals) {
    if (std::isfinite(v.x)) x_lo = std::min(x_lo, v.x), x_hi = std::max(x_hi, v.x);
    legend.use({v.kind, v.label, v.colour, v.dashed ? svg::Swatch::dashed_line : svg::Swatch::line});
  }
  for (const PointMark& m : chart.marks) {
    cover(m.x, m.y);
    legend.use({m.kind, m.label, m.colour, svg::Swatch::circle});
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;

  const double top = 12 + legend.height(lc_plot_w) + 12;
  const double height = top + lc_plot_h + 56;
  const svg::Axis ax = make(chart.x_scale, x_lo, x_hi, lc_left, lc_left + lc_plot_w, true);
  const svg::Axis ay = make(chart.y_scale, y_lo, y_hi, top + lc_plot_h, top, chart.y_from_zero);
  std::string out = svg::open(chart.chart, lc_left + lc_plot_w + lc_right, height, chart.description);
  out += legend.render(lc_left, 12, lc_plot_w);
  out += svg::x_axis(ax, top + lc_plot_h, top, chart.x_title, chart.x_format);
  out += svg::y_axis(ay, lc_left, lc_left + lc_plot_w, 22, chart.y_title, chart.y_format);
  const auto visible = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!ax.is_log() || x > 0) && (!ay.is_log() || y > 0);
  };
  for (const VerticalMark& v : chart.verticals) {
    if (!std::isfinite(v.x) || (ax.is_log() && !(v.x > 0))) continue;
    out += fmt::format("<line class=\"mark\" data-kind=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"{}\" stroke-width=\"2\"{}><title>{}</title></line>",
                       v.kind, ax(v.x), top, ax(v.x), top + lc_plot_h, v.colour,
                       v.dashed ? " stroke-dasharray=\"7 4\"" : "", svg::html_escape(v.label));
  }
  for (const Series& s : chart.series) {
    std::string path;
    for (const auto& [x, y] : s.points) {
      if (visible(x, y)) path += fmt::format("{:.1f},{:.1f} ", ax(x), ay(y));
    }
    out += fmt::format("<g class=\"series\" data-kind=\"{}\"><title>{}</title>", s.kind, svg::html_escape(s.label));
    if (s.points.size() > 1) {
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"{}/>", path, s.colour,
                         s.dashed ? " stroke-dasharray=\"7 4\"" : "");
    }
    if (s.markers || s.points.size() == 1) {
      for (const auto& [x, y] : s.points) {
        if (!visible(x, y)) continue;
        out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>", ax(x), ay(y), s.colour);
      }
    }
    out += "</g>";
  }
  for (const PointMark& m : chart.marks) {
    if (!visible(m.x, m.y)) continue;
    out += fmt::format("<circle class=\"point-mark\" data-kind=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"{}\" "
                       "stroke=\"#000\" stroke-width=\"1.5\"><title>{}</title></circle>",
                       m.kind, ax(m.x), ay(m.y), m.colour, svg::html_escape(m.title.empty() ? m.label : m.title));
  }
  out += svg::close();
  return out;
}

}  // namespace clustersim::tools::charts
