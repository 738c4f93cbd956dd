#pragma once
/// The band a predicted step time carries: the validation band of the layout's family
/// (planning/validation/band_table.hpp), widened by the fitted constants' 95 % intervals where the
/// scenario names a calibration profile that has them. For a prediction t:
///   fast = t (1 + lo) w_fast,  slow = t (1 + hi) w_slow,
/// with w_fast = min(1, T_fast / T), w_slow = max(1, T_slow / T): T the scenario's own step time,
/// T_fast and T_slow the same step with every interval-carrying constant at its fast or slow end
/// (calibration::step_time_band). The bundled profiles add no widening, even named
/// ("calibration.profile": "bundled"): the validation runs were predicted with them, so their
/// errors already hold what those constants leave uncertain.
/// `sweep` and `plan` rank by the slow end, so a layout whose prediction is unsure loses to a sure
/// one of a similar point estimate.
/// Limitations: the widening is measured once, on the scenario's own layout, and applied to every
/// layout as a ratio (a re-simulation per layout would triple a search's cost).

#include <cstdint>
#include <string>

#include "planning/search/layout_search.hpp"
#include "planning/validation/band_table.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::planning {

/// The fitted constants' share of a band.
struct ProfileWidening {
  std::string profile{};  // the profile whose intervals these are; empty: none (both factors 1)
  double fast = 1.0;      // <= 1
  double slow = 1.0;      // >= 1
};

/// Measured on the scenario's own layout; none without a named profile other than the bundled one
/// that has intervals.
ProfileWidening profile_widening(const scenarios::Scenario& scenario);

/// A prediction with its band and where the band comes from.
struct StepBand {
  double fast_s = 0.0;
  double slow_s = 0.0;
  std::string family{};       // family_label of the layout's validation family
  std::int64_t runs = 0;      // published runs of the family; 0: unvalidated
  double lo = 0.0;            // the validation band, relative (FamilyBand)
  double hi = 0.0;
  std::string unvalidated{};  // empty when validated
  std::string stand_in{};     // unvalidated: whose span lo and hi are
};

/// The point itself as its band: for rows built before bands are attached.
StepBand point_band(double step_time_s);

/// The bands of every layout on one cluster (one GPU type, one scenario).
class PredictionBands {
 public:
  /// No validation: every band is its point (tests of ranking alone).
  PredictionBands() = default;
  PredictionBands(const BandTable& table, std::string gpu, ProfileWidening widening, bool mixture_of_experts);
  /// The scenario's GPU and profile_widening(scenario).
  PredictionBands(const BandTable& table, const scenarios::Scenario& scenario);

  StepBand band(double step_time_s, const Layout& layout) const;
  /// slow / t for this layout, without building the band's strings (for a search's pruning).
  double slow_factor(const Layout& layout) const;

  const ProfileWidening& widening() const { return widening_; }
  /// The validation CSV's name; empty without validation.
  std::string source() const { return table_ ? table_->source() : std::string(); }

 private:
  const BandTable* table_ = nullptr;
  std::string gpu_{};
  bool moe_ = false;  // the model is a mixture of experts
  ProfileWidening widening_{};
};

}  // namespace clustersim::planning
