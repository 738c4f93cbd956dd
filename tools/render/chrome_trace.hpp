#pragma once
/// A simulated step as Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing open.
/// - One process per pipeline stage, named for the ranks it stands for ("stage 1: ranks 64-127
///   (TP 8 x CP 1 x DP 8)"); in it one track (thread) per stream: compute, tp comm, ep comm,
///   cp comm, pp send, dp comm.
/// - One complete ("X") event per task of the step builder: a pass's compute, its collectives, a
///   pipeline send, a gradient bucket. A collective the flow fidelity lowered to many flows is one
///   event from its start task's start to its end task's finish, on the track of its stage and
///   stream (step_trace_record.hpp says which tasks make it).
/// - No two events on one track overlap: Perfetto's JSON importer drops an event that overlaps
///   another without nesting in it. Streams whose events run at the same time (gradient buckets
///   sharing a port, a forward and a backward send) get lanes, tracks named "dp comm lane 0",
///   "dp comm lane 1", ..., filled greedily: an event takes the first lane free at its start.
/// - A flow arrow (ph "s" -> "f", bound to the enclosing slices) from each pipeline send to the
///   compute (or ZeRO-3 gather) on the neighbouring stage that waits for it.
/// - Names: "F mb3 c1 L20-39" is the forward of micro-batch 3, chunk 1 of its stage, model layers
///   20 to 39 (0-based, inclusive); "B ..." the backward; a communication task adds what it is
///   ("F mb3 c1 L20-39 tp comm", "... send to stage 2"). The last backward of a chunk runs in
///   pieces, one per gradient bucket ("B mb127 c0 L19-19 piece 1/20"), and bucket i of B
///   ("dp reduce-scatter c0 bucket 1/20 L19-19") reduces the layers its piece computed: buckets
///   are numbered from 1 in release order, bucket 1 holding the chunk's last layers, bucket i of a
///   chunk of L layers its local layers [floor(L (B - i) / B), floor(L (B - i + 1) / B)).
/// Times: "ts" and "dur" are microseconds with the engine's integer nanoseconds as three decimals
/// (k / 1000 as the nearest double, which prints as those digits), so an importer that rounds
/// value x 1000 gets the simulated nanoseconds back exactly.

#include <string>

#include "models/step/step_builder.hpp"
#include "sim/timeline.hpp"

namespace clustersim::tools {

std::string chrome_trace_json(const models::StepGraph& step, const sim::Timeline& timeline);

}  // namespace clustersim::tools
