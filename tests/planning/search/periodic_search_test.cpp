// A search's steps take the steady-state shortcut (models/step/periodic_step.hpp) wherever it is
// proven: on a sample of the layouts `sweep --search` simulates, the figures a search reports
// equal, bit for bit, those of simulating every task of the step.

#include <doctest/doctest.h>

#include "models/step/periodic_step.hpp"
#include "models/step/step_model.hpp"
#include "planning/search/layout_search.hpp"
#include "tests/models/step/same_step_times.hpp"
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
    models::test::check_same_step_times(searched, whole);
  }
  // Most of the sample took the shortcut, so the comparison above is not of two whole simulations.
  CHECK(sampled >= 100);
  CHECK(proven * 2 > sampled);
}

}  // namespace clustersim
