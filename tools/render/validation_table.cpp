#include "tools/render/validation_table.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string run_layout(const scenarios::Scenario& s) {
  const auto& p = s.parallelism;
  std::string text = fmt::format("tp{} pp{} dp{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) text += fmt::format(" cp{}", p.cp);
  if (p.ep > 1) text += fmt::format(" ep{}", p.ep);
  if (p.etp > 1) text += fmt::format(" etp{}", p.etp);
  if (p.vp > 1) text += fmt::format(" vp{}", p.vp);
  return text;
}

std::string error_percent(double fraction, bool sign) {
  return sign ? fmt::format("{:+.1f}%", 100.0 * fraction) : fmt::format("{:.1f}%", 100.0 * fraction);
}

ordered_json stats_json(const planning::ErrorStats& stats) {
  ordered_json j;
  j["mape"] = stats.mape;
  j["median"] = stats.median;
  j["max"] = stats.max;
  j["bias"] = stats.bias;
  j["count"] = stats.count;
  return j;
}

}  // namespace

std::string validation_report_json(const planning::ValidationReport& report) {
  ordered_json rows = ordered_json::array();
  for (const auto& r : report.rows) {
    ordered_json row;
    row["id"] = r.run.id;
    row["source"] = r.run.family->name;
    row["framework"] = models::framework_name(r.run.scenario.training.framework);
    row["predicted_step_time_s"] = r.predicted_step_time_s;
    row["measured_step_time_s"] = r.run.measured.step_time_s;
    row["error"] = r.error;
    row["basis"] = scenarios::basis_name(r.run.measured.basis);
    row["derivation"] = r.run.measured.derivation;
    row["gpus"] = r.run.scenario.cluster.num_gpus;
    row["layout"] = run_layout(r.run.scenario);
    row["predicted_mfu"] = r.predicted_mfu;
    row["measured_mfu"] = r.measured_mfu;
    row["bubble_fraction"] = r.bubble_fraction;
    row["exposed_comm_fraction"] = r.exposed_comm_fraction;
    row["fits_in_memory"] = r.fits_in_memory;
    row["assumptions"] = r.run.assumptions;
    rows.push_back(std::move(row));
  }
  ordered_json skipped = ordered_json::array();
  for (const auto& s : report.skipped) skipped.push_back({{"id", s.id}, {"reason", s.reason}});
  ordered_json by_source = ordered_json::object();
  for (const auto& [name, stats] : report.by_source) by_source[name] = stats_json(stats);
  ordered_json by_exposed_comm = ordered_json::object();
  for (const auto& [group, stats] : report.by_exposed_comm) by_exposed_comm[group] = stats_json(stats);
  ordered_json overall = stats_json(report.overall);
  overall["skipped"] = report.skipped.size();
  ordered_json families = ordered_json::object();
  for (const auto& [label, spread] : report.by_validation_family) {
    families[label] = {{"runs", spread.runs}, {"band", {spread.lo, spread.hi}}};
  }

  ordered_json result;
  result["rows"] = std::move(rows);
  result["skipped"] = std::move(skipped);
  result["by_source"] = std::move(by_source);
  result["by_exposed_comm"] = std::move(by_exposed_comm);
  result["overall"] = std::move(overall);
  result["by_validation_family"] = std::move(families);
  return result.dump(2) + "\n";
}

