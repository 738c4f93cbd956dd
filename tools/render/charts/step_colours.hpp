#pragma once
/// The colours and legend names of a step's kinds of work, shared by the timeline and the
/// breakdown (Okabe-Ito, svg/palette.hpp).

#include <string>
#include <string_view>

#include "models/step/step_labels.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {

inline constexpr std::string_view forward_colour = svg::blue;
inline constexpr std::string_view backward_colour = svg::bluish_green;
inline constexpr std::string_view optimizer_colour = svg::reddish_purple;
inline constexpr std::string_view exposed_comm_colour = svg::orange;

inline std::string_view comm_colour(models::TaskKind kind) {
  switch (kind) {
    case models::TaskKind::tp_comm: return svg::orange;
    case models::TaskKind::pp_comm: return svg::vermillion;
    case models::TaskKind::dp_comm: return svg::sky_blue;
    case models::TaskKind::cp_comm: return svg::yellow;
    case models::TaskKind::ep_comm: return svg::black;
    case models::TaskKind::compute:
    case models::TaskKind::compute_then_tp: break;
  }
  return svg::blue;
}

/// "tp-comm" (a data-kind) and "TP comm" (its legend text).
std::string comm_kind_id(models::TaskKind kind);
std::string comm_kind_label(models::TaskKind kind);

/// The diagonal hatch of idle pipeline time, as a <defs> with pattern id `id`.
std::string bubble_pattern(std::string_view id);

/// "1.23 s", "45.6 ms", "789 us".
std::string seconds_text(double s);

}  // namespace clustersim::tools::charts
