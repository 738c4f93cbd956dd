#include "tools/render/svg/axis.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::svg {
namespace {

constexpr int min_ticks = 5;
constexpr int max_ticks = 10;
constexpr double label_gap_px = 6.0;  // the least space between two tick labels

// Ticks at multiples of `step` from lo to hi (both multiples).
std::vector<double> multiples(double lo, double hi, double step) {
  std::vector<double> ticks;
  const auto n = static_cast<long>(std::llround((hi - lo) / step));
  for (long i = 0; i <= n; ++i) {
    double v = lo + static_cast<double>(i) * step;
    if (std::abs(v) < step * 1e-9) v = 0.0;  // no "-0"
    ticks.push_back(v);
  }
  return ticks;
}

}  // namespace

double Axis::operator()(double v) const {
  double f = 0.0;
  switch (scale) {
    case Scale::linear: f = (v - lo) / (hi - lo); break;
    case Scale::log10: f = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)); break;
    case Scale::log2: f = (std::log2(v) - std::log2(lo)) / (std::log2(hi) - std::log2(lo)); break;
  }
  return a + f * (b - a);
}

double nice_step(double min, double max) {
  if (!(max > min)) return 1.0;
  // The smallest 1-2-5 step that gives at most max_ticks ticks; as each step is at most 2.5x the
  // last, it gives at least max_ticks / 2.5 + 1 = 5.
  double power = std::pow(10.0, std::floor(std::log10((max - min) / max_ticks)));
  for (int guard = 0; guard < 8; ++guard, power *= 10.0) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double step = m * power;
      const double lo = std::floor(min / step), hi = std::ceil(max / step);
      if (hi - lo + 1 <= max_ticks) return step;
    }
  }
  return power;
}

Axis linear_axis(double min, double max, double a, double b, bool from_zero) {
  if (!std::isfinite(min) || !std::isfinite(max)) min = 0.0, max = 1.0;
  if (from_zero) min = std::min(min, 0.0), max = std::max(max, 0.0);
  if (!(max > min)) max = min + (min == 0.0 ? 1.0 : std::abs(min));
  double step = nice_step(min, max);
  double lo = std::floor(min / step) * step, hi = std::ceil(max / step) * step;
  // Too few ticks (the data sits on a step): halve to the next smaller 1-2-5 step.
  while (std::llround((hi - lo) / step) + 1 < min_ticks) {
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)) );
    step = mantissa > 4.0 ? step / 2.5 : step / 2.0;
    lo = std::floor(min / step) * step, hi = std::ceil(max / step) * step;
  }
  return {.lo = lo, .hi = hi, .a = a, .b = b, .scale = Scale::linear, .ticks = multiples(lo, hi, step)};
}

