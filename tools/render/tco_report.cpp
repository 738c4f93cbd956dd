#include "tools/render/tco_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "tools/render/charts/tco_charts.hpp"
#include "tools/render/html_report.hpp"

namespace clustersim::tools {
namespace {

using nlohmann::ordered_json;

// A claim "roughly N months" holds when the inputs give N within this fraction.
constexpr double claim_tolerance = 0.2;

std::string usd(double value) {
  const double magnitude = std::abs(value);
  if (magnitude == 0) return "$0";
  const char* sign = value < 0 ? "-" : "";
  if (magnitude >= 1e9) return fmt::format("{}${:.2f}B", sign, magnitude / 1e9);
  if (magnitude >= 1e6) return fmt::format("{}${:.2f}M", sign, magnitude / 1e6);
  if (magnitude >= 1e3) return fmt::format("{}${:.1f}K", sign, magnitude / 1e3);
  return fmt::format("{}${:.2f}", sign, magnitude);
}

std::string months(double value) {
  return std::isfinite(value) ? fmt::format("{:.1f} months", value) : std::string("never");
}

ordered_json number_or_null(double value) { return std::isfinite(value) ? ordered_json(value) : ordered_json(); }

struct ClaimCheck {
  models::RentOption option;
  double implied_months;
  bool follows;
  double rent_needed_usd_per_hour;  // the whole cluster's rent that would give the claim
};

std::vector<ClaimCheck> check_claim(const scenarios::Scenario& scenario, const models::Tco& tco) {
  std::vector<ClaimCheck> checks;
  const double claim = scenario.cost.claimed_break_even_months;
  if (!(claim > 0)) return checks;
  for (const auto& rent : tco.rents) {
    checks.push_back({.option = rent.option,
                      .implied_months = rent.break_even_months,
                      .follows = std::abs(rent.break_even_months - claim) <= claim_tolerance * claim,
                      .rent_needed_usd_per_hour =
                          models::break_even_rent_usd_per_hour(scenario.cost, tco.build, rent.option, claim)});
  }
  return checks;
}

}  // namespace

ordered_json tco_report_json(const scenarios::Scenario& scenario, const TcoStudy& study) {
  const auto& b = study.tco.build;
  ordered_json rents = ordered_json::array();
  for (const auto& rent : study.tco.rents) {
    rents.push_back({{"option", std::string(models::to_string(rent.option))},
                     {"usd_per_gpu_hour", rent.usd_per_gpu_hour},
                     {"usd_per_month", rent.usd_per_month},
                     {"horizon_usd", rent.horizon_usd},
                     {"break_even_months", number_or_null(rent.break_even_months)},
                     {"cumulative_usd", rent.cumulative_usd}});
  }
  ordered_json claim = nullptr;
  if (scenario.cost.claimed_break_even_months > 0) {
    claim = {{"claimed_months", scenario.cost.claimed_break_even_months},
             {"tolerance", claim_tolerance},
             {"options", ordered_json::array()}};
    for (const auto& check : check_claim(scenario, study.tco)) {
      claim["options"].push_back({{"option", std::string(models::to_string(check.option))},
                                  {"implied_months", number_or_null(check.implied_months)},
                                  {"follows", check.follows},
                                  {"rent_needed_usd_per_hour", check.rent_needed_usd_per_hour}});
    }
  }
  ordered_json run_rent = ordered_json::object();
  for (std::size_t i = 0; i < models::rent_option_count; ++i) {
    if (study.run.rent_usd[i]) {
      run_rent[std::string(models::to_string(static_cast<models::RentOption>(i)))] = {
          {"usd", *study.run.rent_usd[i]}, {"usd_per_million_tokens", *study.run.rent_usd[i] / (study.run.tokens / 1e6)}};
    }
  }
  ordered_json sensitivity = ordered_json::array();
  for (const auto& row : study.sensitivity) {
    sensitivity.push_back({{"input", row.input},
                           {"value", row.value},
                           {"break_even_months_minus_20", number_or_null(row.break_even_low)},
                           {"break_even_months_plus_20", number_or_null(row.break_even_high)},
                           {"horizon_saving_usd_minus_20", row.saving_low},
                           {"horizon_saving_usd_plus_20", row.saving_high}});
  }
  return {
      {"scenario", scenario.name},
      {"gpus", scenario.cluster.num_gpus},
      {"nodes", b.nodes},
      {"hours_per_day", scenario.cost.hours_per_day},
      {"horizon_months", study.tco.horizon_months},
      {"build", {{"network", {{"switches", b.network.switches},
                              {"nics", b.network.nics},
                              {"cables", b.network.cables},
                              {"source", b.network.source}}},
                 {"servers_usd", b.servers_usd},
                 {"network_usd", b.network_usd},
                 {"storage_usd", b.storage_usd},
                 {"other_capex_usd", b.other_capex_usd},
                 {"capex_usd", b.capex_usd},
                 {"energy_usd_per_month", b.energy_usd_per_month},
                 {"colocation_usd_per_month", b.colocation_usd_per_month},
                 {"staff_usd_per_month", b.staff_usd_per_month},
                 {"maintenance_usd_per_month", b.maintenance_usd_per_month},
                 {"other_opex_usd_per_month", b.other_opex_usd_per_month},
                 {"opex_usd_per_month", b.opex_usd_per_month},
                 {"capital_usd_per_month", b.capital_usd_per_month},
                 {"usd_per_gpu_hour", b.usd_per_gpu_hour},
                 {"horizon_usd", study.tco.build_horizon_usd},
                 {"cumulative_usd", study.tco.build_cumulative_usd}}},
      {"rent", rents},
      {"claim", claim},
      {"training_run", {{"tokens", study.run.tokens},
                        {"runs", study.runs},
                        {"goodput", study.goodput},
                        {"failure_free_days", study.failure_free_s / 86400.0},
                        {"time_to_train_days", study.run.wall_s / 86400.0},
                        {"calendar_days", study.run.calendar_days},
                        {"gpu_hours", study.run.gpu_hours},
                        {"build_usd", study.run.build_usd},
                        {"build_usd_per_million_tokens", study.run.build_usd / (study.run.tokens / 1e6)},
                        {"rent", run_rent}}},
      {"sensitivity", sensitivity},
  };
}

std::string tco_report_text(const scenarios::Scenario& scenario, const TcoStudy& study) {
  const auto& cost = scenario.cost;
  const auto& b = study.tco.build;
  std::string text = fmt::format("tco: {}  {} GPUs ({} nodes), used {:g} h/day, horizon {:g} years\n\n",
                                 scenario.name, scenario.cluster.num_gpus, b.nodes, cost.hours_per_day,
                                 cost.horizon_years);
  text += "Build, capital\n";
  text += fmt::format("  servers         {:>12}   {} x {}\n", usd(b.servers_usd), b.nodes, usd(cost.build.server_usd));
  text += fmt::format("  network         {:>12}   {} switches, {} NICs, {} cables ({})\n", usd(b.network_usd),
                      b.network.switches, b.network.nics, b.network.cables, b.network.source);
  text += fmt::format("  storage         {:>12}\n", usd(b.storage_usd));
  text += fmt::format("  other           {:>12}\n", usd(b.other_capex_usd));
  text += fmt::format("  total           {:>12}\n", usd(b.capex_usd));
  text += "Build, per month\n";
  text += fmt::format("  energy          {:>12}\n", usd(b.energy_usd_per_month));
  text += fmt::format("  colocation      {:>12}\n", usd(b.colocation_usd_per_month));
  text += fmt::format("  staff           {:>12}\n", usd(b.staff_usd_per_month));
  text += fmt::format("  maintenance     {:>12}\n", usd(b.maintenance_usd_per_month));
  text += fmt::format("  other           {:>12}\n", usd(b.other_opex_usd_per_month));
  text += fmt::format("  total           {:>12}\n", usd(b.opex_usd_per_month));
  text += fmt::format("  owned cost per GPU-hour {} (capital over {:g} years at {:g} %: {} a month)\n\n",
                      usd(b.usd_per_gpu_hour), cost.build.depreciation_years, 100.0 * cost.build.financing_rate,
                      usd(b.capital_usd_per_month));

  text += fmt::format("{:<11} {:>11} {:>12} {:>12} {:>14}\n", "option", "$/GPU-h", "per month",
                      fmt::format("{}-month", study.tco.horizon_months), "break-even");
  text += fmt::format("{:<11} {:>11} {:>12} {:>12} {:>14}\n", "build", usd(b.usd_per_gpu_hour),
                      usd(b.opex_usd_per_month), usd(study.tco.build_horizon_usd), "-");
  for (const auto& rent : study.tco.rents) {
    text += fmt::format("{:<11} {:>11} {:>12} {:>12} {:>14}\n", models::to_string(rent.option),
                        usd(rent.usd_per_gpu_hour), usd(rent.usd_per_month), usd(rent.horizon_usd),
                        months(rent.break_even_months));
  }
  text += "(build: capital at month 0, then running cost and interest on the capital each month)\n";

  for (const auto& check : check_claim(scenario, study.tco)) {
    text += fmt::format(
        "Claim: break-even after roughly {:g} months; against {} the inputs give {}: {}{}\n",
        cost.claimed_break_even_months, models::to_string(check.option), months(check.implied_months),
        check.follows ? "it follows" : "it does not follow",
        check.follows ? std::string()
                      : fmt::format(" (it would need {} an hour for the whole cluster)", usd(check.rent_needed_usd_per_hour)));
  }

  const auto& run = study.run;
  const double per_million = run.tokens / 1e6;
  text += fmt::format("\nTraining run: {:.4g} tokens in {:.1f} days of training (goodput {:.3f}, {} runs; "
                      "failure-free {:.1f}), {:.1f} calendar days at {:g} h/day, {:.4g} GPU-hours\n",
                      run.tokens, run.wall_s / 86400.0, study.goodput, study.runs, study.failure_free_s / 86400.0,
                      run.calendar_days, cost.hours_per_day, run.gpu_hours);
  text += fmt::format("  {:<11} {:>12} {:>18}\n", "option", "cost", "per million tokens");
  text += fmt::format("  {:<11} {:>12} {:>18}\n", "build", usd(run.build_usd), usd(run.build_usd / per_million));
  for (std::size_t i = 0; i < models::rent_option_count; ++i) {
    if (!run.rent_usd[i]) continue;
    text += fmt::format("  {:<11} {:>12} {:>18}\n", models::to_string(static_cast<models::RentOption>(i)),
                        usd(*run.rent_usd[i]), usd(*run.rent_usd[i] / per_million));
  }

  if (!study.sensitivity.empty()) {
    const auto reference = study.tco.rents[study.tco.cheapest_rent].option;
    text += fmt::format("\nSensitivity: the inputs that move the {}-month saving over {} most, at -20 % and +20 %\n",
                        study.tco.horizon_months, models::to_string(reference));
    text += fmt::format("  {:<36} {:>12} {:>14} {:>14} {:>12} {:>12}\n", "input", "value", "break-even -20",
                        "break-even +20", "saving -20", "saving +20");
    for (const auto& row : study.sensitivity) {
      text += fmt::format("  {:<36} {:>12.6g} {:>14} {:>14} {:>12} {:>12}\n", row.input, row.value,
                          months(row.break_even_low), months(row.break_even_high), usd(row.saving_low),
                          usd(row.saving_high));
    }
  }
  return text;
}

std::string tco_report_html(const scenarios::Scenario& scenario, const TcoStudy& study) {
  HtmlPage page("clustersim tco: " + scenario.name);
  page.paragraph(fmt::format("{} x {}: build against rent over {} months", scenario.cluster.num_gpus,
                             scenario.cluster.gpu.name, study.tco.horizon_months));
  page.heading("Cumulative cost");
  page.raw(charts::cost_curves_svg(study.tco));
  HtmlTable options{.name = "options",
                    .headers = {"option", "$/GPU-hour", "per month", fmt::format("{}-month total", study.tco.horizon_months),
                                "break-even"},
                    .numeric = {false, true, true, true, true}};
  const auto& b = study.tco.build;
  options.rows.push_back({"build", usd(b.usd_per_gpu_hour), usd(b.opex_usd_per_month), usd(study.tco.build_horizon_usd), "-"});
  for (const auto& rent : study.tco.rents) {
    options.rows.push_back({std::string(models::to_string(rent.option)), usd(rent.usd_per_gpu_hour),
                            usd(rent.usd_per_month), usd(rent.horizon_usd), months(rent.break_even_months)});
  }
  page.table(options);
  if (!study.sensitivity.empty() && !study.tco.rents.empty()) {
    page.heading("Sensitivity");
    page.raw(charts::tornado_svg(study.tco, study.sensitivity));
  }
  page.heading("Report");
  page.preformatted(tco_report_text(scenario, study));
  return page.render();
}

}  // namespace clustersim::tools
