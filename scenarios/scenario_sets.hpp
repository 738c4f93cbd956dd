#pragma once
/// What a --set of scenario_io.hpp re-derives, on the raw JSON document after the loader
/// (scenario_reader.cpp) wrote the --set values in and before it reads it: the fields of an old
/// model or GPU preset, and dp.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios {

/// Whether `value`, read as `field`, gives the field the value it has in `reference` (false for a
/// value that cannot be read: the loader reports it where it reads the scenario).
using SameFieldValue =
    std::function<bool(const nlohmann::json& value, const Field& field, const Scenario& reference)>;

/// After the --sets wrote the keys at `set_pointers` into `document` (which was `file` before),
/// re-derives what followed from the values they replaced (scenario_io.hpp says what).
void rederive_after_sets(const nlohmann::json& file, const std::vector<std::string>& set_pointers,
                         nlohmann::json& document, const SameFieldValue& same_value);

}  // namespace clustersim::scenarios
