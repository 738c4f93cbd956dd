#include "calibration/profile_overlap.hpp"

#include <array>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "scenarios/scenario_error.hpp"

namespace clustersim::calibration {
namespace {

using ordered_json = nlohmann::ordered_json;

struct OverlapField {
  std::string_view name;
  models::Sourced<double> models::OverlapInterference::*member;
  double max;  // the physical range is [0, max]
};

// NCCL's kernels hold 1-32 SMs, and no GPU has 1,024; a byte of bus traffic or of a copy reads
// and writes HBM a few times, not a hundred.
constexpr std::array kOverlapFields{
    OverlapField{"sms_held", &models::OverlapInterference::sms_held, 1024},
    OverlapField{"hbm_bytes_per_bus_byte", &models::OverlapInterference::hbm_bytes_per_bus_byte, 100},
    OverlapField{"copy_hbm_bytes_per_byte", &models::OverlapInterference::copy_hbm_bytes_per_byte, 100},
};

ordered_json bound(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

}  // namespace

ordered_json overlap_section_json(const models::OverlapInterference& overlap, const IntervalMap& ci95) {
  ordered_json section = ordered_json::object();
  for (const auto& f : kOverlapFields) {
    const auto& c = overlap.*f.member;
    ordered_json j;
    j["value"] = c.value;
    j["source"] = c.source;
    if (const auto it = ci95.find("/overlap/" + std::string(f.name)); it != ci95.end()) {
      j["ci95"] = ordered_json::array({bound(it->second.first), bound(it->second.second)});
    }
    section[std::string(f.name)] = std::move(j);
  }
  return section;
}

models::OverlapInterference read_overlap_section(const ordered_json& section, const std::string& source,
                                                 IntervalMap& ci95) {
  const auto fail = [&](const std::string& pointer, const std::string& rule) {
    throw scenarios::ScenarioError(source, pointer, rule);
  };
  if (!section.is_object()) fail("/overlap", "must be an object");
  for (const auto& [key, value] : section.items()) {
    bool known = false;
    for (const auto& f : kOverlapFields) known = known || f.name == key;
    if (!known) fail("/overlap/" + key, "unknown key");
  }
  models::OverlapInterference overlap;
  for (const auto& f : kOverlapFields) {
    const std::string pointer = "/overlap/" + std::string(f.name);
    const auto it = section.find(std::string(f.name));
    if (it == section.end()) fail("/overlap", fmt::format("\"{}\" is required", f.name));
    const ordered_json& c = *it;
    if (!c.is_object()) fail(pointer, "must be an object");
    for (const auto& [key, value] : c.items()) {
      if (key != "value" && key != "source" && key != "ci95") fail(pointer + "/" + key, "unknown key");
    }
    if (!c.contains("value") || !c.at("value").is_number()) fail(pointer + "/value", "must be a number");
    const double value = c.at("value").get<double>();
    if (!(value >= 0.0 && value <= f.max)) fail(pointer + "/value", fmt::format("must be a number in [0, {}], got {}", f.max, value));
    if (!c.contains("source") || !c.at("source").is_string() || c.at("source").get<std::string>().empty()) {
      fail(pointer + "/source", "must say where the value comes from");
    }
    if (c.contains("ci95")) {
      const ordered_json& ci = c.at("ci95");
      if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number()) {
        fail(pointer + "/ci95", "must be [lo, hi]");
      }
      if (ci[1].get<double>() < ci[0].get<double>()) fail(pointer + "/ci95", "hi must be >= lo");
      ci95[pointer] = {ci[0].get<double>(), ci[1].get<double>()};
    }
    overlap.*f.member = {value, c.at("source").get<std::string>()};
  }
  return overlap;
}

}  // namespace clustersim::calibration
