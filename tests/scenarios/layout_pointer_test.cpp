#include "scenarios/layout_pointer.hpp"

#include <doctest/doctest.h>

#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios {
namespace {

TEST_CASE("layout pointer: every field the layout rules name is a key, or a section, of the scenario format") {
  using models::LayoutField;
  CHECK(json_pointer(LayoutField::parallelism_tp) == "/parallelism/tp");
  CHECK(json_pointer(LayoutField::parallelism) == "/parallelism");
  CHECK(json_pointer(LayoutField::cluster_failed_link_names) == "/cluster/failed_link_names");
  for (int i = 0; i <= static_cast<int>(LayoutField::cluster_failed_link_names); ++i) {
    const std::string pointer = json_pointer(static_cast<LayoutField>(i));
    CAPTURE(pointer);
    if (find_section(pointer) != nullptr) continue;
    const auto slash = pointer.rfind('/');
    const Section* section = find_section(pointer.substr(0, slash));
    REQUIRE(section != nullptr);
    CHECK(section->find_field(pointer.substr(slash + 1)) != nullptr);
  }
}

}  // namespace
}  // namespace clustersim::scenarios
