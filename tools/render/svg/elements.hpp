#pragma once
/// The pieces every chart is made of: the <svg> element (a viewBox and width 100 %, so that the
/// chart scales with the page), text labels (each with a class, so that a browser check finds
/// them) and the boxes labels take, to keep labels from overlapping by construction.

#include <string>
#include <string_view>
#include <vector>

namespace clustersim::tools::svg {

/// Font sizes in px of the SVG's own coordinates. Charts are at most 1,000 wide and drawn at the
/// page's width (at least 968 px on a 1,000 px page, its 16 px paddings off), so the smallest text
/// the reader sees is 13 x 0.968 = 12.6 px.
inline constexpr double tick_font_px = 13.0;
inline constexpr double label_font_px = 14.0;
inline constexpr double title_font_px = 15.0;
inline constexpr double max_chart_width = 1000.0;

/// Width of a label of `text` at `font_px`: 0.6 em per character, a sans-serif's mean advance
/// rounded up (digits are 0.556 em in Helvetica and Arial), so estimates err on the wide side.
double text_width(std::string_view text, double font_px);

std::string html_escape(std::string_view text);

/// <svg class="chart" data-chart="NAME" viewBox="0 0 W H" width="100%"> with a <desc>.
std::string open(std::string_view chart, double width, double height, std::string_view description);
inline std::string close() { return "</svg>"; }

enum class Anchor { start, middle, end };
/// A text label: class `cls` (tick, axis-title, label, value, legend, note), escaped content.
std::string text(double x, double y, std::string_view cls, std::string_view content, Anchor anchor = Anchor::start,
                 std::string_view extra_attributes = {});

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& other, double margin = 1.0) const;
};
/// The box of a label drawn by text() (y is its baseline).
Box text_box(double x, double y, std::string_view content, double font_px, Anchor anchor);

/// The boxes already taken on a chart: labels are placed only where they fit.
class Occupied {
 public:
  void take(const Box& box) { boxes_.push_back(box); }
  bool free(const Box& box) const;
  const std::vector<Box>& boxes() const { return boxes_; }

 private:
  std::vector<Box> boxes_;
};

}  // namespace clustersim::tools::svg
