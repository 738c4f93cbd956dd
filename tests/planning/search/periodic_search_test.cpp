// A search's steps take the steady-state shortcut (models/step/periodic_step.hpp) wherever it is
// proven: on a sample of the layouts `sweep --search` simulates, the figures a search reports
// equal, bit for bit, those of simulating every task of the step.

#include <doctest/doctest.h>

#include "models/step/periodic_step.hpp"
#include "models/step/step_model.hpp"
#include "planning/search/layout_search.hpp"
#include "tests/models/step/step_fixtures.hpp"

namespace clustersim {

TEST_CASE("search: a sample of the 70B search's steps, shortcut or not, bit for bit the whole simulation's") {
  const models::StepInputs base = models::test::llama70b_on_256();
  std::vector<planning::LayoutCandidate> fitting;
  for (const planning::LayoutCandidate& c : planning::search_layouts(base))
    if (c.memory.fits) fitting.push_back(c);
  REQUIRE(fitting.size() > 10'000);
  int sampled = 0, proven = 0;
  for (std::size_t i = 0; i < fitting.size(); i += 331) {  // a prime stride: every kind of layout in turn
    const models::StepInputs in = planning::with_layout(base, fitting[i].layout);
    CAPTURE(i);
    const models::StepTimes searched = models::step_report(in).times;   // what a search reports
    const models::StepTimes whole = models::simulate_step(in).report.times;  // every task simulated
    ++sampled;
    proven += models::periodic_step_times(models::plan_step(in)).has_value() ? 1 : 0;
    CHECK(searched.step_time_s == whole.step_time_s);
    CHECK(searched.bubble_fraction == whole.bubble_fraction);
    CHECK(searched.exposed_comm_fraction == whole.exposed_comm_fraction);
    CHECK(searched.compute_fraction == whole.compute_fraction);
    REQUIRE(searched.stages.size() == whole.stages.size());
    for (std::size_t s = 0; s < whole.stages.size(); ++s) {
      CHECK(searched.stages[s].compute_s == whole.stages[s].compute_s);
      CHECK(searched.stages[s].exposed_comm_s == whole.stages[s].exposed_comm_s);
      CHECK(searched.stages[s].bubble_s == whole.stages[s].bubble_s);
      CHECK(searched.stages[s].tp_comm_s == whole.stages[s].tp_comm_s);
      CHECK(searched.stages[s].pp_comm_s == whole.stages[s].pp_comm_s);
      CHECK(searched.stages[s].dp_comm_s == whole.stages[s].dp_comm_s);
      CHECK(searched.stages[s].cp_comm_s == whole.stages[s].cp_comm_s);
    }
  }
  // Most of the sample took the shortcut, so the comparison above is not of two whole simulations.
  CHECK(sampled >= 100);
  CHECK(proven * 2 > sampled);
}

}  // namespace clustersim
