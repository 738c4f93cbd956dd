#pragma once
/// A scenario as text for people: one line per key, in document order, as the dotted path that
/// `--set` takes, the value and its unit. Generated from the scenario schema: it shows every key.

#include <string>

#include "scenarios/scenario.hpp"

namespace clustersim::tools {

std::string render_scenario_text(const scenarios::Scenario& scenario);

}  // namespace clustersim::tools
