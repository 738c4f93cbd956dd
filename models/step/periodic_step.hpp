#pragma once
/// A pipeline's steady state simulated once: the figures of a step of m micro-batches from the
/// event simulations of two short steps, of m1 and m1 + q micro-batches (q: the schedule's period,
/// 1 micro-batch under 1F1B, a group of pp under interleaving), where the repetition is proven
/// exact; a step with no such proof is simulated whole.
///
/// Why it is exact. The engine (sim/engine.hpp) is deterministic, and with integer time and a
/// sharing group's clock that starts over with each busy period, shifting every input by Δ shifts
/// every output by Δ. The check looks for an instant T of the short step's run and a shift Δ such
/// that the longer run's state at T + Δ is the shorter run's state at T moved by one period (ι:
/// the same task of micro-batch b + q):
/// - the tasks not yet finished are the images of those not finished, with the same work, resource
///   and kind, and among them the same dependencies;
/// - those already started started Δ later, and every resource busy at T is in a busy period whose
///   tasks so far are the images of the shorter run's, Δ later (so a group shares in the same
///   state);
/// - nothing has yet become ready that a longer step would lower differently (the drain, a last
///   micro-batch's gradient buckets, the optimizer): T comes before each stage's last pass that
///   both steps share.
/// A step of m1 + k q micro-batches has the same prefix up to T + Δ and from there evolves as the
/// step of m1 + (k - 1) q from T, Δ later; by induction its run is the longer short run up to
/// T + Δ, then k - 1 copies of what that run finished in (T, T + Δ], each Δ after the last, then
/// the rest of that run, (k - 1) Δ later. The figures (step_metrics.hpp) follow from those pieces.
/// The proof holds for graphs of the `analytic` fidelity: one resource a task, no rate caps or
/// latencies.

#include <optional>

#include "models/step/step_metrics.hpp"
#include "models/step/step_plan.hpp"

namespace clustersim::models {

/// The figures measure_step() gives for `plan`'s graph (analytic fidelity), bit for bit, or none
/// where the short runs do not prove the repetition (too few micro-batches, GPipe, a state that
/// does not repeat): simulate the whole step then.
std::optional<StepTimes> periodic_step_times(const StepPlan& plan);

}  // namespace clustersim::models
