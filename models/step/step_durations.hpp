#pragma once
/// Whether one step's durations fit simulated time (sim/time.hpp: under 2^63 ns, 292 years).
/// Checked on the costed plan before it is lowered to a task graph, so that a duration the
/// engine cannot hold is an error naming the quantity (the forward pass of stage 0, the step's
/// work in all) and the scenario keys it follows from, not a wrapped, negative step time.
/// The step's work in all (every stage's passes, communication and optimizer, one after another)
/// bounds its length from above; a step whose work does not fit is refused even where the
/// pipeline's overlap would bring the step itself under the limit, since its events would not.
/// Units: seconds.

#include <stdexcept>
#include <string>

#include "models/step/step_model.hpp"

namespace clustersim::models {

/// A step whose durations do not fit simulated time; the message names the quantity and inputs.
class StepTimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws StepTimeError for the first duration of `plan` that is not finite or does not fit,
/// then for the step's work in all.
void check_step_durations(const StepPlan& plan, const StepInputs& in);

/// The scenario keys a step's durations follow from, with their values: "cluster.gpu.bf16_tflops
/// = 989 TFLOP/s, ...". `compute`: the GPU's peak and the model's shape; `communication`: the link
/// rates; both: everything, with the micro-batches a step runs.
std::string step_duration_inputs(const StepInputs& in, bool compute, bool communication);

}  // namespace clustersim::models
