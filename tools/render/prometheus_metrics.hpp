#pragma once
/// The prediction (and, for `compare`, the measurement) as a Prometheus text exposition, the file
/// node_exporter's textfile collector reads: per metric family a `# HELP` and a `# TYPE` line, then
/// one sample per line, `name{label="value",...} value`. Names match [a-zA-Z_:][a-zA-Z0-9_:]*,
/// label values escape \, " and newline; units are base units (seconds, bytes per second, ratios
/// 0..1). All families are gauges: a prediction is a value, not a count.
/// Source: Prometheus docs, "Exposition formats" (text-based format, version 0.0.4).

#include <string>
#include <utility>
#include <vector>

#include "handoff/compare/log_comparison.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace clustersim::tools {

struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels{};
  double value = 0.0;
};

struct MetricFamily {
  std::string name{};
  std::string help{};
  std::vector<MetricSample> samples{};
};

/// Throws std::logic_error for a name or label name outside the format's grammar, or a series twice.
std::string prometheus_text(const std::vector<MetricFamily>& families);

/// The step: step time, MFU, bubble and exposed-communication ratios, communication time per kind
/// and stage, and the expected seconds of each distinct collective (operation, group, bytes) of
/// the step plan, all labelled with the scenario's name.
std::vector<MetricFamily> step_metric_families(const scenarios::Scenario& scenario, const models::StepInputs& inputs,
                                               const models::StepSimulation& sim);

/// `compare`'s measured figures: each step log's median, P10 and P90 step time and each nccl-tests
/// row's measured and predicted bus bandwidth.
std::vector<MetricFamily> compare_metric_families(const scenarios::Scenario& scenario,
                                                  const std::vector<handoff::StepTimeComparison>& steps,
                                                  const std::vector<handoff::BusbwComparison>& collectives);

}  // namespace clustersim::tools
