// `plan --shard I/N` and `merge` of its shards (tools/plan_shards.hpp): the merged plan prints,
// byte for byte, what the unsharded plan prints, and every shard set that is not one whole plan
// is refused with the file and the reason.

#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

// Two GPU types at two sizes and two topologies: four clusters, eight options.
constexpr const char* kShardedPlan =
    "plan --deadline-days 40 --gpus a100-80gb,b200 --min-gpus 16 --max-gpus 24 "
    "--topologies rail_optimized,fat_tree --flow-check 1 --quiet";

// Writes shard I/N of kShardedPlan (with `extra` arguments) to DIR/NAME-I.json; returns its path.
std::string write_plan_shard(const TempDir& dir, std::size_t i, std::size_t n, const std::string& extra = "",
                        const std::string& name = "shard") {
  const Outcome shard = run_clustersim(std::string(kShardedPlan) + extra + " --shard " + std::to_string(i) + "/" +
                                       std::to_string(n));
  CAPTURE(shard.err);
  REQUIRE(shard.exit_code == 0);
  const std::string path = dir / (name + "-" + std::to_string(i) + ".json");
  std::ofstream(path) << shard.out;
  return path;
}

TEST_CASE("plan --shard: merged shards print exactly what one plan prints, in any order") {
  const TempDir dir;
  const std::string a = write_plan_shard(dir, 1, 3), b = write_plan_shard(dir, 2, 3), c = write_plan_shard(dir, 3, 3);
  // Each shard holds every third cluster, by index.
  std::size_t clusters = 0;
  for (std::size_t i = 1; i <= 3; ++i) {
    const auto document = nlohmann::json::parse(read_text(dir / ("shard-" + std::to_string(i) + ".json")));
    for (const auto& entry : document.at("clusters")) {
      CHECK(entry.at("cluster").get<std::size_t>() % 3 == i - 1);
      ++clusters;
    }
  }
  CHECK(clusters == 4);

  const Outcome whole = run_clustersim(std::string(kShardedPlan) + " --report " + (dir / "whole.html") + " --csv " +
                                       (dir / "whole.csv"));
  REQUIRE(whole.exit_code == 0);
  const Outcome merged = run_clustersim("merge " + c + " " + a + " " + b + " --report " + (dir / "merged.html") +
                                        " --csv " + (dir / "merged.csv"));
  CAPTURE(merged.err);
  REQUIRE(merged.exit_code == 0);
  CHECK(merged.out == whole.out);
  CHECK(read_text(dir / "merged.html") == read_text(dir / "whole.html"));
  CHECK(read_text(dir / "merged.csv") == read_text(dir / "whole.csv"));
  const Outcome whole_json = run_clustersim(std::string(kShardedPlan) + " --json");
  const Outcome merged_json = run_clustersim("merge " + a + " " + b + " " + c + " --json");
  REQUIRE(merged_json.exit_code == 0);
  CHECK(merged_json.out == whole_json.out);
  // One shard of one: the whole plan's clusters in one document.
  const std::string only = write_plan_shard(dir, 1, 1, "", "only");
  CHECK(run_clustersim("merge " + only).out == whole.out);
}

TEST_CASE("plan --shard: merge refuses shards that are not one whole plan, naming the file") {
  const TempDir dir;
  const std::string a = write_plan_shard(dir, 1, 2), b = write_plan_shard(dir, 2, 2);
  check_fails_cleanly(run_clustersim("merge " + a), "missing plan shard 2/2");
  check_fails_cleanly(run_clustersim("merge " + a + " " + a + " " + b), "shard 1/2 is given twice");
  const std::string other = write_plan_shard(dir, 2, 2, " --oversubscription 4", "other");
  check_fails_cleanly(run_clustersim("merge " + a + " " + other), "comes from another plan");
  const std::string three = write_plan_shard(dir, 2, 3, "", "three");
  check_fails_cleanly(run_clustersim("merge " + a + " " + three), "is one of 3 shards");
  check_fails_cleanly(run_clustersim("merge " + a + " " + b + " --top 3"), "--top ranks a sweep's rows");
  check_fails_cleanly(run_clustersim(std::string(kShardedPlan) + " --shard 1/2 --csv " + (dir / "x.csv")),
                      "--report and --csv need the whole plan");
  // A shard whose layouts were edited away from the plan's.
  auto edited = nlohmann::json::parse(read_text(b));
  edited["clusters"][0]["best"][0]["layout"] = 100000;
  std::ofstream(dir / "edited.json") << edited.dump();
  check_fails_cleanly(run_clustersim("merge " + a + " " + (dir / "edited.json")), "has no layout 100000");
}

}  // namespace
}  // namespace clustersim::test
