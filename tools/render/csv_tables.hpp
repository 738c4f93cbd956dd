#pragma once
/// `--csv FILE` of run, plan and tco: the table a user would load into a spreadsheet or plot, one
/// header row of column names (snake_case, units in the names, as the JSON keys) and one row per
/// item. Numbers are printed in full (shortest text that reads back the same double); text fields
/// are quoted, with a quote doubled (RFC 4180). Which table each command writes:
///  - run: the per-stage table of the text report (one row per pipeline stage);
///  - plan: every option the plan priced (GPU type, size, topology, layout), with its band, time,
///    cost and whether it is on the Pareto front or chosen;
///  - tco: the cumulative cost curves month by month, build and each rent option, the curves
///    whose crossing is the break-even month.

#include <string>

#include "models/cost/tco.hpp"
#include "models/step/step_model.hpp"
#include "planning/plan/plan.hpp"

namespace clustersim::tools {

/// A text field of a CSV row: quoted, quotes doubled.
std::string csv_text(const std::string& text);

std::string run_stages_csv(const models::StepReport& report);
std::string plan_options_csv(const planning::PlanResult& result);
std::string tco_cumulative_csv(const models::Tco& tco);

}  // namespace clustersim::tools
