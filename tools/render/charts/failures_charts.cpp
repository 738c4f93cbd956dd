#include "tools/render/charts/failures_charts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/run/run_simulation.hpp"
#include "tools/render/charts/bar_chart.hpp"
#include "tools/render/charts/line_chart.hpp"
#include "tools/render/svg/axis.hpp"
#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/legend.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

constexpr double seconds_per_day = 86400.0;
constexpr double seconds_per_minute = 60.0;

}  // namespace

std::string goodput_interval_svg(const models::IntervalSweep& sweep) {
  LineChart chart{.chart = "goodput-interval",
                  .description = "Mean goodput against the checkpoint interval, with Young's and Daly's intervals",
                  .x_title = "checkpoint interval (minutes of compute)",
                  .y_title = "mean goodput (%)",
                  .x_scale = svg::Scale::log10,
                  .y_from_zero = false};
  Series s{.kind = "goodput", .label = "goodput, simulated", .colour = std::string(svg::blue), .markers = true};
  for (const auto& p : sweep.points) s.points.emplace_back(p.interval_s / seconds_per_minute, 100 * p.mean_goodput);
  chart.series.push_back(std::move(s));
  const auto mark = [&](std::string kind, std::string what, double seconds, std::string_view colour, bool dashed) {
    if (!(std::isfinite(seconds) && seconds > 0)) return;
    chart.verticals.push_back({.kind = std::move(kind),
                               .label = fmt::format("{}: {:.1f} min", what, seconds / seconds_per_minute),
                               .x = seconds / seconds_per_minute,
                               .colour = std::string(colour),
                               .dashed = dashed});
  };
  mark("young", "Young's interval sqrt(2 x checkpoint cost x MTTI)", sweep.young_s, svg::orange, true);
  mark("daly", "Daly's interval", sweep.daly_s, svg::reddish_purple, true);
  mark("best", "best interval simulated", sweep.best_interval_s, svg::bluish_green, false);
  return line_chart_svg(chart);
}

std::string lost_gpu_hours_svg(const models::RunStatistics& stats, double gpus) {
  BarChart bars{.chart = "lost-gpu-hours",
                .description = "Mean lost GPU-hours per run by cause",
                .axis_title = "lost GPU-hours per run (mean)"};
  double total = 0;
  for (const double s : stats.mean_lost_s) total += s;
  for (std::size_t c = 0; c < stats.mean_lost_s.size(); ++c) {
    const double hours = stats.mean_lost_s[c] * gpus / 3600.0;
    if (!(hours > 0)) continue;
    const std::string name(models::loss_cause_name(c));
    BarRow row{.label = name};
    row.segments.push_back({.kind = "lost", .legend_label = "lost GPU-hours", .fill = std::string(svg::vermillion),
                            .value = hours, .title = fmt::format("{}: {:.4g} GPU-hours", name, hours)});
    row.value_text = fmt::format("{} ({:.1f} %)", svg::number_label(std::round(hours * 10) / 10),
                                 100 * stats.mean_lost_s[c] / total);
    bars.rows.push_back(std::move(row));
  }
  return bar_chart_svg(bars);
}

Histogram time_to_train_histogram(const std::vector<double>& wall_days) {
  Histogram h;
  if (wall_days.empty()) return h;
  const auto [lo, hi] = std::minmax_element(wall_days.begin(), wall_days.end());
  const double step = svg::nice_step(*lo, *hi) / 2;
  const double first = std::floor(*lo / step) * step;
  auto bins = static_cast<std::size_t>(std::floor((*hi - first) / step)) + 1;
  for (std::size_t i = 0; i <= bins; ++i) h.edges.push_back(first + static_cast<double>(i) * step);
  h.counts.assign(bins, 0);
  for (const double d : wall_days) {
    const auto i = std::min(bins - 1, static_cast<std::size_t>(std::floor((d - first) / step)));
    ++h.counts[i];
  }
  return h;
}

std::string time_to_train_svg(const std::vector<double>& wall_s, const models::RunStatistics& stats) {
  std::vector<double> days;
  for (const double s : wall_s) days.push_back(s / seconds_per_day);
  const Histogram h = time_to_train_histogram(days);
  std::int64_t most = 1;
  for (const auto c : h.counts) most = std::max(most, c);
  svg::Legend legend;
  legend.use({"runs", "runs in a bin", std::string(svg::sky_blue)});
  const auto vline = [&](std::string kind, std::string label, std::string_view colour) {
    legend.use({std::move(kind), std::move(label), std::string(colour), svg::Swatch::dashed_line});
  };
  vline("mean", fmt::format("mean {:.2f} days", stats.mean_wall_s / seconds_per_day), svg::black);
  vline("p50", fmt::format("P50 {:.2f} days", stats.p50_wall_s / seconds_per_day), svg::bluish_green);
  if (std::isfinite(stats.p90_wall_s)) vline("p90", fmt::format("P90 {:.2f} days", stats.p90_wall_s / seconds_per_day), svg::vermillion);
  constexpr double left = 100, plot_w = 860, plot_h = 320;
  const double top = 12 + legend.height(plot_w) + 12, height = top + plot_h + 56;
  const double x_lo = h.edges.empty() ? 0 : h.edges.front(), x_hi = h.edges.empty() ? 1 : h.edges.back();
  const svg::Axis ax = svg::linear_axis(x_lo, x_hi, left, left + plot_w, false);
  const svg::Axis ay = svg::linear_axis(0, static_cast<double>(most), top + plot_h, top, true);
  std::string out = svg::open("time-to-train", left + plot_w + 30, height,
                              "Distribution of time-to-train over the Monte Carlo runs");
  out += legend.render(left, 12, plot_w);
  out += svg::x_axis(ax, top + plot_h, top, "time to train (days of wall time)",
                     [](double v) { return fmt::format("{:g}", v); });
  out += svg::y_axis(ay, left, left + plot_w, 22, "runs", [](double v) { return fmt::format("{:g}", v); });
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] == 0) continue;
    const double x0 = ax(h.edges[i]), x1 = ax(h.edges[i + 1]), y = ay(static_cast<double>(h.counts[i]));
    out += fmt::format("<rect class=\"bar\" data-kind=\"runs\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                       "fill=\"{}\" stroke=\"#fff\"><title>{:g}-{:g} days: {} runs</title></rect>",
                       x0, y, std::max(1.0, x1 - x0), top + plot_h - y, svg::sky_blue, h.edges[i], h.edges[i + 1],
                       h.counts[i]);
  }
  for (const auto& [kind, seconds, colour] : {std::tuple{"mean", stats.mean_wall_s, svg::black},
                                              std::tuple{"p50", stats.p50_wall_s, svg::bluish_green},
                                              std::tuple{"p90", stats.p90_wall_s, svg::vermillion}}) {
    if (!std::isfinite(seconds)) continue;
    const double px = ax(seconds / seconds_per_day);
    out += fmt::format("<line class=\"mark\" data-kind=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"7 4\"/>",
                       kind, px, top, px, top + plot_h, colour);
  }
  out += svg::close();
  return out;
}

}  // namespace clustersim::tools::charts
