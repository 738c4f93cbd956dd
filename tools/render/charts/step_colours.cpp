#include "tools/render/charts/step_colours.hpp"

#include <fmt/format.h>

namespace clustersim::tools::charts {

std::string comm_kind_id(models::TaskKind kind) {
  switch (kind) {
    case models::TaskKind::tp_comm: return "tp-comm";
    case models::TaskKind::pp_comm: return "pp-comm";
    case models::TaskKind::dp_comm: return "dp-comm";
    case models::TaskKind::cp_comm: return "cp-comm";
    case models::TaskKind::ep_comm: return "ep-comm";
    case models::TaskKind::compute:
    case models::TaskKind::compute_then_tp: break;
  }
  return "compute";
}

std::string comm_kind_label(models::TaskKind kind) {
  switch (kind) {
    case models::TaskKind::tp_comm: return "TP comm";
    case models::TaskKind::pp_comm: return "PP comm";
    case models::TaskKind::dp_comm: return "DP comm";
    case models::TaskKind::cp_comm: return "CP comm";
    case models::TaskKind::ep_comm: return "EP comm";
    case models::TaskKind::compute:
    case models::TaskKind::compute_then_tp: break;
  }
  return "compute";
}

std::string bubble_pattern(std::string_view id) {
  return fmt::format(
      "<defs><pattern id=\"{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" stroke-width=\"2\"/></pattern></defs>",
      id);
}

std::string seconds_text(double s) {
  if (s == 0.0) return "0 s";
  if (s >= 1.0) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

}  // namespace clustersim::tools::charts
