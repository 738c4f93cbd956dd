#pragma once
/// How `sweep`, `merge` and `plan` print a prediction's band (planning/validation/prediction_bands.hpp):
/// the range, the unvalidated mark, the notes that name each validation family shown, the ranks
/// a row ties with, and the band as JSON (read back by merge).

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planning/validation/prediction_bands.hpp"

namespace clustersim::tools {

/// "13.510-18.283" with `decimals` decimals, "*" after it when unvalidated (" " otherwise).
std::string band_range(const planning::StepBand& band, int decimals);
/// A flow-fidelity step against its analytic one: "+2.1%" ("+0.0%" within 0.05 %, never "-0.0%").
std::string flow_change(double flow_step_s, double analytic_step_s);
/// "1-3, 5": increasing ranks with runs joined; "-" for none.
std::string rank_list(const std::vector<std::size_t>& ranks);
/// What the bands mean and where they come from, one line ending in a newline; empty without bands.
std::string band_rule(const std::string& source, const planning::ProfileWidening& widening);
/// One line per distinct validation family of `bands` (first appearance first): its runs and
/// band, or, marked "*", why it is unvalidated and what stands in.
std::string family_notes(const std::vector<const planning::StepBand*>& bands);

/// {"family", "runs", "band": [lo, hi], "unvalidated", "stand_in"} (null strings when empty).
nlohmann::ordered_json validation_json(const planning::StepBand& band);
/// Reads back the fields validation_json wrote into `band`.
void read_validation_json(const nlohmann::json& j, planning::StepBand& band);
/// {"source", "profile", "profile_widening": [fast, slow]}.
nlohmann::ordered_json bands_header_json(const std::string& source, const planning::ProfileWidening& widening);
void read_bands_header_json(const nlohmann::json& j, std::string& source, planning::ProfileWidening& widening);

}  // namespace clustersim::tools
