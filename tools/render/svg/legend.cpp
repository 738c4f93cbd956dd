#include "tools/render/svg/legend.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::svg {
namespace {

constexpr double swatch_px = 14.0;
constexpr double entry_gap_px = 18.0;
constexpr double row_px = 20.0;

double entry_width(const LegendEntry& e) { return swatch_px + 6 + text_width(e.label, label_font_px) + entry_gap_px; }

std::string swatch(const LegendEntry& e, double x, double y) {
  const std::string attributes = fmt::format("class=\"swatch\" data-legend-swatch=\"{}\"", e.kind);
  switch (e.swatch) {
    case Swatch::line:
    case Swatch::dashed_line:
      return fmt::format("<line {} x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                         "stroke-width=\"2.5\"{}/>",
                         attributes, x, y + swatch_px / 2, x + swatch_px, y + swatch_px / 2, e.fill,
                         e.swatch == Swatch::dashed_line ? " stroke-dasharray=\"4 3\"" : "");
    case Swatch::circle:
    case Swatch::square:
    case Swatch::triangle:
    case Swatch::diamond:
      return marker(e.swatch, x + swatch_px / 2, y + swatch_px / 2, swatch_px / 2 - 1, e.fill, attributes);
    case Swatch::box:
    case Swatch::hatch: break;
  }
  return fmt::format("<rect {} x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" "
                     "stroke-width=\"0.5\"/>",
                     attributes, x, y, swatch_px, swatch_px, e.fill, axis_colour);
}

}  // namespace

void Legend::use(LegendEntry entry) {
  if (!has(entry.kind)) entries_.push_back(std::move(entry));
}

bool Legend::has(std::string_view kind) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const LegendEntry& e) { return e.kind == kind; });
}

double Legend::height(double width) const {
  double h = 0;
  render(0, 0, width, &h);
  return h;
}

std::string Legend::render(double x, double y, double width, double* height) const {
  std::string out;
  double cx = x, cy = y;
  for (const LegendEntry& e : entries_) {
    const double w = entry_width(e);
    if (cx > x && cx + w - entry_gap_px > x + width) cx = x, cy += row_px;
    out += fmt::format("<g class=\"legend-entry\" data-legend=\"{}\">", e.kind);
    out += swatch(e, cx, cy);
    out += text(cx + swatch_px + 6, cy + swatch_px - 2, "legend", e.label);
    out += "</g>";
    cx += w;
  }
  if (height != nullptr) *height = entries_.empty() ? 0.0 : cy - y + row_px;
  return out;
}

std::string marker(Swatch shape, double cx, double cy, double r, std::string_view fill, std::string_view attributes) {
  switch (shape) {
    case Swatch::square:
      return fmt::format("<rect {} x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
                         "stroke=\"#222\" stroke-width=\"0.7\"/>",
                         attributes, cx - r * 0.9, cy - r * 0.9, 1.8 * r, 1.8 * r, fill);
    case Swatch::triangle:
      return fmt::format("<polygon {} points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"{}\" stroke=\"#222\" "
                         "stroke-width=\"0.7\"/>",
                         attributes, cx, cy - 1.15 * r, cx + r, cy + 0.85 * r, cx - r, cy + 0.85 * r, fill);
    case Swatch::diamond:
      return fmt::format("<polygon {} points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"{}\" "
                         "stroke=\"#222\" stroke-width=\"0.7\"/>",
                         attributes, cx, cy - 1.2 * r, cx + 1.2 * r, cy, cx, cy + 1.2 * r, cx - 1.2 * r, cy, fill);
    default: break;
  }
  return fmt::format("<circle {} cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" stroke=\"#222\" "
                     "stroke-width=\"0.7\"/>",
                     attributes, cx, cy, r, fill);
}

}  // namespace clustersim::tools::svg
