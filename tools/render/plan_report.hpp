#pragma once
/// The reports of `clustersim plan` (planning/plan/plan.hpp): the text (prices, the Pareto front, the
/// cheapest option per GPU type, the choice and its launch configuration for a framework), the JSON object with
/// every option, and the HTML page (Pareto chart, the choice's timeline and breakdown, the text).

#include <string>

#include "handoff/frameworks/framework.hpp"
#include "planning/plan/plan.hpp"

namespace clustersim::tools {

/// `framework`: whose launch configuration of the chosen option ends the text (the JSON's
/// chosen.export).
std::string plan_text(const planning::PlanRequest& request, const planning::PlanResult& result,
                      handoff::Framework framework);
/// One JSON object and a newline.
std::string plan_json(const planning::PlanRequest& request, const planning::PlanResult& result,
                      handoff::Framework framework);
/// `text` is plan_text's, shown at the end of the page.
std::string plan_html(const planning::PlanRequest& request, const planning::PlanResult& result, const std::string& text);

}  // namespace clustersim::tools
