#include "calibration/apply_profile.hpp"

#include <cmath>

#include "calibration/profile.hpp"
#include "scenarios/embedded_files.hpp"
#include "scenarios/scenario_error.hpp"

namespace clustersim::calibration {

std::vector<models::CollectiveCurve> curves_of(const CalibrationProfile& profile) {
  std::vector<models::CollectiveCurve> curves;
  for (const auto& fitted : profile.collectives) {
    models::CollectiveCurve curve{.op = fitted.op, .ranks = fitted.ranks, .ranks_per_node = fitted.ranks_per_node,
                                  .segments = {}};
    for (const auto& s : fitted.segments) {
      curve.segments.push_back({.min_bytes = static_cast<double>(s.min_bytes),
                                .max_bytes = static_cast<double>(s.max_bytes),
                                .alpha_s = s.alpha_us * 1e-6,
                                .busbw_bytes_per_s = std::isnan(s.busbw_gb_per_s) ? 0.0 : s.busbw_gb_per_s * 1e9});
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

void apply_profile(const std::string& path, models::StepInputs& inputs) {
  CalibrationProfile profile;
  if (path == kBundledProfile) {
    const std::string name = "calibration/profiles/" + inputs.cluster.gpu.name + ".json";
    const scenarios::EmbeddedFile* bundled = scenarios::find_embedded_file(name);
    if (!bundled) throw scenarios::ScenarioError("scenario", "/calibration/profile", "no bundled profile for \"" + inputs.cluster.gpu.name + "\"");
    profile = parse_profile(bundled->text, name);
  } else {
    profile = load_profile(path);
  }
  if (profile.gpu != inputs.cluster.gpu.name) {
    throw scenarios::ScenarioError(path, "/gpu",
                                   "the profile is for \"" + profile.gpu + "\" but the scenario's GPU is \"" +
                                       inputs.cluster.gpu.name + "\"");
  }
  inputs.compute = std::move(profile.compute);
  inputs.comm = std::move(profile.comm);
  inputs.comm.curves = curves_of(profile);
}

}  // namespace clustersim::calibration
