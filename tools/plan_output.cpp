#include "tools/plan_output.hpp"

#include "calibration/step_inputs.hpp"
#include "tools/file_output.hpp"
#include "tools/render/csv_tables.hpp"
#include "tools/render/plan_report.hpp"

namespace clustersim::tools {

void emit_plan(const planning::PlanRequest& request, const planning::PlanResult& result, const PlanOutputs& outputs,
               std::ostream& out) {
  const std::string text = plan_text(request, result, outputs.framework);
  if (!outputs.report_path.empty()) write_file_atomically(outputs.report_path, plan_html(request, result, text));
  if (!outputs.csv_path.empty()) write_file_atomically(outputs.csv_path, plan_options_csv(result));
  if (outputs.json) {
    out << plan_json(request, result, outputs.framework);
  } else {
    out << text << "communication constants: " << calibration::communication_constants(request.scenario)
        << " (each candidate GPU: its own bundled profile)\n";
  }
}

}  // namespace clustersim::tools
