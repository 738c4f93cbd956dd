#pragma once
/// Chart axes: a scale from data to pixels, its ticks at round values and the drawing of the axis
/// with its title (and unit).
/// - linear: 5 to 10 ticks 1, 2 or 5 x 10^k apart; the axis runs from a tick below the data to
///   a tick above it, so the ticks cover the data;
/// - log10: ticks at powers of ten (with 2 and 5 between them when the data spans under four
///   decades, and 3 as well within one), the ends at the ticks just outside the data;
/// - log2: binary sizes (1 KiB, 4 KiB, ...), the ends at powers of two, ticks every 2^k with k
///   chosen for 5 to 10 of them.
/// A tick label that would touch the previous one is left out (its grid line stays), so no two
/// labels overlap.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::tools::svg {

enum class Scale { linear, log10, log2 };

struct Axis {
  double lo = 0.0, hi = 1.0;  // data range of the axis, ticks included
  double a = 0.0, b = 1.0;    // pixels of lo and hi
  Scale scale = Scale::linear;
  std::vector<double> ticks{};

  double operator()(double v) const;
  bool is_log() const { return scale != Scale::linear; }
};

/// The 1-2-5 step giving 5 to 10 ticks over [min, max].
double nice_step(double min, double max);
/// A linear axis over the data [min, max]; `from_zero`: include 0 (bars start there).
Axis linear_axis(double min, double max, double a, double b, bool from_zero = true);
Axis log10_axis(double min, double max, double a, double b);
Axis log2_axis(double min, double max, double a, double b);
/// log10 when the positive data spans more than `ratio` (20: a linear axis would squeeze the
/// small values into a few pixels), else linear (from zero when `from_zero`).
Axis auto_axis(double min, double max, double a, double b, double ratio = 20.0, bool from_zero = true);

using TickFormat = std::function<std::string(double)>;
/// 3 significant digits with k, M, G, T suffixes (1000s).
std::string number_label(double v);
/// Bytes with binary suffixes as nccl-tests writes sizes: 1K, 64M, 8G.
std::string bytes_label(double v);

/// The x axis along y = `y` (the plot's bottom), grid lines up to `grid_top`, labels below, the
/// title centred under them. `title` names the quantity and its unit; a log axis says so.
std::string x_axis(const Axis& axis, double y, double grid_top, std::string_view title, const TickFormat& format);
/// The y axis along x = `x` (the plot's left), grid lines across to `grid_right`, labels left of
/// it, the title rotated along it at x = `title_x`.
std::string y_axis(const Axis& axis, double x, double grid_right, double title_x, std::string_view title,
                   const TickFormat& format);

/// The title text of an axis: "time to train (days, log scale)".
std::string axis_title(std::string_view title, const Axis& axis);

}  // namespace clustersim::tools::svg
