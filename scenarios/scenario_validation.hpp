#pragma once
/// The rules a Scenario must satisfy before it is simulated: every field within its bounds
/// (from scenario_schema.hpp), failed links only with the flow fidelity, and the layout rules
/// the step model and the layout search share (models/spec/layout_rules.hpp: heads and kv_heads
/// against tp, GPU count = tp*pp*dp*cp, batch sizes, schedules, FP8 support, ...), their fields
/// named by JSON pointer (layout_pointer.hpp). Scenarios built in code (sweeps) are checked by
/// the same rules as loaded ones.

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

/// Whether the layout rules apply to the scenario's own layout (tp, pp, dp, cp, vp, micro-batch,
/// ...): not for a command that replaces it by a search (sweep --search), which checks every layout
/// it tries; then dp is derived only where it can be.
enum class LayoutCheck { own_layout, searched };

/// The first broken rule, fields in document order first, then cross-field rules; nullopt if the
/// scenario is valid.
std::optional<Violation> find_violation(const Scenario& scenario, LayoutCheck check = LayoutCheck::own_layout);

/// Throws ScenarioError(source, pointer, rule) for the first broken rule.
void validate(const Scenario& scenario, std::string_view source);

}  // namespace clustersim::scenarios
