#pragma once
/// How `clustersim run` shows one simulated step: a human-readable summary and one JSON object.

#include <string>

#include <nlohmann/json.hpp>

#include "models/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::tools {

nlohmann::ordered_json step_report_json(const scenarios::Scenario& scenario, const models::StepReport& report);
std::string step_report_text(const scenarios::Scenario& scenario, const models::StepReport& report);

}  // namespace clustersim::tools
