// The shared option helpers of tools/command_line.hpp, called directly.

#include "tools/command_line.hpp"

#include <doctest/doctest.h>

namespace clustersim::tools {
namespace {

TEST_CASE("command line: a comma-separated list keeps its items in order and drops stray commas") {
  using List = std::vector<std::string>;
  CHECK(split_list("h100-sxm,a100-80gb") == List{"h100-sxm", "a100-80gb"});
  CHECK(split_list("30") == List{"30"});
  CHECK(split_list(",30,,60,") == List{"30", "60"});
  CHECK(split_list("").empty());
  CHECK(split_list(",").empty());
}

TEST_CASE("command line: a scenario is named by its file, or as the default scenario") {
  ScenarioArgs args;
  CHECK(args.source_name() == "default scenario");
  args.scenario_path = "scenarios/seed/twelve-layouts.json";
  CHECK(args.source_name() == "scenarios/seed/twelve-layouts.json");
}

}  // namespace
}  // namespace clustersim::tools
