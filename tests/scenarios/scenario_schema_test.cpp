#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/scenario_io.hpp"
#include "scenarios/scenario_schema.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::scenarios {
namespace {

// Every leaf of a JSON document, as JSON pointers.
void collect_leaves(const nlohmann::json& node, const std::string& pointer,
                    std::set<std::string>& leaves) {
  if (!node.is_object()) {
    leaves.insert(pointer);
    return;
  }
  for (const auto& [key, value] : node.items()) collect_leaves(value, pointer + "/" + key, leaves);
}

TEST_CASE("schema: explain documents exactly the keys the normalised JSON writes") {
  // The writer and explain both walk the schema table; this keeps them from drifting if
  // either ever grows a special case.
  // A preset's fields are written where they differ from it, so the model and GPU are written once
  // by preset (the "preset" keys) and once without (every field).
  std::set<std::string> written;
  collect_leaves(nlohmann::json::parse(to_json(default_scenario())), "", written);
  Scenario custom = default_scenario();
  custom.model.name = "custom";
  custom.cluster.gpu.name = "custom";
  collect_leaves(nlohmann::json::parse(to_json(custom)), "", written);
  std::set<std::string> documented;
  for (const auto& key : explain_keys()) {
    if (key.type != "string|object") documented.insert(key.pointer);
  }
  CHECK(written == documented);
  for (const auto& key : explain_keys()) {
    CAPTURE(key.pointer);
    CHECK(!key.meaning.empty());
    CHECK(!key.default_text.empty());
  }
}

TEST_CASE("schema: unit conversion round-trips exactly") {
  // 3.35 TB/s is not exactly representable; to_unit must still give back a value that maps to
  // the same SI number, or a normalised scenario would not reload identically.
  const Unit tb_per_s{.symbol = "TB/s", .mul = 1e12};
  const Unit microseconds{.symbol = "us", .div = 1e6};
  for (const double written : {3.35, 2.039, 0.1, 1e-9, 123456.789}) {
    CHECK(from_unit(to_unit(from_unit(written, tb_per_s), tb_per_s), tb_per_s) ==
          from_unit(written, tb_per_s));
    CHECK(from_unit(to_unit(from_unit(written, microseconds), microseconds), microseconds) ==
          from_unit(written, microseconds));
  }
  CHECK(to_unit(5e-6, microseconds) == 5.0);
  CHECK(from_unit(400, Unit{.symbol = "Gbit/s", .mul = 1e9 / 8}) == 50e9);
}

TEST_CASE("validation: scenarios built in code are checked by the same rules") {
  Scenario s = default_scenario();
  CHECK_FALSE(find_violation(s));
  s.parallelism.tp = 0;
  const auto violation = find_violation(s);
  REQUIRE(violation);
  CHECK(violation->pointer == "/parallelism/tp");
  CHECK(violation->rule == "must be an integer in 1..1048576, got 0");

  s = default_scenario();
  s.cluster.gpu.fp8_flops_per_s = 0;
  s.training.precision = models::Precision::fp8;
  REQUIRE(find_violation(s));
  CHECK(find_violation(s)->pointer == "/training/precision");
}

}  // namespace
}  // namespace clustersim::scenarios

namespace clustersim::scenarios {

TEST_CASE("schema: a range reads as its bounds say, exclusive ends included") {
  CHECK(Bounds{.min = 1, .max = 1 << 20}.text(true) == "1..1048576");
  CHECK(Bounds{.min = 0, .min_exclusive = true, .max = 24}.text(false) == "(0, 24]");
  CHECK(Bounds{.min = 1, .max = 2e5, .or_zero = true}.text(false) == "0 or [1, 200000]");
  CHECK(Bounds{.min = 0}.text(false) == ">= 0");
  CHECK(Bounds{}.text(false) == "any");
  const Bounds day{.min = 0, .min_exclusive = true, .max = 24};
  CHECK_FALSE(day.contains(0.0));
  CHECK(day.contains(24.0));
  CHECK_FALSE(day.contains(24.000001));
  const Bounds fp8{.min = 1, .max = 2e5, .or_zero = true};
  CHECK(fp8.contains(0.0));
  CHECK_FALSE(fp8.contains(0.5));
  CHECK(fp8.contains(1.0));

  const Field* hours = find_section("/cost")->find_field("hours_per_day");
  REQUIRE(hours);
  CHECK(hours->requirement() == "a number in (0, 24] h/day");
  const Field* fp8_tflops = find_section("/cluster/gpu")->find_field("fp8_tflops");
  REQUIRE(fp8_tflops);
  CHECK(fp8_tflops->requirement() == "0 or a number in [1, 200000] TFLOP/s");
  const Field* seed = find_section("/simulation")->find_field("seed");
  REQUIRE(seed);
  CHECK(seed->requirement() == "a non-negative integer");
}

TEST_CASE("schema: every numeric key but the seeds has a finite range, and the defaults lie in it") {
  const Scenario defaults = default_scenario();
  for (const auto& section : scenario_sections()) {
    for (const auto& field : section.fields) {
      if (field.type != ValueType::integer && field.type != ValueType::number) continue;
      CAPTURE(field.key);
      CHECK(std::isfinite(field.bounds.min));
      CHECK(std::isfinite(field.bounds.max));
      CHECK(field.accepts(field.get(defaults)));
    }
  }
}

}  // namespace clustersim::scenarios
