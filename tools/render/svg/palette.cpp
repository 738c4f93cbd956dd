#include "tools/render/svg/palette.hpp"

#include <charconv>
#include <cmath>

namespace clustersim::tools::svg {
namespace {

// Relative luminance of an sRGB colour (WCAG 2.x, "relative luminance"); white for what is not
// "#rrggbb" (the charts' fills are).
double luminance(std::string_view hex) {
  if (hex.size() != 7 || hex[0] != '#') return 1.0;
  double linear[3];
  for (std::size_t i = 0; i < 3; ++i) {
    const char* first = hex.data() + 1 + 2 * i;
    int byte = 0;
    const auto [end, error] = std::from_chars(first, first + 2, byte, 16);
    if (error != std::errc{} || end != first + 2) return 1.0;
    const double v = byte / 255.0;
    linear[i] = v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  }
  return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
}

}  // namespace

std::string_view text_colour_on(std::string_view fill) {
  const double l = luminance(fill);
  const double on_white = 1.05 / (l + 0.05), on_black = (l + 0.05) / 0.05;
  return on_white > on_black ? "#ffffff" : "#000000";
}

}  // namespace clustersim::tools::svg
