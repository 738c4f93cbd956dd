#include "tools/render/prometheus_metrics.hpp"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "calibration/nccl_tests_log.hpp"

namespace clustersim::tools {

namespace {

bool prom_name_ok(const std::string& name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string prom_escape(const std::string& text, bool quote) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (quote && c == '"') out += "\\\"";
    else out += c;
  }
  return out;
}

std::string prom_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string_view scope_name(models::CommScope scope) {
  switch (scope) {
    case models::CommScope::tp: return "tp";
    case models::CommScope::dp: return "dp";
    case models::CommScope::dp_shard: return "dp_shard";
    case models::CommScope::dp_replica: return "dp_replica";
    case models::CommScope::cp: return "cp";
    case models::CommScope::pp_next: return "pp_next";
    case models::CommScope::pp_previous: return "pp_previous";
    case models::CommScope::ep: return "ep";
    case models::CommScope::ep_dp: return "ep_dp";
    case models::CommScope::ep_tp: return "ep_tp";
    case models::CommScope::pp_ends: return "pp_ends";
    case models::CommScope::cp_inner: return "cp_inner";
    case models::CommScope::cp_outer: return "cp_outer";
  }
  return "?";
}

}  // namespace

std::string prometheus_text(const std::vector<MetricFamily>& families) {
  std::string out;
  std::set<std::string> names, series;
  for (const MetricFamily& family : families) {
    if (!prom_name_ok(family.name, true) || !names.insert(family.name).second)
      throw std::logic_error("prometheus: bad or repeated metric name " + family.name);
    out += "# HELP " + family.name + " " + prom_escape(family.help, false) + "\n";
    out += "# TYPE " + family.name + " gauge\n";
    for (const MetricSample& sample : family.samples) {
      std::string line = family.name;
      if (!sample.labels.empty()) {
        line += '{';
        for (std::size_t i = 0; i < sample.labels.size(); ++i) {
          if (!prom_name_ok(sample.labels[i].first, false)) throw std::logic_error("prometheus: bad label name");
          if (i > 0) line += ',';
          line += sample.labels[i].first + "=\"" + prom_escape(sample.labels[i].second, true) + "\"";
        }
        line += '}';
      }
      if (!series.insert(line).second) throw std::logic_error("prometheus: series twice: " + line);
      out += line + " " + prom_value(sample.value) + "\n";
    }
  }
  return out;
}

