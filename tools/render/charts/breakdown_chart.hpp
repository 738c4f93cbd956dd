#pragma once
/// The step-time breakdown: compute, exposed communication and pipeline bubble of the step (the
/// stages' mean) and of each stage, in seconds on a time axis, each bar's parts written beside it
/// in seconds and percent of the step.
/// And memory per GPU: each stage's bytes by part (weights, gradients, optimizer state,
/// activations, other tensors, runtime) against the GPU's usable HBM.

#include <string>
#include <vector>

#include "models/step/step_model.hpp"

namespace clustersim::tools::charts {

/// data-chart "breakdown" (or `chart`: the sweep shows several side by side).
std::string breakdown_svg(const models::StepReport& report, std::string chart = "breakdown");

/// The breakdown of a few layouts in one chart, a bar per layout (data-chart
/// "breakdown-compare"): `names[i]` labels `step_s[i]` split by the fractions.
struct BreakdownBar {
  std::string name;
  double step_s = 0.0;
  double exposed_comm_fraction = 0.0;
  double bubble_fraction = 0.0;
};
std::string breakdown_compare_svg(const std::vector<BreakdownBar>& bars);

/// data-chart "memory"; `usable_hbm_bytes` is drawn as a line (0: left out).
std::string memory_svg(const models::StepReport& report, double usable_hbm_bytes);

}  // namespace clustersim::tools::charts
