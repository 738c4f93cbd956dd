#include "planning/plan/sizing.hpp"

#include <doctest/doctest.h>

namespace clustersim::models {
namespace {

TEST_CASE("sizing: node counts are powers of two and one and a half times them") {
  CHECK(planning::candidate_node_counts(1, 16) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16});
  CHECK(planning::candidate_node_counts(5, 40) == std::vector<std::int64_t>{6, 8, 12, 16, 24, 32});
  CHECK(planning::candidate_node_counts(7, 7).empty());
}

TEST_CASE("sizing: the Pareto front keeps the options no other beats on both time and cost") {
  // (days, $): A (10, 100) and B (20, 50) trade off; C (15, 120) is beaten by A on both; D (30, 50)
  // ties B on cost and is slower; E repeats A exactly, so only the first of the two is kept.
  const std::vector<planning::PlanPoint> points{{10, 100}, {20, 50}, {15, 120}, {30, 50}, {10, 100}};
  CHECK(planning::pareto_front(points) == std::vector<bool>{true, true, false, false, false});
}

TEST_CASE("sizing: the choice is the cheapest within the deadline, or the fastest within the budget") {
  const std::vector<planning::PlanPoint> points{{10, 100}, {20, 50}, {40, 30}};
  // Deadline 25 days: A and B qualify, B is cheaper.
  CHECK(planning::choose_option(points, 25, 0) == std::optional<std::size_t>{1});
  // Deadline 25 days and $40: nothing qualifies.
  CHECK_FALSE(planning::choose_option(points, 25, 40).has_value());
  // Budget $60 alone: B and C qualify, B is faster.
  CHECK(planning::choose_option(points, 0, 60) == std::optional<std::size_t>{1});
  // Neither: the cheapest.
  CHECK(planning::choose_option(points, 0, 0) == std::optional<std::size_t>{2});
  // A deadline nobody meets.
  CHECK_FALSE(planning::choose_option(points, 5, 0).has_value());
}

TEST_CASE("sizing: default prices name their source for the GPUs a plan searches") {
  for (const auto gpu : {"a100-80gb", "h100-sxm", "h200-sxm", "b200", "gb200", "gb300"}) {
    CAPTURE(gpu);
    const auto rent = planning::default_rent_usd_per_gpu_hour(gpu);
    CHECK(rent.usd > 0);
    CHECK(!rent.source.empty());
    CHECK(planning::default_node_power_w(gpu).usd > 0);
  }
  CHECK(planning::default_rent_usd_per_gpu_hour("nonexistent").usd == 0);
  // The derived H200 and B200 prices scale the H100's by the server price ratios they cite.
  CHECK(planning::default_rent_usd_per_gpu_hour("h200-sxm").usd == doctest::Approx(2.99 * 39.1 / 31.9).epsilon(0.002));
  CHECK(planning::default_rent_usd_per_gpu_hour("b200").usd == doctest::Approx(2.99 * 47.4 / 31.9).epsilon(0.002));
  CHECK(planning::default_rent_usd_per_gpu_hour("gb300").usd == doctest::Approx(2.99 * 48.6 / 31.9).epsilon(0.002));
}

}  // namespace
}  // namespace clustersim::models
