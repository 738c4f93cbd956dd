#pragma once
/// A lower bound on the simulated step time of a models::StepPlan, from the plan alone (no task graph, no
/// engine): what a search needs to set aside layouts that provably cannot rank among its best.
/// Why it holds: build_step_graph chains each stage's passes (compute, then tensor-parallel and
/// blocking data-parallel traffic) one after another on a compute engine of capacity 1, and no
/// task runs faster than alone on its resources. So any chain of dependent tasks takes at least
/// the sum of their solo durations: stage s's first forward waits for micro-batch 0's forward on
/// every earlier stage (and the sends between them); stage s's last backward (chunk 0 of the last
/// micro-batch, in GPipe, 1F1B and interleaved order alike) is followed by that micro-batch's
/// backward on every earlier stage, then stage 0's optimizer step.
/// Limitations: ignores contention, overlap traffic and the data-parallel reduction, so it is a
/// bound, not an estimate. With the communication counted it holds for the analytic fidelity only:
/// the flow fidelity lowers the same communication to flows whose durations the plan's seconds do
/// not bound. Its compute tasks are the analytic fidelity's (the same seconds, interference
/// included, on the same stream), so the bound of compute alone holds for both.

#include <string_view>

#include "models/step/step_model.hpp"
#include "models/step/step_plan.hpp"

namespace clustersim::planning {

/// Seconds the step takes at least; never more than simulate_step's step_time_s (up to the
/// nanosecond rounding of the engine, which only lengthens tasks) under `fidelity`: with the flow
/// fidelity, the chain of compute alone (passes and optimizer steps).
double step_time_lower_bound_s(const models::StepPlan& plan,
                               models::CommFidelity fidelity = models::CommFidelity::analytic);

/// Whether a layout whose bound (times its band's slow factor) is `bound_s` provably ranks after a
/// simulated slow end `kept_s`, so that a search or a plan may set it aside. The margin covers the
/// rounding of the bound's sum; ties are not excluded, since they rank by enumeration order.
inline bool bound_excludes(double bound_s, double kept_s) { return bound_s * (1.0 - 1e-9) > kept_s; }

/// Throws std::logic_error when a simulated step beats its lower bound, which would make setting
/// layouts aside wrong: better to fail loudly than to rank silently. `layout` names it.
void check_bound_holds(double bound_s, double simulated_s, std::string_view layout);

}  // namespace clustersim::planning
