#pragma once
/// What `clustersim plan` prints and writes for a finished plan: its text (or its JSON) on `out`,
/// and the HTML report and the options CSV where asked. Shared by `plan` and by `merge` of plan
/// shards, so that a merged plan prints exactly what the unsharded one prints.

#include <ostream>
#include <string>

#include "handoff/frameworks/framework.hpp"
#include "planning/plan/plan.hpp"

namespace clustersim::tools {

struct PlanOutputs {
  handoff::Framework framework = handoff::Framework::megatron_lm;  // of the chosen option's launch
  bool json = false;
  std::string report_path{};  // empty: none
  std::string csv_path{};     // empty: none
};

void emit_plan(const planning::PlanRequest& request, const planning::PlanResult& result, const PlanOutputs& outputs,
               std::ostream& out);

}  // namespace clustersim::tools
