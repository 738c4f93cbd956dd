#pragma once
/// How `clustersim run` shows one simulated step: a human-readable summary and one JSON object.

#include <string>

#include <nlohmann/json.hpp>

#include "models/comm/link_report.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::tools {

nlohmann::ordered_json step_report_json(const scenarios::Scenario& scenario, const models::StepReport& report);
std::string step_report_text(const scenarios::Scenario& scenario, const models::StepReport& report);

/// `run --links N`: the busiest links, as a `links` array and as a table.
nlohmann::ordered_json links_json(const std::vector<models::LinkLoad>& links);
std::string links_text(const std::vector<models::LinkLoad>& links);

}  // namespace clustersim::tools
