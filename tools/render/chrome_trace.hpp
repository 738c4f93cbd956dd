#pragma once
/// A simulated step as Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing open:
/// one process per pipeline stage, one track per stream (compute, NVLink, network), one complete
/// ("X") event per task, named by pass, micro-batch and kind.

#include <string>

#include "models/step/step_builder.hpp"
#include "sim/timeline.hpp"

namespace clustersim::tools {

std::string chrome_trace_json(const models::StepGraph& step, const sim::Timeline& timeline);

}  // namespace clustersim::tools
