#pragma once
/// The rules a Scenario must satisfy before it is simulated: every field within its bounds
/// (from scenario_schema.hpp) and the cross-field rules (divisibility of heads by tp, GPU count
/// = tp*pp*dp*cp, batch sizes, schedules, FP8 support, ...). Scenarios built in code (sweeps)
/// are checked by the same rules as loaded ones.

#include <optional>
#include <string>
#include <string_view>

#include "scenarios/scenario.hpp"

namespace clustersim::scenarios {

/// One broken rule: where (JSON pointer) and what.
struct Violation {
  std::string pointer{};
  std::string rule{};
};

/// The first broken rule, fields in document order first, then cross-field rules; nullopt if the
/// scenario is valid.
std::optional<Violation> find_violation(const Scenario& scenario);

/// Throws ScenarioError(source, pointer, rule) for the first broken rule.
void validate(const Scenario& scenario, std::string_view source);

}  // namespace clustersim::scenarios
