#pragma once
/// What one simulated step shows, by the definitions of DESIGN.md (written once, here):
/// - bubble: time a stage's compute engine idles while none of its communication runs either
///   (it waits on pipeline dependencies), over the step time;
/// - exposed communication: time the stage's communication runs while its compute engine idles;
/// - compute: time its compute engine is busy. The three add up to 1 per stage; the step-level
///   figures are averages over stages;
/// - TP / PP / DP / CP communication of a stage: the union of the intervals in which that kind of
///   communication ran (concurrent buckets, gathers and flows counted once), overlapped or not.
/// MFU and HFU divide model and hardware FLOPs (models/compute/flops.hpp) by step time x GPUs x dense peak.

#include <cstdint>
#include <vector>

#include "models/step/step_builder.hpp"
#include "sim/timeline.hpp"

namespace clustersim::models {

struct StageTimes {
  double compute_s = 0.0;
  double exposed_comm_s = 0.0;
  double bubble_s = 0.0;
  double tp_comm_s = 0.0;       // time each kind ran, union of its intervals (may overlap compute)
  double pp_comm_s = 0.0;
  double dp_comm_s = 0.0;
  double cp_comm_s = 0.0;
  double ep_comm_s = 0.0;
};

struct StepTimes {
  double step_time_s = 0.0;
  double bubble_fraction = 0.0;
  double exposed_comm_fraction = 0.0;
  double compute_fraction = 0.0;
  std::vector<StageTimes> stages;
};

StepTimes measure_step(const StepGraph& step, const sim::Timeline& timeline);

}  // namespace clustersim::models
