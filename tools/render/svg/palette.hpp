#pragma once
/// The colours of every chart: the Okabe-Ito palette, eight colours that readers with the common
/// colour-vision deficiencies (protan, deuteran, tritan) still tell apart.
/// Source: Okabe & Ito 2008, "Color Universal Design (CUD): how to make figures and presentations
/// that are friendly to colorblind people", https://jfly.uni-koeln.de/color/ (the RGB values of its
/// Figure 16).

#include <array>
#include <cstddef>
#include <string_view>

namespace clustersim::tools::svg {

inline constexpr std::string_view black = "#000000";
inline constexpr std::string_view orange = "#e69f00";
inline constexpr std::string_view sky_blue = "#56b4e9";
inline constexpr std::string_view bluish_green = "#009e73";
inline constexpr std::string_view yellow = "#f0e442";
inline constexpr std::string_view blue = "#0072b2";
inline constexpr std::string_view vermillion = "#d55e00";
inline constexpr std::string_view reddish_purple = "#cc79a7";

/// The palette in an order where neighbours differ most in lightness (for series without a fixed
/// colour: GPU types, rent options); black last, as it is kept for reference lines.
inline constexpr std::array<std::string_view, 7> series = {blue, orange, bluish_green, reddish_purple,
                                                          sky_blue, vermillion, yellow};
inline std::string_view series_colour(std::size_t i) { return series[i % series.size()]; }

/// Text, axes and grid: dark enough to read at 12 px on white (contrast above 7:1 for text).
inline constexpr std::string_view text_colour = "#222222";
inline constexpr std::string_view axis_colour = "#444444";
inline constexpr std::string_view grid_colour = "#e3e3e3";

/// The colour for text drawn on a fill ("#rrggbb"): white or black, whichever has the higher WCAG 2
/// contrast ratio against it. Every palette colour gets at least 4.5:1 so (white on blue and black
/// on the rest: vermillion, for one, has under 4.5:1 with both white and text_colour).
std::string_view text_colour_on(std::string_view fill);

}  // namespace clustersim::tools::svg
