#include "planning/validation/prediction_bands.hpp"

#include <algorithm>
#include <utility>

#include "calibration/apply_profile.hpp"
#include "calibration/step_inputs.hpp"
#include "models/step/step_model.hpp"

namespace clustersim::planning {

ProfileWidening profile_widening(const scenarios::Scenario& scenario) {
  // The bundled profile, named or not, holds the constants the validation runs were predicted with.
  if (calibration::resolved_profile(scenario) == calibration::kBundledProfile) return {};
  const auto band = calibration::step_time_band(scenario);
  if (!band) return {};
  const double t = models::step_report(calibration::step_inputs(scenario)).times.step_time_s;
  return {.profile = scenario.calibration_profile,
          .fast = std::min(1.0, band->fast_s / t),
          .slow = std::max(1.0, band->slow_s / t)};
}

StepBand point_band(double step_time_s) { return {.fast_s = step_time_s, .slow_s = step_time_s}; }

PredictionBands::PredictionBands(const BandTable& table, std::string gpu, ProfileWidening widening,
                                 bool mixture_of_experts)
    : table_(&table), gpu_(std::move(gpu)), moe_(mixture_of_experts), widening_(std::move(widening)) {}

PredictionBands::PredictionBands(const BandTable& table, const scenarios::Scenario& scenario)
    : PredictionBands(table, scenario.cluster.gpu.name, profile_widening(scenario), scenario.model.experts > 0) {}

StepBand PredictionBands::band(double step_time_s, const Layout& layout) const {
  if (table_ == nullptr) return point_band(step_time_s);
  const FamilyBand& f = table_->band(validation_family(gpu_, layout.parallelism, layout.training, moe_));
  return {.fast_s = step_time_s * (1.0 + f.lo) * widening_.fast,
          .slow_s = step_time_s * (1.0 + f.hi) * widening_.slow,
          .family = f.family,
          .runs = f.runs,
          .lo = f.lo,
          .hi = f.hi,
          .unvalidated = f.unvalidated,
          .stand_in = f.stand_in};
}

double PredictionBands::slow_factor(const Layout& layout) const {
  if (table_ == nullptr) return 1.0;
  return (1.0 + table_->band(validation_family(gpu_, layout.parallelism, layout.training, moe_)).hi) * widening_.slow;
}

}  // namespace clustersim::planning
