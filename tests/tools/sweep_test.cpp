// `clustersim sweep` and `clustersim merge` through the built binary.

#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

constexpr const char* kTwelve = "scenarios/seed/twelve-layouts.json";
// A search small enough for a unit test: Llama 3 8B on 2 nodes of 8 H100, 16 sequences a step.
constexpr const char* kSmallSearch =
    "sweep --search --quiet --set model.preset=llama3-8b --set cluster.num_gpus=16 --set parallelism.tp=8 "
    "--set parallelism.pp=2 --set parallelism.dp=1 --set training.seq_len=2048 --set training.global_batch=16";

TEST_CASE("sweep: the twelve seed layouts, ranked, one row each") {
  const Outcome outcome = run_clustersim(std::string("sweep ") + kTwelve + " --json");
  REQUIRE(outcome.exit_code == 0);
  const auto j = nlohmann::json::parse(outcome.out);  // exactly one JSON object (throws otherwise)
  REQUIRE(j.is_object());
  const auto& rows = j.at("rows");
  REQUIRE(rows.size() == 12);
  CHECK(j.at("counts").at("layouts") == 12);
  // Fitting rows first, by the slow end of their band; then the rows that do not fit.
  bool seen_misfit = false;
  double previous = 0.0;
  for (const auto& row : rows) {
    CAPTURE(row.dump());
    CHECK(row.at("status") == "simulated");
    if (!row.at("fits").get<bool>()) {
      seen_misfit = true;
      CHECK(row.at("reason").get<std::string>().starts_with("needs "));
      continue;
    }
    CHECK_FALSE(seen_misfit);
    const auto& band = row.at("step_time_band_s");
    CHECK(band.at(0).get<double>() <= row.at("step_time_s").get<double>());
    CHECK(band.at(1).get<double>() >= row.at("step_time_s").get<double>());
    CHECK(band.at(1).get<double>() >= previous);
    previous = band.at(1).get<double>();
  }
  // The text form shows every config by name.
  const Outcome text = run_clustersim(std::string("sweep ") + kTwelve);
  REQUIRE(text.exit_code == 0);
  for (const auto& row : rows) CHECK(text.out.find(row.at("name").get<std::string>()) != std::string::npos);
}

TEST_CASE("sweep: a row's figures are those clustersim run prints for the same layout") {
  // Independent path: `run` with the layout set by --set on the seed scenario.
  const Outcome sweep = run_clustersim(std::string("sweep ") + kTwelve + " --json");
  REQUIRE(sweep.exit_code == 0);
  const Outcome run = run_clustersim(std::string("run ") + kTwelve +
                                     " --json --set parallelism.tp=4 --set parallelism.pp=8 --set parallelism.dp=8");
  REQUIRE(run.exit_code == 0);
  const auto r = nlohmann::json::parse(run.out);
  bool found = false;
  const auto rows = nlohmann::json::parse(sweep.out).at("rows");
  for (const auto& row : rows) {
    if (row.at("name") != "TP4 PP8 DP8") continue;
    found = true;
    CHECK(row.at("step_time_s").get<double>() == r.at("step_time_s").get<double>());
    CHECK(row.at("mfu").get<double>() == r.at("mfu").get<double>());
    CHECK(row.at("bubble_fraction").get<double>() == r.at("bubble_fraction").get<double>());
    CHECK(row.at("memory_gib").get<double>() == r.at("memory_per_gpu_gib").get<double>());
    CHECK(row.at("fits").get<bool>() == r.at("fits_in_memory").get<bool>());
  }
  CHECK(found);
}

TEST_CASE("sweep: an impossible config becomes an invalid row that says why, ranked last") {
  const TempDir dir;
  const std::string configs = dir / "configs.json";
  std::ofstream(configs) << R"({"configs": [{"name": "six", "parallelism": {"tp": 6}},
                                            {"name": "tp4", "parallelism": {"tp": 4}}]})";
  const Outcome outcome = run_clustersim(std::string("sweep ") + kTwelve + " --json --configs " + configs);
  REQUIRE(outcome.exit_code == 0);
  const auto rows = nlohmann::json::parse(outcome.out).at("rows");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("name") == "tp4");
  CHECK(rows[1].at("status") == "invalid");
  // tp = 6 leaves 256 GPUs / (6 x 4 stages) without a whole dp, but first it splits no head evenly:
  // the rule checked before the GPU count's names the cause.
  CHECK(rows[1].at("reason") == "/parallelism/tp: 6 does not divide heads=64");
}

TEST_CASE("sweep: the output does not depend on the thread count") {
  const Outcome one = run_clustersim(std::string(kSmallSearch) + " --jobs 1 --json --top 0");
  const Outcome three = run_clustersim(std::string(kSmallSearch) + " --jobs 3 --json --top 0");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out == three.out);
}

TEST_CASE("sweep: --whole-steps simulates every pass and prints the same rows, bit for bit") {
  // The default search takes each long step's figures from its steady state, simulated once where
  // the repetition is proven (models/step/periodic_step.hpp); --whole-steps simulates every pass.
  // Llama 3 8B on 16 H100, 128 sequences: thousands of layouts, many of 8-128 micro-batches.
  const std::string search =
      "sweep --search --json --top 0 --set model.preset=llama3-8b --set cluster.num_gpus=16 "
      "--set training.global_batch=128";
  const Outcome shortcut = run_clustersim(search);
  const Outcome whole = run_clustersim(search + " --whole-steps");
  REQUIRE(shortcut.exit_code == 0);
  REQUIRE(whole.exit_code == 0);
  CHECK(nlohmann::json::parse(shortcut.out).at("counts").at("fit").get<int>() > 1000);
  CHECK(shortcut.out == whole.out);
}

