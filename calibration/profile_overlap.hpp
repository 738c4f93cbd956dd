#pragma once
/// The "overlap" section of a calibration profile: what a communication transfer running beside
/// compute takes from it (models/compute/overlap_interference.hpp), each constant with its source
/// and, where fitted, a 95 % interval:
///   "overlap": { "sms_held": {"value": 24.0, "source": "...", "ci95": [lo, hi]},
///                "hbm_bytes_per_bus_byte": {...}, "copy_hbm_bytes_per_byte": {...} }
/// The section is optional: a profile without it has the GPU's built-in, sourced constants
/// (models::default_overlap_interference), and `clustersim calibrate` writes it only when its
/// inputs held overlap_bench measurements.
/// Units: SMs; HBM bytes per byte moved.
/// Source: format defined here; written by `clustersim calibrate` from overlap_bench output.

#include <functional>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/compute/overlap_interference.hpp"

namespace clustersim::calibration {

using IntervalMap = std::map<std::string, std::pair<double, double>, std::less<>>;

/// The section's object; `ci95` by JSON pointer ("/overlap/sms_held").
nlohmann::ordered_json overlap_section_json(const models::OverlapInterference& overlap, const IntervalMap& ci95);

/// Reads the section; records intervals into `ci95`. Throws scenarios::ScenarioError
/// "<source>: /overlap/...: <rule>".
models::OverlapInterference read_overlap_section(const nlohmann::ordered_json& section, const std::string& source,
                                                 IntervalMap& ci95);

}  // namespace clustersim::calibration
