#pragma once
/// How far a validation family's predictions have been from the published runs, as the band a
/// prediction of that family carries (planning/validation/prediction_bands.hpp).
/// For a family with published runs i, each predicted p_i and measured m_i as `clustersim
/// validate` computes them (the row's own bundled calibration profile, the analytic fidelity), and
/// r_i = m_i / p_i:
///   lo = min(0, min_i r_i - 1),  hi = max(0, max_i r_i - 1),
/// so a prediction t stands for a step of t (1 + lo) to t (1 + hi): every published run of the
/// family lies in its band, and so does the prediction itself (one run does not make a point).
/// A family without a run is unvalidated: the table says which dimension no run covers ("no
/// published run with ZeRO-3 on Blackwell (B200, GB200)") and gives it the widest band the
/// validated families that can speak for it span (least lo, greatest hi): the ZeRO 0-2 families,
/// and for a ZeRO-3 layout the ZeRO-3 families of its own framework (another framework's gathers
/// miss in their own way), of its GPU generation; of every generation where its own has none;
/// every validated family where none of those is.
/// A family's runs are simulated the first time it is asked for, once per table: a sweep on one
/// GPU pays for its own few families, not for the whole study. A family's runs are simulated on
/// `jobs` threads; the bands do not depend on their number. Thread-safe.
/// Limitations: the spread of a handful of runs is not a confidence interval; a family's errors
/// are mostly a shared bias (the compute model's), so layouts of one family are better told apart
/// by their point estimates than their bands suggest.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "planning/validation/validation_family.hpp"
#include "planning/validation/validation_source.hpp"
#include "scenarios/validation_runs.hpp"

namespace clustersim::planning {

struct FamilyBand {
  std::string family{};       // family_label
  std::int64_t runs = 0;      // published runs behind lo and hi; 0: unvalidated
  double lo = 0.0;            // a prediction t stands for t (1 + lo) .. t (1 + hi)
  double hi = 0.0;
  std::string unvalidated{};  // empty when validated; else which dimension no run covers
  std::string stand_in{};     // unvalidated: whose span lo and hi are
};

class BandTable {
 public:
  /// Maps every row of the CSV; simulates none yet. Throws ScenarioError for a malformed file.
  BandTable(const ValidationCsv& csv, unsigned jobs);
  BandTable(const BandTable&) = delete;
  BandTable& operator=(const BandTable&) = delete;

  /// The CSV's name, as outputs cite it.
  const std::string& source() const { return source_; }
  /// The family's band; the reference lives as long as the table.
  const FamilyBand& band(const ValidationFamily& family) const;

 private:
  struct Row {
    ValidationFamily family;
    scenarios::ValidationCase run;
  };
  const FamilyBand& measured(const ValidationFamily& family) const;  // mutex_ held
  std::string missing_dimension(const ValidationFamily& family) const;
  FamilyBand stand_in(const ValidationFamily& family) const;  // mutex_ held

  std::string source_;
  unsigned jobs_ = 1;
  std::vector<Row> rows_;  // the mapped rows, CSV order
  mutable std::mutex mutex_;
  mutable std::map<ValidationFamily, FamilyBand> measured_;  // from the family's own runs
  mutable std::map<ValidationFamily, FamilyBand> bands_;     // what band() returns
};

/// The table of the built-in scenarios/validation/published_runs.csv, made once per process, on
/// every hardware thread.
const BandTable& built_in_band_table();

}  // namespace clustersim::planning
