#include "scenarios/scenario_validation.hpp"

#include "scenarios/layout_pointer.hpp"
#include "scenarios/run_options_validation.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios {
namespace {

std::optional<Violation> field_violation(const Scenario& s) {
  for (const auto& section : scenario_sections()) {
    for (const auto& field : section.fields) {
      const FieldValue value = field.get(s);
      if (!field.accepts(value)) {
        return Violation{std::string(section.pointer) + "/" + std::string(field.key),
                         "must be " + field.requirement() + ", got " + format_value(value)};
      }
    }
  }
  return std::nullopt;
}

// The rules across fields: failed links need the flow fidelity (a simulation option, not a
// layout), then the layout rules every caller shares (models/spec/layout_rules.hpp).
std::optional<Violation> cross_field_violation(const Scenario& s, LayoutCheck check) {
  const auto& c = s.cluster;
  if ((c.failed_links > 0 || !c.failed_link_names.empty()) && s.simulation.fidelity != Fidelity::flow) {
    return Violation{c.failed_links > 0 ? "/cluster/failed_links" : "/cluster/failed_link_names",
                     "failed links need simulation.fidelity \"flow\": the analytic model does not see "
                     "individual links"};
  }
  if (check == LayoutCheck::searched) return std::nullopt;
  if (auto violation = models::layout_violation(s.model, s.parallelism, s.training, c)) {
    return Violation{json_pointer(violation->field), std::move(violation->rule)};
  }
  if (s.simulation.fidelity == Fidelity::flow) {
    if (auto violation = models::flow_graph_violation(s.parallelism, s.training)) {
      return Violation{json_pointer(violation->field), std::move(violation->rule)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> find_violation(const Scenario& scenario, LayoutCheck check) {
  if (auto violation = field_violation(scenario)) return violation;
  if (auto violation = cross_field_violation(scenario, check)) return violation;
  return run_options_violation(scenario);
}

void validate(const Scenario& scenario, std::string_view source) {
  if (auto violation = find_violation(scenario)) {
    throw ScenarioError(std::string(source), violation->pointer, violation->rule);
  }
}

}  // namespace clustersim::scenarios