TEST_CASE("sweep: a search that sets layouts aside by their step-time bound ranks its top rows exactly") {
  // --top N lets the search skip layouts whose lower bound exceeds the N-th best time found: the N
  // rows shown, and the counts, must be those of the search that simulates every layout.
  const Outcome full = run_clustersim(std::string(kSmallSearch) + " --json --top 0");
  const Outcome top = run_clustersim(std::string(kSmallSearch) + " --json --top 3");
  REQUIRE(full.exit_code == 0);
  REQUIRE(top.exit_code == 0);
  const auto all = nlohmann::json::parse(full.out);
  const auto best = nlohmann::json::parse(top.out);
  CHECK(best.at("counts") == all.at("counts"));
  REQUIRE(best.at("rows").size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(best.at("rows")[i] == all.at("rows")[i]);
}

TEST_CASE("sweep: merged shards print exactly what one run prints") {
  const TempDir dir;
  const Outcome whole = run_clustersim(std::string(kSmallSearch) + " --csv " + (dir / "whole.csv"));
  const Outcome whole_json = run_clustersim(std::string(kSmallSearch) + " --json");
  REQUIRE(whole.exit_code == 0);
  REQUIRE(whole_json.exit_code == 0);
  std::string shards;
  for (int i = 1; i <= 3; ++i) {
    const std::string file = dir / ("shard" + std::to_string(i) + ".json");
    const Outcome shard = run_clustersim(std::string(kSmallSearch) + " --shard " + std::to_string(i) + "/3");
    REQUIRE(shard.exit_code == 0);
    std::ofstream(file) << shard.out;
    shards += " " + file;
  }
  const Outcome merged = run_clustersim("merge" + shards + " --csv " + (dir / "merged.csv"));
  REQUIRE(merged.exit_code == 0);
  CHECK(merged.out == whole.out);
  CHECK(read_text(dir / "merged.csv") == read_text(dir / "whole.csv"));
  const Outcome merged_json = run_clustersim("merge" + shards + " --json");
  CHECK(merged_json.out == whole_json.out);
  // The shards split the layouts between them: together they hold each once.
  std::size_t rows = 0;
  for (int i = 1; i <= 3; ++i) {
    rows += nlohmann::json::parse(read_text(dir / ("shard" + std::to_string(i) + ".json"))).at("rows").size();
  }
  CHECK(rows == nlohmann::json::parse(whole_json.out).at("counts").at("layouts").get<std::size_t>());

  // Missing and repeated shards are errors.
  check_fails_cleanly(run_clustersim("merge " + (dir / "shard1.json") + " " + (dir / "shard2.json")),
                      "missing shard 3/3");
  check_fails_cleanly(run_clustersim("merge " + (dir / "shard1.json") + " " + (dir / "shard1.json")),
                      "shard 1/3 is given twice");
}

TEST_CASE("sweep: the search sets apart layouts that cannot fit and names what fills the memory") {
  // Llama 3 8B on one node of 8: 1,938 layouts, 84 of them too large.
  const Outcome outcome = run_clustersim(
      "sweep --search --quiet --set model.preset=llama3-8b --set cluster.num_gpus=8 --set parallelism.tp=8 "
      "--set parallelism.pp=1 --set parallelism.dp=1 --set training.seq_len=2048 --set training.global_batch=8 "
      "--json --top 0");
  REQUIRE(outcome.exit_code == 0);
  const auto j = nlohmann::json::parse(outcome.out);
  const auto& counts = j.at("counts");
  CHECK(counts.at("too_large").get<int>() > 0);
  CHECK(counts.at("fit").get<int>() > 0);
  for (const auto& row : j.at("rows")) {
    if (row.at("status") != "too_large") continue;
    CHECK(row.at("step_time_s").is_null());
    CHECK(row.at("memory_gib").get<double>() + 3.0 > j.at("hbm_gib").get<double>());
  }
}

TEST_CASE("sweep: bad command lines fail with one line, exit 2 and no file") {
  const TempDir dir;
  const std::string csv = dir / "rows.csv";
  check_fails_cleanly(run_clustersim("sweep --search --shard 0/2 --csv " + csv), "--shard");
  check_fails_cleanly(run_clustersim("sweep --search --shard 3/2 --csv " + csv), "--shard");
  check_fails_cleanly(run_clustersim("sweep --csv " + csv), "no layouts to compare");
  std::ofstream(dir / "bad.json") << R"([{"name": "x", "parallelism": {"tpp": 2}}])";
  check_fails_cleanly(run_clustersim(std::string("sweep ") + kTwelve + " --configs " + (dir / "bad.json") +
                                     " --csv " + csv),
                      "bad.json: /0/parallelism/tpp: unknown key");
  check_fails_cleanly(run_clustersim("sweep --search --configs x.json"), "exclude each other");
  check_fails_cleanly(run_clustersim("sweep --whole-steps"), "--whole-steps needs --search");
  CHECK_FALSE(std::filesystem::exists(csv));
}

}  // namespace
}  // namespace clustersim::test
