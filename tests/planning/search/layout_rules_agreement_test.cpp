// Scenario validation, the step planner (check_layout) and the layout search ask one function
// (models::layout_violation) whether a layout is valid; they must agree on which, and name the
// same field for each rejected one.

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "calibration/step_inputs.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/step/step_model.hpp"
#include "planning/search/layout_search.hpp"
#include "scenarios/layout_pointer.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::planning {
namespace {

using LayoutKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool,
                             models::Schedule>;
LayoutKey key_of(const models::ParallelismSpec& p, const models::TrainingSpec& t) {
  return {p.tp, p.pp, p.dp, p.cp, p.vp, t.micro_batch, p.sp, t.schedule};
}

TEST_CASE("layout rules: scenario validation, check_layout and the search agree") {
  // Llama 3 70B (64 heads, 8 key/value heads, 80 layers) on 256 H100, 1024 x 4096 tokens a step.
  const scenarios::Scenario base = scenarios::default_scenario();
  REQUIRE(base.model.kv_heads == 8);
  const models::StepInputs inputs = calibration::step_inputs(base);
  const SearchSpace space{.recompute = {models::Recompute::selective}, .zero = {1}};
  std::set<LayoutKey> searched;
  for (const LayoutCandidate& c : search_layouts(inputs, space)) {
    const auto& p = c.layout.parallelism;
    const auto& t = c.layout.training;
    CAPTURE(p.tp);
    CAPTURE(p.pp);
    CAPTURE(p.vp);
    CHECK_FALSE(models::layout_violation(inputs.model, p, t, inputs.cluster).has_value());
    searched.insert(key_of(p, t));
  }
  // tp = 16 on 8 key/value heads: a layout only since kv_heads and tp may divide either way.
  CHECK(searched.contains(key_of({.tp = 16, .pp = 4, .dp = 4, .cp = 1, .vp = 1, .sp = true, .zero = 1},
                                 {.micro_batch = 1, .schedule = models::Schedule::one_f_one_b})));

  int accepted = 0, rejected = 0;
  for (const std::int64_t tp : {1, 2, 6, 8, 16, 32, 64, 128})
    for (const std::int64_t pp : {1, 2, 4, 16, 128})
      for (const std::int64_t cp : {1, 2})
        for (const std::int64_t dp_offset : {0, 1})
          for (const std::int64_t vp : {1, 2, 3})
            for (const std::int64_t micro_batch : {1, 3, 4})
              for (const bool sp : {false, true})
                for (const auto schedule : {models::Schedule::one_f_one_b, models::Schedule::interleaved}) {
                  scenarios::Scenario s = base;
                  const std::int64_t model_parallel = tp * pp * cp;
                  const std::int64_t dp = std::max<std::int64_t>(1, 256 / model_parallel) + dp_offset;
                  s.parallelism = {.tp = tp, .pp = pp, .dp = dp, .cp = cp, .vp = vp, .sp = sp, .zero = 1};
                  s.training.micro_batch = micro_batch;
                  s.training.schedule = schedule;
                  CAPTURE(tp);
                  CAPTURE(pp);
                  CAPTURE(cp);
                  CAPTURE(s.parallelism.dp);
                  CAPTURE(vp);
                  CAPTURE(micro_batch);
                  CAPTURE(sp);
                  const auto violation = models::layout_violation(s.model, s.parallelism, s.training, s.cluster);
                  const auto scenario_violation = scenarios::find_violation(s);
                  models::StepInputs in = inputs;
                  in.parallelism = s.parallelism;
                  in.training = s.training;
                  if (!violation) {
                    ++accepted;
                    CHECK_FALSE(scenario_violation.has_value());
                    CHECK_NOTHROW(models::check_layout(in));
                    // In the search's space (interleaving with pp >= 2 in whole-layer chunks), the
                    // search lists it.
                    if (vp == 1 || (pp >= 2 && s.model.layers % (pp * vp) == 0))
                      CHECK(searched.contains(key_of(s.parallelism, s.training)));
                    continue;
                  }
                  ++rejected;
                  CHECK_FALSE(searched.contains(key_of(s.parallelism, s.training)));
                  REQUIRE(scenario_violation.has_value());
                  CHECK(scenario_violation->pointer == scenarios::json_pointer(violation->field));
                  CHECK(scenario_violation->rule == violation->rule);
                  try {
                    models::check_layout(in);
                    FAIL("check_layout accepted a rejected layout");
                  } catch (const models::LayoutError& error) {
                    CHECK(error.field() == violation->field);
                    CHECK(error.rule() == violation->rule);
                  }
                }
  // Both kinds are many: the set reaches every rule's accept and reject side.
  CHECK(accepted > 100);
  CHECK(rejected > 1000);
}

}  // namespace
}  // namespace clustersim::planning
