#include "tools/render/charts/bar_chart.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/legend.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

constexpr double bc_bar_h = 22, bc_bar_gap = 8, bc_min_plot_px = 360;

}  // namespace

std::string bar_chart_svg(const BarChart& chart) {
  double label_w = 40, value_w = 20, max_value = 0, min_value = 0;
  svg::Legend legend;
  for (const BarRow& row : chart.rows) {
    label_w = std::max(label_w, svg::text_width(row.label, svg::label_font_px));
    value_w = std::max(value_w, svg::text_width(row.value_text, svg::label_font_px));
    double total = 0;
    for (const Segment& s : row.segments) {
      total += s.value;
      if (s.value > 0) legend.use({s.kind, s.legend_label, s.fill});
    }
    max_value = std::max(max_value, total);
    min_value = std::min(min_value, total);
    if (row.band) {
      max_value = std::max(max_value, row.band->second);
      legend.use({"band", chart.band_label.empty() ? "uncertainty band" : chart.band_label, std::string(svg::black), svg::Swatch::line});
    }
  }
  if (chart.reference) {
    max_value = std::max(max_value, chart.reference->value);
    legend.use({chart.reference->kind, chart.reference->label, std::string(svg::black), svg::Swatch::dashed_line});
  }
  // The plot takes what the labels leave of the chart's width, down to a floor where long labels
  // make the chart wider (and its text smaller on a narrow page).
  const double left = 16 + label_w + 10;
  double plot_w = std::max(bc_min_plot_px, svg::max_chart_width - left - value_w - 30);
  // The text beside a bar depends on which parts fit inside their segments, which depends on the
  // plot's width: reserve the room the widest row needs at this width, and narrow the plot (so
  // fewer labels fit inside) until the reservation holds.
  for (int pass = 0; pass < 4; ++pass) {
    const svg::Axis trial = svg::linear_axis(min_value, max_value, 0, plot_w, true);
    double needed = 20;
    for (const BarRow& row : chart.rows) {
      std::string beside = row.value_text;
      double at = 0;
      for (const Segment& s : row.segments) {
        if (!(s.value > 0)) continue;
        const double w = trial(at + s.value) - trial(at);
        const bool inside = !s.inside_text.empty() && svg::text_width(s.inside_text, svg::tick_font_px) + 8 <= w;
        if (!inside && !s.outside_text.empty()) beside += (beside.empty() ? "" : "; ") + s.outside_text;
        at += s.value;
      }
      needed = std::max(needed, svg::text_width(beside, svg::label_font_px));
    }
    if (needed <= value_w) break;
    value_w = needed;
    plot_w = std::max(bc_min_plot_px, svg::max_chart_width - left - value_w - 30);
  }
  const double width = left + plot_w + value_w + 30;
  const double legend_h = legend.height(width - left);
  const double top = 10 + legend_h + 8;
  const double plot_h = static_cast<double>(chart.rows.size()) * (bc_bar_h + bc_bar_gap) + bc_bar_gap;
  const double height = top + plot_h + 50;
  const svg::Axis axis = svg::linear_axis(min_value, max_value, left, left + plot_w, true);

  std::string out = svg::open(chart.chart, width, height, chart.description);
  out += "<defs>";
  for (const std::string& p : chart.patterns) out += p;
  out += "</defs>";
  out += legend.render(left, 10, width - left);
  out += svg::x_axis(axis, top + plot_h, top, chart.axis_title, chart.tick_format);
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const BarRow& row = chart.rows[i];
    const double y = top + bc_bar_gap + static_cast<double>(i) * (bc_bar_h + bc_bar_gap);
    out += svg::text(left - 8, y + bc_bar_h / 2 + 5, "row-label", row.label, svg::Anchor::end);
    double at = 0;
    std::string beside = row.value_text;
    for (const Segment& s : row.segments) {
      if (!(s.value > 0)) continue;
      const double x0 = axis(at), x1 = axis(at + s.value);
      out += fmt::format("<rect class=\"segment\" data-kind=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" "
                         "height=\"{:.0f}\" fill=\"{}\"><title>{}</title></rect>",
                         s.kind, x0, y, std::max(0.5, x1 - x0), bc_bar_h, s.fill,
                         svg::html_escape(s.title.empty() ? s.legend_label : s.title));
      if (!s.inside_text.empty() && svg::text_width(s.inside_text, svg::tick_font_px) + 8 <= x1 - x0) {
        out += svg::text((x0 + x1) / 2, y + bc_bar_h / 2 + 5, "value inside", s.inside_text, svg::Anchor::middle,
                         fmt::format("style=\"fill: {}\"", svg::text_colour_on(s.fill)));
      } else if (!s.outside_text.empty()) {
        beside += (beside.empty() ? "" : "; ") + s.outside_text;
      }
      at += s.value;
    }
    double end_px = axis(std::max(at, 0.0));
    if (row.band) {
      const double x0 = axis(row.band->first), x1 = axis(row.band->second), cy = y + bc_bar_h / 2;
      out += fmt::format(
          "<g class=\"band\" data-kind=\"band\"><line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
          "stroke=\"#000\" stroke-width=\"1.5\"/><line x1=\"{0:.1f}\" y1=\"{3:.1f}\" x2=\"{0:.1f}\" y2=\"{4:.1f}\" "
          "stroke=\"#000\" stroke-width=\"1.5\"/><line x1=\"{2:.1f}\" y1=\"{3:.1f}\" x2=\"{2:.1f}\" y2=\"{4:.1f}\" "
          "stroke=\"#000\" stroke-width=\"1.5\"/></g>",
          x0, cy, x1, y + 3, y + bc_bar_h - 3);
      end_px = std::max(end_px, x1);
    }
    out += svg::text(end_px + 6, y + bc_bar_h / 2 + 5, "value", beside);
  }
  if (chart.reference) {
    const double px = axis(chart.reference->value);
    out += fmt::format(
        "<line class=\"reference\" data-kind=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
        chart.reference->kind, px, top, px, top + plot_h);
  }
  out += svg::close();
  return out;
}

}  // namespace clustersim::tools::charts
