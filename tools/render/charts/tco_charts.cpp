#include "tools/render/charts/tco_charts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tools/render/charts/line_chart.hpp"
#include "tools/render/svg/axis.hpp"
#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/legend.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

std::string dollars(double v) { return (v < 0 ? "-$" : "$") + svg::number_label(std::abs(v)); }

// The build's cumulative cost at a fractional month, along its straight month-to-month segments.
double build_at(const models::Tco& tco, double month) {
  const auto& c = tco.build_cumulative_usd;
  if (c.empty()) return 0.0;
  const auto i = static_cast<std::size_t>(std::clamp(std::floor(month), 0.0, static_cast<double>(c.size() - 1)));
  if (i + 1 >= c.size()) return c.back();
  return c[i] + (c[i + 1] - c[i]) * (month - static_cast<double>(i));
}

}  // namespace

std::string cost_curves_svg(const models::Tco& tco) {
  LineChart chart{.chart = "cost-curves",
                  .description = "Cumulative cost of building and of each way of renting over the horizon, with the "
                                 "break-even months",
                  .x_title = "months from the start",
                  .y_title = "cumulative cost (USD)",
                  .y_format = dollars};
  Series build{.kind = "build", .label = "build (capital at month 0, then running cost and interest)",
               .colour = std::string(svg::black)};
  for (std::size_t m = 0; m < tco.build_cumulative_usd.size(); ++m) build.points.emplace_back(m, tco.build_cumulative_usd[m]);
  chart.series.push_back(std::move(build));
  for (std::size_t r = 0; r < tco.rents.size(); ++r) {
    const auto& rent = tco.rents[r];
    const std::string name(models::to_string(rent.option));
    Series s{.kind = "rent-" + name,
             .label = fmt::format("rent {} (${:.2f}/GPU-h)", name, rent.usd_per_gpu_hour),
             .colour = std::string(svg::series_colour(r))};
    for (std::size_t m = 0; m < rent.cumulative_usd.size(); ++m) s.points.emplace_back(m, rent.cumulative_usd[m]);
    chart.series.push_back(std::move(s));
    if (std::isfinite(rent.break_even_months) && rent.break_even_months <= static_cast<double>(tco.horizon_months)) {
      chart.marks.push_back({.kind = "break-even",
                             .label = "break-even month (building has cost no more than renting)",
                             .x = rent.break_even_months,
                             .y = build_at(tco, rent.break_even_months),
                             .colour = std::string(svg::series_colour(r)),
                             .title = fmt::format("break-even against {}: {:.1f} months", name, rent.break_even_months)});
      chart.series.back().label += fmt::format(", break-even at {:.1f} months", rent.break_even_months);
    } else {
      chart.series.back().label += std::isfinite(rent.break_even_months)
                                       ? fmt::format(", break-even at {:.1f} months, past the horizon", rent.break_even_months)
                                       : ", building never pays off";
    }
  }
  return line_chart_svg(chart);
}

std::string tornado_svg(const models::Tco& tco, const std::vector<models::SensitivityRow>& rows) {
  const std::string reference = tco.rents.empty() ? "rent" : std::string(models::to_string(tco.rents[tco.cheapest_rent].option));
  const double base = tco.rents.empty() ? 0.0 : tco.rents[tco.cheapest_rent].horizon_usd - tco.build_horizon_usd;
  double lo = base, hi = base, label_w = 40, value_w = 40;
  std::vector<std::string> values;
  for (const auto& r : rows) {
    lo = std::min({lo, r.saving_low, r.saving_high});
    hi = std::max({hi, r.saving_low, r.saving_high});
    label_w = std::max(label_w, svg::text_width(r.input, svg::label_font_px));
    values.push_back(fmt::format("{} / {}", dollars(r.saving_low), dollars(r.saving_high)));
    value_w = std::max(value_w, svg::text_width(values.back(), svg::label_font_px));
  }
  svg::Legend legend;
  legend.use({"input-minus", "input at -20 %", std::string(svg::blue)});
  legend.use({"input-plus", "input at +20 %", std::string(svg::orange)});
  legend.use({"base", fmt::format("saving with the inputs as given ({})", dollars(base)), std::string(svg::black),
              svg::Swatch::dashed_line});
  const double left = 16 + label_w + 10;
  const double plot_w = std::max(360.0, svg::max_chart_width - left - value_w - 30);
  const double top = 12 + legend.height(plot_w) + 10, bar_h = 22, gap = 8;
  const double plot_h = static_cast<double>(rows.size()) * (bar_h + gap) + gap;
  const double width = left + plot_w + value_w + 30, height = top + plot_h + 56;
  const svg::Axis axis = svg::linear_axis(lo, hi, left, left + plot_w, true);
  std::string out = svg::open("tornado", width, height,
                              "Sensitivity: the horizon saving of building over the cheapest rent, each input at -20 % "
                              "and +20 %");
  out += legend.render(left, 12, plot_w);
  out += svg::x_axis(axis, top + plot_h, top,
                     fmt::format("saving of building over {} across the {}-month horizon (USD)", reference,
                                 tco.horizon_months),
                     dollars);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = top + gap + static_cast<double>(i) * (bar_h + gap);
    out += svg::text(left - 8, y + bar_h / 2 + 5, "row-label", r.input, svg::Anchor::end);
    double right_end = axis(base);
    for (const auto& [value, kind, fill, what] :
         {std::tuple{r.saving_low, "input-minus", svg::blue, "-20 %"}, std::tuple{r.saving_high, "input-plus", svg::orange, "+20 %"}}) {
      const double x0 = std::min(axis(base), axis(value)), x1 = std::max(axis(base), axis(value));
      out += fmt::format("<rect class=\"segment\" data-kind=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                         "height=\"{:.0f}\" fill=\"{}\"><title>{} {}: saving {}</title></rect>",
                         kind, x0, y, std::max(1.0, x1 - x0), bar_h, fill, svg::html_escape(r.input), what, dollars(value));
      right_end = std::max(right_end, x1);
    }
    out += svg::text(right_end + 6, y + bar_h / 2 + 5, "value", values[i]);
  }
  out += fmt::format("<line class=\"base\" data-kind=\"base\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                     "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
                     axis(base), top, top + plot_h);
  out += svg::close();
  return out;
}

}  // namespace clustersim::tools::charts