std::vector<MetricFamily> step_metric_families(const scenarios::Scenario& scenario, const models::StepInputs& inputs,
                                               const models::StepSimulation& sim) {
  const models::StepTimes& t = sim.report.times;
  const std::pair<std::string, std::string> s{"scenario", scenario.name};
  std::vector<MetricFamily> f{
      {.name = "clustersim_predicted_step_time_seconds", .help = "Predicted time of one training step.",
       .samples = {{.labels = {s}, .value = t.step_time_s}}},
      {.name = "clustersim_predicted_mfu_ratio", .help = "Predicted model FLOPs utilisation (0..1).",
       .samples = {{.labels = {s}, .value = sim.report.mfu}}},
      {.name = "clustersim_predicted_bubble_ratio", .help = "Predicted pipeline bubble over the step time (0..1), mean over stages.",
       .samples = {{.labels = {s}, .value = t.bubble_fraction}}},
      {.name = "clustersim_predicted_exposed_communication_ratio",
       .help = "Predicted communication not hidden under compute over the step time (0..1), mean over stages.",
       .samples = {{.labels = {s}, .value = t.exposed_comm_fraction}}},
  };
  MetricFamily kinds{.name = "clustersim_predicted_communication_seconds",
                     .help = "Predicted time each kind of communication runs in a step on a stage, overlapped with compute or not.",
                     .samples = {}};
  for (std::size_t i = 0; i < t.stages.size(); ++i) {
    const models::StageTimes& st = t.stages[i];
    for (const auto& [kind, seconds] : {std::pair{"tp", st.tp_comm_s}, std::pair{"pp", st.pp_comm_s}, std::pair{"dp", st.dp_comm_s},
                                        std::pair{"cp", st.cp_comm_s}, std::pair{"ep", st.ep_comm_s}})
      kinds.samples.push_back({.labels = {s, {"stage", std::to_string(i)}, {"kind", kind}}, .value = seconds});
  }
  f.push_back(std::move(kinds));

  // Each distinct collective of the plan once: its operation, the ranks it runs between, its bytes.
  MetricFamily collectives{.name = "clustersim_predicted_collective_seconds",
                           .help = "Expected seconds of one call of a collective of the step (analytic model, host work included).",
                           .samples = {}};
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  const auto add = [&](const models::CollectiveRecord& r) {
    if (r.bytes <= 0.0 || r.seconds <= 0.0) return;
    const std::string op(calibration::collective_name(r.op)), group(scope_name(r.scope));
    const std::string bytes = fmt::format("{:.0f}", r.bytes);
    if (!seen.insert({op, group, bytes}).second) return;
    collectives.samples.push_back({.labels = {s, {"collective", op}, {"group", group}, {"bytes", bytes}}, .value = r.seconds});
  };
  const models::StepPlan plan = models::plan_step(inputs);
  for (const auto& r : plan.layer.tp) add(r);
  add(plan.layer.cp_kv);
  add(plan.layer.ep_dispatch);
  for (const auto& r : plan.layer.etp) add(r);
  for (const auto& stage : plan.stages) {
    add(stage.send_forward);
    add(stage.send_backward);
    for (const auto& c : stage.chunks) {
      for (const auto* r : {&c.grad_reduce, &c.param_gather, &c.expert_grad_reduce, &c.expert_param_gather, &c.unit_gather,
                            &c.unit_reduce, &c.unit_replica_reduce, &c.expert_gather, &c.expert_reduce})
        add(*r);
    }
  }
  f.push_back(std::move(collectives));
  return f;
}

std::vector<MetricFamily> compare_metric_families(const scenarios::Scenario& scenario,
                                                  const std::vector<handoff::StepTimeComparison>& steps,
                                                  const std::vector<handoff::BusbwComparison>& collectives) {
  const std::pair<std::string, std::string> s{"scenario", scenario.name};
  MetricFamily measured{.name = "clustersim_measured_step_time_seconds",
                        .help = "Measured step time over a log's steady steps, by quantile (0.1, 0.5, 0.9).", .samples = {}};
  MetricFamily error{.name = "clustersim_step_time_relative_error_ratio",
                     .help = "Predicted over measured median step time, minus 1.", .samples = {}};
  for (const auto& c : steps) {
    for (const auto& [q, v] : {std::pair{"0.1", c.measured_s.p10}, std::pair{"0.5", c.measured_s.median}, std::pair{"0.9", c.measured_s.p90}})
      measured.samples.push_back({.labels = {s, {"log", c.file}, {"quantile", q}}, .value = v});
    error.samples.push_back({.labels = {s, {"log", c.file}}, .value = c.relative_error});
  }
  MetricFamily busbw_measured{.name = "clustersim_measured_busbw_bytes_per_second",
                              .help = "Bus bandwidth nccl-tests measured (the faster placement).", .samples = {}};
  MetricFamily busbw_predicted{.name = "clustersim_predicted_busbw_bytes_per_second",
                               .help = "Bus bandwidth the collective model predicts for the same call.", .samples = {}};
  for (const auto& c : collectives) {
    for (const auto& r : c.rows) {
      const std::vector<std::pair<std::string, std::string>> labels{
          s, {"log", c.file}, {"collective", std::string(calibration::collective_name(c.op))},
          {"ranks", std::to_string(c.ranks)}, {"bytes", std::to_string(r.size_bytes)}};
      busbw_measured.samples.push_back({.labels = labels, .value = r.measured_busbw_gbps * 1e9});
      busbw_predicted.samples.push_back({.labels = labels, .value = r.predicted_busbw_gbps * 1e9});
    }
  }
  return {measured, error, busbw_measured, busbw_predicted};
}

}  // namespace clustersim::tools