std::string validation_report_text(const planning::ValidationReport& report, std::string_view source_name,
                                   bool details) {
  std::string text = fmt::format(
      "Predicted vs measured step time: {} runs from {}, {} skipped.\n"
      "error = (predicted - measured) / measured: + means the model predicts a slower step.\n\n",
      report.rows.size(), source_name, report.skipped.size());

  std::size_t w_id = 2, w_source = 6, w_layout = 6;
  constexpr std::size_t w_framework = 18;  // "megatron-deepspeed"
  for (const auto& r : report.rows) {
    w_id = std::max(w_id, r.run.id.size());
    w_source = std::max(w_source, r.run.family->name.size());
    w_layout = std::max(w_layout, run_layout(r.run.scenario).size());
  }
  text += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>5}  {:<{}}  {:>11}  {:>10}  {:>7}  {:<12}  {}\n", "ID", w_id,
                      "SOURCE", w_source, "FRAMEWORK", w_framework, "GPUS", "LAYOUT", w_layout, "PREDICTED_S",
                      "MEASURED_S", "ERROR", "BASIS", "NOTE");
  for (const auto& r : report.rows) {
    std::string line = fmt::format(
        "{:<{}}  {:<{}}  {:<{}}  {:>5}  {:<{}}  {:>11.4g}  {:>10.4g}  {:>7}  {:<12}  {}", r.run.id, w_id,
        r.run.family->name, w_source, models::framework_name(r.run.scenario.training.framework), w_framework,
        r.run.scenario.cluster.num_gpus, run_layout(r.run.scenario), w_layout,
        r.predicted_step_time_s, r.run.measured.step_time_s, error_percent(r.error, true),
        scenarios::basis_name(r.run.measured.basis), r.fits_in_memory ? "" : "exceeds HBM");
    line.erase(line.find_last_not_of(' ') + 1);
    text += line + "\n";
  }

  std::size_t w_name = 7;
  for (const auto& [name, stats] : report.by_source) w_name = std::max(w_name, name.size());
  text += fmt::format("\n{:<{}}  {:>5}  {:>7}  {:>7}  {:>7}  {:>7}\n", "SOURCE", w_name, "COUNT", "MAPE",
                      "MEDIAN", "MAX", "BIAS");
  auto stats_line = [&](std::string_view name, const planning::ErrorStats& s) {
    return fmt::format("{:<{}}  {:>5}  {:>7}  {:>7}  {:>7}  {:>7}\n", name, w_name, s.count,
                       error_percent(s.mape, false), error_percent(s.median, false), error_percent(s.max, false),
                       error_percent(s.bias, true));
  };
  for (const auto& [name, stats] : report.by_source) text += stats_line(name, stats);
  text += stats_line("overall", report.overall);
  text += "MAPE, MEDIAN and MAX are over |error|; BIAS is the mean signed error.\n";

  text += fmt::format("\n{:<{}}  {:>5}  {:>7}  {:>7}  {:>7}  {:>7}\n", "EXPOSED COMM", w_name, "COUNT", "MAPE",
                      "MEDIAN", "MAX", "BIAS");
  for (const auto& [group, stats] : report.by_exposed_comm) text += stats_line(group, stats);
  text += "The runs by the share of their predicted step that communication leaves exposed.\n";

  std::size_t w_family = 17;
  for (const auto& [label, spread] : report.by_validation_family) w_family = std::max(w_family, label.size());
  text += fmt::format("\n{:<{}}  {:>5}  {:>7}  {:>7}\n", "VALIDATION FAMILY", w_family, "COUNT", "BAND LO", "BAND HI");
  for (const auto& [label, spread] : report.by_validation_family) {
    text += fmt::format("{:<{}}  {:>5}  {:>7}  {:>7}\n", label, w_family, spread.runs, error_percent(spread.lo, true),
                        error_percent(spread.hi, true));
  }
  text += "A prediction of a family stands for prediction x (1 + LO) to x (1 + HI): the least and greatest measured /\n"
          "predicted of its runs, the prediction itself included; sweep and plan rank by that slow end.\n";

  text += fmt::format("\nSkipped ({}):\n", report.skipped.size());
  std::size_t w_skip = 0;
  for (const auto& s : report.skipped) w_skip = std::max(w_skip, s.id.size());
  for (const auto& s : report.skipped) text += fmt::format("  {:<{}}  {}\n", s.id, w_skip, s.reason);

  if (!details) {
    text += "\nclustersim validate --details shows each row's measured-time derivation and assumptions.\n";
    return text;
  }
  text += "\nDetails:\n";
  for (const auto& r : report.rows) {
    const auto& m = r.run.measured;
    text += fmt::format("{} (line {}, {}): predicted {:.4g} s, measured {:.4g} s ({})\n", r.run.id,
                        r.run.line, r.run.family->name, r.predicted_step_time_s, m.step_time_s,
                        error_percent(r.error, true));
    text += fmt::format("  measured from {}: {} = {:.4g} s\n", scenarios::basis_name(m.basis), m.derivation,
                        m.step_time_s);
    text += fmt::format("  simulated: MFU {:.3f} (the measured step implies {:.3f}), bubble {}, exposed "
                        "communication {}{}\n",
                        r.predicted_mfu, r.measured_mfu, error_percent(r.bubble_fraction, false),
                        error_percent(r.exposed_comm_fraction, false),
                        r.fits_in_memory ? "" : ", exceeds HBM");
    for (const auto& alt : r.run.alternatives) {
      text += fmt::format("  cross-check from {}: {} = {:.4g} s ({} against the basis used)\n",
                          scenarios::basis_name(alt.basis), alt.derivation, alt.step_time_s,
                          error_percent(alt.step_time_s / m.step_time_s - 1.0, true));
    }
    for (const auto& assumption : r.run.assumptions) text += fmt::format("  assumed: {}\n", assumption);
  }
  return text;
}

}  // namespace clustersim::tools
