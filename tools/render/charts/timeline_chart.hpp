#pragma once
/// The pipeline timeline of one step: a row per stage, its compute lane (forward, backward,
/// optimizer; micro-batch numbers where a box holds them; idle time, when the stage neither
/// computes nor communicates, hatched) over one thin lane per kind of communication the step has,
/// a time axis with its unit, and the step's end marked.
/// Communication pieces closer than a pixel are drawn as one (a pipeline's many small sends
/// would otherwise be sub-pixel slivers that no zoom shows), at least 2 px wide.

#include <cstdint>
#include <string>

#include "models/step/step_builder.hpp"
#include "sim/timeline.hpp"

namespace clustersim::tools::charts {

/// The timeline from 0 to `window_end_ns` (0: the whole step); data-chart "timeline", or
/// "timeline-warm-up" for a window.
std::string timeline_svg(const models::StepGraph& step, const sim::Timeline& timeline, std::int64_t window_end_ns = 0);
/// When the first stage finishes the backward of micro-batch pp + 3: a window wide enough to
/// show the warm-up and a few steady-state micro-batches with their numbers readable.
std::int64_t warm_up_end_ns(const models::StepGraph& step, const sim::Timeline& timeline);

}  // namespace clustersim::tools::charts
