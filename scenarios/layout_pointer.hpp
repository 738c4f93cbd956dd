#pragma once
/// Where a field the layout rules (models/spec/layout_rules.hpp) name lives in a scenario file:
/// the one mapping from models::LayoutField to a JSON pointer ("/parallelism/tp"). The scenario
/// format mirrors the specs' members, so a field's pointer is its spec path with '/' for '.';
/// tests/scenarios/layout_pointer_test.cpp checks every field against the schema.

#include <string>

#include "models/spec/layout_rules.hpp"

namespace clustersim::scenarios {

std::string json_pointer(models::LayoutField field);

}  // namespace clustersim::scenarios