Axis log10_axis(double min, double max, double a, double b) {
  if (!(min > 0)) min = max > 0 ? max / 10.0 : 1.0;
  if (!(max > min)) max = min * 10.0;
  const double lo_exp = std::floor(std::log10(min) + 1e-9), hi_exp = std::ceil(std::log10(max) - 1e-9);
  const double decades = std::max(1.0, hi_exp - lo_exp);
  const std::vector<double> mantissas = decades < 2 ? std::vector<double>{1, 2, 3, 5}
                                        : decades < 4 ? std::vector<double>{1, 2, 5}
                                                      : std::vector<double>{1};
  std::vector<double> candidates;
  const int every = static_cast<int>(std::ceil((decades + 1) / max_ticks));
  for (int d = 0; d <= static_cast<int>(decades); d += every) {
    for (const double m : mantissas) {
      if (d == static_cast<int>(decades) && m > 1) break;
      candidates.push_back(m * std::pow(10.0, lo_exp + d));
    }
  }
  // The ends: the last tick at or below the data and the first at or above it, so the axis is
  // no longer than it needs to be and still ends on round values.
  std::size_t first = 0, last = candidates.size() - 1;
  while (first + 1 < candidates.size() && candidates[first + 1] <= min * (1 + 1e-9)) ++first;
  while (last > first + 1 && candidates[last - 1] >= max * (1 - 1e-9)) --last;
  Axis axis{.lo = candidates[first], .hi = candidates[last], .a = a, .b = b, .scale = Scale::log10};
  axis.ticks.assign(candidates.begin() + static_cast<std::ptrdiff_t>(first),
                    candidates.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  return axis;
}

Axis log2_axis(double min, double max, double a, double b) {
  if (!(min > 0)) min = 1.0;
  if (!(max > min)) max = min * 2.0;
  const double lo_exp = std::floor(std::log2(min) + 1e-9), hi_exp0 = std::ceil(std::log2(max) - 1e-9);
  const double span = std::max(1.0, hi_exp0 - lo_exp);
  // Every k-th power of two, k the smallest of 1, 2, 3, 4, 5, 10 giving at most max_ticks.
  double k = 1;
  for (const double c : {1.0, 2.0, 3.0, 4.0, 5.0, 10.0}) {
    k = c;
    if (std::ceil(span / c) + 1 <= max_ticks) break;
  }
  const double hi_exp = lo_exp + std::ceil(span / k) * k;
  Axis axis{.lo = std::exp2(lo_exp), .hi = std::exp2(hi_exp), .a = a, .b = b, .scale = Scale::log2};
  for (double e = lo_exp; e <= hi_exp + 1e-9; e += k) axis.ticks.push_back(std::exp2(e));
  return axis;
}

Axis auto_axis(double min, double max, double a, double b, double ratio, bool from_zero) {
  if (min > 0 && max / min > ratio) return log10_axis(min, max, a, b);
  return linear_axis(min, max, a, b, from_zero);
}

std::string number_label(double v) {
  const double m = std::abs(v);
  const auto trimmed = [](double x, std::string_view suffix) {
    std::string s = fmt::format("{:.3g}", x);
    return s + std::string(suffix);
  };
  if (m >= 1e12) return trimmed(v / 1e12, "T");
  if (m >= 1e9) return trimmed(v / 1e9, "G");
  if (m >= 1e6) return trimmed(v / 1e6, "M");
  if (m >= 1e4) return trimmed(v / 1e3, "k");
  return fmt::format("{:.4g}", v);
}

std::string bytes_label(double v) {
  static constexpr std::string_view suffixes[] = {"", "K", "M", "G", "T", "P"};
  std::size_t i = 0;
  while (v >= 1024.0 && i + 1 < std::size(suffixes)) v /= 1024.0, ++i;
  return fmt::format("{:g}{}", v, suffixes[i]);
}

std::string axis_title(std::string_view title, const Axis& axis) {
  if (!axis.is_log()) return std::string(title);
  // "cost (USD)" -> "cost (USD, log scale)"
  if (!title.empty() && title.back() == ')') {
    return std::string(title.substr(0, title.size() - 1)) + ", log scale)";
  }
  return std::string(title) + " (log scale)";
}

std::string x_axis(const Axis& axis, double y, double grid_top, std::string_view title, const TickFormat& format) {
  std::string out = fmt::format(
      "<line class=\"axis-line\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>", axis.a, y,
      axis.b, y, axis_colour);
  double last_end = -1e300;
  for (const double v : axis.ticks) {
    const double px = axis(v);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>"
        "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{0:.1f}\" y2=\"{4:.1f}\" stroke=\"{5}\"/>",
        px, grid_top, y, grid_colour, y + 5, axis_colour);
    const std::string label = format(v);
    const Box box = text_box(px, y + 19, label, tick_font_px, Anchor::middle);
    if (box.x0 < last_end + label_gap_px) continue;
    last_end = box.x1;
    out += text(px, y + 19, "tick", label, Anchor::middle, fmt::format("data-value=\"{:g}\"", v));
  }
  out += text((axis.a + axis.b) / 2, y + 40, "axis-title", axis_title(title, axis), Anchor::middle);
  return out;
}

std::string y_axis(const Axis& axis, double x, double grid_right, double title_x, std::string_view title,
                   const TickFormat& format) {
  std::string out = fmt::format(
      "<line class=\"axis-line\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>", x, axis.a, x,
      axis.b, axis_colour);
  double last_top = 1e300;
  for (const double v : axis.ticks) {
    const double py = axis(v);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>"
        "<line x1=\"{4:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{1:.1f}\" stroke=\"{5}\"/>",
        x, py, grid_right, grid_colour, x - 5, axis_colour);
    // Labels go up the axis: skip one that would touch the one below it.
    const double baseline = py + 4;
    if (baseline > last_top - label_gap_px / 2) continue;
    last_top = baseline - tick_font_px;
    out += text(x - 8, baseline, "tick", format(v), Anchor::end, fmt::format("data-value=\"{:g}\"", v));
  }
  const double mid = (axis.a + axis.b) / 2;
  out += text(title_x, mid, "axis-title", axis_title(title, axis), Anchor::middle,
              fmt::format("transform=\"rotate(-90 {:.1f} {:.1f})\"", title_x, mid));
  return out;
}

}  // namespace clustersim::tools::svg
