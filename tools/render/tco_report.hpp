#pragma once
/// How `clustersim tco` shows build versus rent: the bill of the build, each rent option with its
/// break-even month, the check of a published break-even claim, the cost of the training run and
/// the sensitivity table; JSON adds the cumulative cost curves month by month; HTML draws them.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/run/monte_carlo.hpp"
#include "models/cost/tco.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::tools {

struct TcoStudy {
  models::Tco tco{};
  models::RunCost run{};
  double goodput = 0.0;
  double failure_free_s = 0.0;
  std::int64_t runs = 0;
  std::vector<models::SensitivityRow> sensitivity{};
};

nlohmann::ordered_json tco_report_json(const scenarios::Scenario& scenario, const TcoStudy& study);
std::string tco_report_text(const scenarios::Scenario& scenario, const TcoStudy& study);
/// `tco --report`: the cumulative cost curves with the break-even months, the sensitivity
/// tornado, the options as a table, then the text report.
std::string tco_report_html(const scenarios::Scenario& scenario, const TcoStudy& study);

}  // namespace clustersim::tools
