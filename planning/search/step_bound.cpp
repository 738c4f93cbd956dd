#include "planning/search/step_bound.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::planning {

namespace {

/// One pass of one chunk on its stage's compute stream, as build_step_graph chains it.
/// ZeRO-3's traffic beside the compute bounds it from below too: the next pass waits for it.
/// Without communication: the pass's compute alone.
double forward_stream_s(const models::ChunkCosts& c, bool comm) {
  if (!comm) return c.forward_s;
  return c.dp_before_forward_s + std::max(c.forward_s + c.tp_forward_s, c.dp_beside_forward_s);
}
double backward_stream_s(const models::ChunkCosts& c, bool comm) {
  if (!comm) return c.backward_s;
  return c.dp_before_backward_s + std::max(c.backward_s + c.tp_backward_s + c.dp_after_backward_s, c.dp_beside_backward_s);
}

}  // namespace

double step_time_lower_bound_s(const models::StepPlan& plan, models::CommFidelity fidelity) {
  const bool comm = fidelity == models::CommFidelity::analytic;
  const auto m = static_cast<double>(plan.micro_batches);
  const std::size_t pp = plan.stages.size();
  double bound = 0.0;
  double fill = 0.0;   // micro-batch 0's forward through the stages before s, sends included
  double drain = 0.0;  // the last micro-batch's backward from s down to stage 0, sends included
  for (std::size_t s = 0; s < pp; ++s) {
    const models::StagePlan& stage = plan.stages[s];
    // Deferred micro-batches leave the output layer's weight gradients to the stage's drain.
    const auto deferred = static_cast<double>(plan.deferred_wgrad_micro_batches);
    double stream = 0.0;
    for (const models::ChunkCosts& c : stage.chunks)
      stream += m * (forward_stream_s(c, comm) + backward_stream_s(c, comm)) - deferred * c.backward_deferred_s;
    // Every stage: its own passes (and deferred weight gradients), then its optimizer step. Stage
    // s > 0: the fill, its passes, the drain back to stage 0, then stage 0's optimizer step.
    bound = std::max(bound, stream + stage.deferred_wgrad_s + stage.optimizer_s);
    if (s > 0) bound = std::max(bound, fill + stream + drain + plan.stages[0].optimizer_s);
    const models::ChunkCosts& first = stage.chunks.front();
    fill += forward_stream_s(first, comm) + (comm ? stage.send_forward_s : 0.0);
    if (s + 1 < pp) drain += backward_stream_s(first, comm) + (comm ? plan.stages[s + 1].send_backward_s : 0.0);
  }
  return bound;
}

void check_bound_holds(double bound_s, double simulated_s, std::string_view layout) {
  if (simulated_s < bound_s * (1.0 - 1e-9))
    throw std::logic_error(
        fmt::format("step-time lower bound {} s exceeds the simulated {} s for {}", bound_s, simulated_s, layout));
}

}  // namespace clustersim::planning
