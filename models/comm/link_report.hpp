#pragma once
/// Which network links a simulated step (flow fidelity) loaded most: bytes carried, average
/// utilisation (bytes / (capacity x step time), capacity with efficiency), time busy, and which
/// kinds of communication crossed them. Units: bytes, fractions of the step.

#include <cstddef>
#include <string>
#include <vector>

#include "models/step/step_builder.hpp"
#include "models/step/step_labels.hpp"
#include "sim/timeline.hpp"

namespace clustersim::models {

struct LinkLoad {
  std::string name;  // "from->to"
  double bytes = 0.0;
  double utilisation = 0.0;
  double busy_fraction = 0.0;
  std::vector<TaskKind> kinds;  // communication kinds whose flows crossed it, in TaskKind order
};

/// The `count` most utilised links, most first (ties by link order), leaving out links that
/// carried nothing; empty for a step without network links (analytic fidelity).
std::vector<LinkLoad> busiest_links(const StepGraph& step, const sim::Timeline& timeline, std::size_t count);

}  // namespace clustersim::models
