#include <doctest/doctest.h>

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
  CHECK(violation->rule == "must be a positive integer, got 0");

  s = default_scenario();
  s.cluster.gpu.fp8_flops_per_s = 0;
  s.training.precision = models::Precision::fp8;
  REQUIRE(find_violation(s));
  CHECK(find_violation(s)->pointer == "/training/precision");
}

}  // namespace
}  // namespace clustersim::scenarios
