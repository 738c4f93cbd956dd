// `--csv FILE` of run (the per-stage table), plan (every option) and tco (the cumulative cost
// curves), each against the same command's --json: a header row, one row per item, the same
// figures; and no file where the command fails.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace {

using clustersim::test::check_fails_cleanly;
using clustersim::test::read_text;
using clustersim::test::run_clustersim;
using clustersim::test::TempDir;
using nlohmann::json;

// Rows of a CSV whose quoted fields hold no comma (those written here: names, "20+20").
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) {
      if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') cell = cell.substr(1, cell.size() - 2);
      fields.push_back(cell);
    }
    if (line.ends_with(',')) fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

double number(const std::string& cell) { return std::strtod(cell.c_str(), nullptr); }

}  // namespace

TEST_CASE("csv: run writes one row per pipeline stage, the figures of --json's stages") {
  const TempDir dir;
  const std::string file = dir / "stages.csv";
  const std::string words = "run --set parallelism.vp=5 --set training.schedule=interleaved --set parallelism.pp=4";
  const auto outcome = run_clustersim(words + " --json --csv " + file);
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json stages = json::parse(outcome.out).at("stages");
  const auto rows = csv_rows(read_text(file));
  REQUIRE(rows.size() == stages.size() + 1);
  REQUIRE(stages.size() == 4);
  const auto& header = rows.front();
  CHECK(header.front() == "stage");
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const auto& row = rows[s + 1];
    REQUIRE(row.size() == header.size());
    CHECK(row[column(header, "stage")] == std::to_string(s));
    // 80 layers over 4 stages of 5 chunks: 4 layers a chunk, written as the text table writes them.
    CHECK(row[column(header, "layers")] == "4+4+4+4+4");
    for (const char* key : {"compute_s", "exposed_comm_s", "bubble_s", "tp_comm_s", "pp_comm_s", "dp_comm_s",
                            "cp_comm_s", "ep_comm_s", "memory_gib"}) {
      CAPTURE(key);
      CHECK(number(row[column(header, key)]) == doctest::Approx(stages[s].at(key).get<double>()).epsilon(1e-12));
    }
  }
}

TEST_CASE("csv: plan writes every option it priced, with the front and the choice of --json") {
  const TempDir dir;
  const std::string file = dir / "options.csv";
  const auto outcome = run_clustersim(
      "plan --deadline-days 1000 --gpus h100-sxm,a100-80gb --min-gpus 16 --max-gpus 32 --topologies "
      "rail_optimized,fat_tree --flow-check 1 --json --csv " + file);
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json plan = json::parse(outcome.out);
  const json& options = plan.at("options");
  const auto rows = csv_rows(read_text(file));
  REQUIRE(options.size() > 2);
  REQUIRE(rows.size() == options.size() + 1);
  const auto& header = rows.front();
  std::size_t chosen = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const auto& row = rows[i + 1];
    const json& o = options[i];
    REQUIRE(row.size() == header.size());
    CHECK(row[column(header, "gpu")] == o.at("gpu").get<std::string>());
    CHECK(row[column(header, "gpus")] == std::to_string(o.at("gpus").get<std::int64_t>()));
    CHECK(row[column(header, "topology")] == o.at("topology").get<std::string>());
    CHECK(row[column(header, "tp")] == std::to_string(o.at("layout").at("tp").get<std::int64_t>()));
    CHECK(number(row[column(header, "step_time_s")]) == doctest::Approx(o.at("step_time_s").get<double>()).epsilon(1e-12));
    CHECK(number(row[column(header, "cost_slow_usd")]) == doctest::Approx(o.at("cost_usd_band")[1].get<double>()).epsilon(1e-12));
    CHECK(row[column(header, "on_front")] == (o.at("on_front").get<bool>() ? "true" : "false"));
    CHECK(row[column(header, "fidelity")] == o.at("fidelity").get<std::string>());
    CHECK(number(row[column(header, "analytic_step_time_s")]) ==
          doctest::Approx(o.at("analytic_step_time_s").get<double>()).epsilon(1e-12));
    if (row[column(header, "chosen")] == "true") {
      ++chosen;
      CHECK(plan.at("chosen").at("option") == i);
    }
  }
  // A deadline of 1000 days leaves a choice to mark.
  REQUIRE_FALSE(plan.at("chosen").is_null());
  CHECK(chosen == 1);
}

TEST_CASE("csv: tco writes the cumulative cost of building and of each rent option, month by month") {
  const TempDir dir;
  const std::string file = dir / "tco.csv";
  const auto outcome = run_clustersim("tco scenarios/seed/rent-vs-build.json --runs 20 --json --csv " + file);
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json tco = json::parse(outcome.out);
  const auto rows = csv_rows(read_text(file));
  const std::int64_t months = tco.at("horizon_months").get<std::int64_t>();
  REQUIRE(rows.size() == static_cast<std::size_t>(months) + 2);  // header, months 0 .. horizon
  const auto& header = rows.front();
  REQUIRE(header.size() == 2 + tco.at("rent").size());
  CHECK(header[0] == "month");
  CHECK(header[1] == "build_usd");
  for (std::size_t r = 0; r < tco.at("rent").size(); ++r)
    CHECK(header[2 + r] == "rent_" + tco.at("rent")[r].at("option").get<std::string>() + "_usd");
  for (std::int64_t m = 0; m <= months; ++m) {
    const auto& row = rows[static_cast<std::size_t>(m) + 1];
    CHECK(row[0] == std::to_string(m));
    CHECK(number(row[1]) == doctest::Approx(tco.at("build").at("cumulative_usd")[m].get<double>()).epsilon(1e-12));
    for (std::size_t r = 0; r < tco.at("rent").size(); ++r)
      CHECK(number(row[2 + r]) == doctest::Approx(tco.at("rent")[r].at("cumulative_usd")[m].get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("csv: a command that fails writes no CSV") {
  const TempDir dir;
  for (const std::string command : {"run", "tco"}) {
    const std::string file = dir / (command + ".csv");
    check_fails_cleanly(run_clustersim(command + " --set parallelism.tp=3 --csv " + file), "tp");
    CHECK_FALSE(std::filesystem::exists(file));
  }
}
