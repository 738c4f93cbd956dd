#include "tools/render/band_text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json text_or_null(const std::string& text) { return text.empty() ? ordered_json(nullptr) : ordered_json(text); }

std::string text_of(const nlohmann::json& j) { return j.is_null() ? std::string() : j.get<std::string>(); }

}  // namespace

std::string band_range(const planning::StepBand& band, int decimals) {
  return fmt::format("{:.{}f}-{:.{}f}{}", band.fast_s, decimals, band.slow_s, decimals,
                     band.unvalidated.empty() ? " " : "*");
}

std::string flow_change(double flow_step_s, double analytic_step_s) {
  const double percent = 100 * (flow_step_s / analytic_step_s - 1);
  return fmt::format("{:+.1f}%", std::abs(percent) < 0.05 ? 0.0 : percent);
}

std::string rank_list(const std::vector<std::size_t>& ranks) {
  if (ranks.empty()) return "-";
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + (j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return text;
}

std::string band_rule(const std::string& source, const planning::ProfileWidening& widening) {
  if (source.empty()) return "";
  std::string text = fmt::format(
      "band: the prediction x the least to the greatest measured / predicted step time of the published runs of "
      "the layout's validation family ({}), the prediction itself included",
      source);
  if (!widening.profile.empty()) {
    text += fmt::format(", then x {:.3f} .. x {:.3f} for the 95 % intervals of calibration profile {}", widening.fast,
                        widening.slow, widening.profile);
  }
  return text + "; rows rank by the band's slow end\n";
}

std::string family_notes(const std::vector<const planning::StepBand*>& bands) {
  std::vector<const planning::StepBand*> distinct;
  for (const planning::StepBand* band : bands) {
    if (band->family.empty()) continue;
    const bool seen = std::any_of(distinct.begin(), distinct.end(),
                                  [&](const planning::StepBand* other) { return other->family == band->family; });
    if (!seen) distinct.push_back(band);
  }
  std::size_t width = 0;
  for (const auto* band : distinct) width = std::max(width, band->family.size());
  std::string text;
  for (const auto* band : distinct) {
    const std::string range = fmt::format("{:+.1f} % .. {:+.1f} %", 100 * band->lo, 100 * band->hi);
    if (band->unvalidated.empty()) {
      text += fmt::format("  {:<{}}  {:>3} published run{}, {}\n", band->family, width, band->runs,
                          band->runs == 1 ? "" : "s", range);
    } else {
      text += fmt::format("* {:<{}}  unvalidated: {}; band {}: {}\n", band->family, width, band->unvalidated, range,
                          band->stand_in);
    }
  }
  return text;
}

nlohmann::ordered_json validation_json(const planning::StepBand& band) {
  return {{"family", band.family},
          {"runs", band.runs},
          {"band", {band.lo, band.hi}},
          {"unvalidated", text_or_null(band.unvalidated)},
          {"stand_in", text_or_null(band.stand_in)}};
}

void read_validation_json(const nlohmann::json& j, planning::StepBand& band) {
  band.family = j.at("family").get<std::string>();
  band.runs = j.at("runs").get<std::int64_t>();
  band.lo = j.at("band").at(0).get<double>();
  band.hi = j.at("band").at(1).get<double>();
  band.unvalidated = text_of(j.at("unvalidated"));
  band.stand_in = text_of(j.at("stand_in"));
}

nlohmann::ordered_json bands_header_json(const std::string& source, const planning::ProfileWidening& widening) {
  return {{"source", text_or_null(source)},
          {"profile", text_or_null(widening.profile)},
          {"profile_widening", {widening.fast, widening.slow}}};
}

void read_bands_header_json(const nlohmann::json& j, std::string& source, planning::ProfileWidening& widening) {
  source = text_of(j.at("source"));
  widening.profile = text_of(j.at("profile"));
  widening.fast = j.at("profile_widening").at(0).get<double>();
  widening.slow = j.at("profile_widening").at(1).get<double>();
}

}  // namespace clustersim::tools
