#pragma once
// Two StepTimes equal bit for bit, field by field, so that a failure names the field and stage.

#include <doctest/doctest.h>

#include "models/step/step_metrics.hpp"

namespace clustersim::models::test {

inline void check_same_step_times(const StepTimes& a, const StepTimes& b) {
  CHECK(a.step_time_s == b.step_time_s);
  CHECK(a.bubble_fraction == b.bubble_fraction);
  CHECK(a.exposed_comm_fraction == b.exposed_comm_fraction);
  CHECK(a.compute_fraction == b.compute_fraction);
  REQUIRE(a.stages.size() == b.stages.size());
  for (std::size_t s = 0; s < a.stages.size(); ++s) {
    CAPTURE(s);
    const StageTimes& x = a.stages[s];
    const StageTimes& y = b.stages[s];
    CHECK(x.compute_s == y.compute_s);
    CHECK(x.exposed_comm_s == y.exposed_comm_s);
    CHECK(x.bubble_s == y.bubble_s);
    CHECK(x.tp_comm_s == y.tp_comm_s);
    CHECK(x.pp_comm_s == y.pp_comm_s);
    CHECK(x.dp_comm_s == y.dp_comm_s);
    CHECK(x.cp_comm_s == y.cp_comm_s);
    CHECK(x.ep_comm_s == y.ep_comm_s);
  }
}

}  // namespace clustersim::models::test
