#include "tools/render/svg/elements.hpp"

#include <fmt/format.h>

namespace clustersim::tools::svg {

double text_width(std::string_view text, double font_px) {
  // UTF-8 continuation bytes are not characters.
  double chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) chars += 1;
  }
  return chars * 0.6 * font_px;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string open(std::string_view chart, double width, double height, std::string_view description) {
  return fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
      "style=\"max-width:{:.0f}px\"><desc>{}</desc>",
      chart, width, height, width * 1.4, html_escape(description));
}

std::string text(double x, double y, std::string_view cls, std::string_view content, Anchor anchor,
                 std::string_view extra_attributes) {
  const std::string_view a = anchor == Anchor::start ? "start" : anchor == Anchor::middle ? "middle" : "end";
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"{}\" text-anchor=\"{}\"{}{}>{}</text>", x, y, cls, a,
                     extra_attributes.empty() ? "" : " ", extra_attributes, html_escape(content));
}

bool Box::overlaps(const Box& other, double margin) const {
  return x0 < other.x1 + margin && other.x0 < x1 + margin && y0 < other.y1 + margin && other.y0 < y1 + margin;
}

Box text_box(double x, double y, std::string_view content, double font_px, Anchor anchor) {
  const double w = text_width(content, font_px);
  const double x0 = anchor == Anchor::start ? x : anchor == Anchor::middle ? x - w / 2 : x - w;
  // Ascent about 0.8 em above the baseline, descent 0.2 em below.
  return {.x0 = x0, .y0 = y - 0.8 * font_px, .x1 = x0 + w, .y1 = y + 0.2 * font_px};
}

bool Occupied::free(const Box& box) const {
  for (const Box& b : boxes_) {
    if (b.overlaps(box)) return false;
  }
  return true;
}

}  // namespace clustersim::tools::svg
