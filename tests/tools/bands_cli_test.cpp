// The step-time bands of `clustersim sweep` and `clustersim plan` through the built binary, with
// validation CSVs whose measured step times are chosen multiples of the model's predictions
// (tests/planning/validation/validation_fixture.hpp), so that every band and order is known.

#include <doctest/doctest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "tests/planning/validation/validation_fixture.hpp"
#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

constexpr const char* kTwelveLayouts = "scenarios/seed/twelve-layouts.json";
// Llama 3 8B on 2 nodes of 8 H100, 16 sequences a step, as sweep_test.cpp's small search.
constexpr const char* kBandsSearch =
    "sweep --search --quiet --set model.preset=llama3-8b --set cluster.num_gpus=16 --set parallelism.tp=8 "
    "--set parallelism.pp=2 --set parallelism.dp=1 --set training.seq_len=2048 --set training.global_batch=16";

// A Hopper bf16 ZeRO 0-2 run and a Hopper bf16 ZeRO-3 FSDP2 run (torchtitan's H200 row in bf16),
// measured at the given multiples of their predictions.
std::string hopper_fixture(double zero1_ratio, double zero3_ratio) {
  return fixture_csv({{.id = "mcore24-h100-weak-1.7B", .measured_over_predicted = zero1_ratio},
                      {.id = "torchtitan-h200-8b-fsdp-32",
                       .measured_over_predicted = zero3_ratio,
                       .changes = {{"precision", "bf16"}}}});
}

nlohmann::json run_json(const std::string& arguments) {
  const Outcome outcome = run_clustersim(arguments);
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  return nlohmann::json::parse(outcome.out);
}

std::map<std::string, nlohmann::json> by_name(const nlohmann::json& rows) {
  std::map<std::string, nlohmann::json> named;
  for (const auto& row : rows) named[row.at("name").get<std::string>()] = row;
  return named;
}

TEST_CASE("sweep bands: a layout sure of its time outranks one whose point estimate is faster") {
  const TempDir dir;
  const std::string configs = dir / "configs.json";
  std::ofstream(configs) << R"({"configs": [
      {"name": "zero1", "parallelism": {"tp": 4, "pp": 4, "dp": 16}},
      {"name": "zero3", "parallelism": {"tp": 8, "pp": 1, "dp": 32, "zero": 3}}]})";
  // The point estimates: ZeRO-1 is the faster by far.
  const auto plain = by_name(run_json(std::string("sweep ") + kTwelveLayouts + " --json --configs " + configs).at("rows"));
  const double zero1 = plain.at("zero1").at("step_time_s"), zero3 = plain.at("zero3").at("step_time_s");
  REQUIRE(zero1 < zero3);
  // Runs of the ZeRO-1 family measured 1.5 x zero3 / zero1 times their prediction, ZeRO-3 runs as
  // predicted: ZeRO-1's band reaches 1.5 zero3, ZeRO-3's is its point, so ZeRO-3 ranks first.
  const double ratio = 1.5 * zero3 / zero1;
  write_file(dir / "runs.csv", hopper_fixture(ratio, 1.0));
  const auto j = run_json(std::string("sweep ") + kTwelveLayouts + " --json --configs " + configs + " --validation " +
                          (dir / "runs.csv"));
  const auto& rows = j.at("rows");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("name") == "zero3");
  CHECK(rows[1].at("name") == "zero1");
  CHECK(j.at("bands").at("source") == dir / "runs.csv");
  // The bands by hand: zero1 x [1, ratio], zero3 x [1, 1].
  CHECK(rows[1].at("step_time_s").get<double>() == zero1);
  CHECK(rows[1].at("step_time_band_s").at(0).get<double>() == doctest::Approx(zero1));
  CHECK(rows[1].at("step_time_band_s").at(1).get<double>() == doctest::Approx(1.5 * zero3));
  CHECK(rows[1].at("validation").at("family") == "Hopper bf16 ZeRO 0-2");
  CHECK(rows[1].at("validation").at("runs") == 1);
  CHECK(rows[0].at("step_time_band_s").at(1).get<double>() == doctest::Approx(zero3));
  CHECK(rows[0].at("validation").at("family") == "Hopper bf16 ZeRO-3 fsdp2");
  // zero3's point lies inside zero1's band: they tie, each with the other.
  CHECK(rows[0].at("ties_with") == nlohmann::json::array({2}));
  CHECK(rows[1].at("ties_with") == nlohmann::json::array({1}));
}

TEST_CASE("sweep bands: the twelve layouts mark ties exactly where bands overlap, and name each family") {
  const TempDir dir;
  write_file(dir / "runs.csv", hopper_fixture(1.25, 1.1));
  const std::string args = std::string("sweep ") + kTwelveLayouts + " --validation " + (dir / "runs.csv");
  const auto rows = run_json(args + " --json").at("rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::size_t> expected;
    const bool comparable = rows[i].at("status") == "simulated" && rows[i].at("fits").get<bool>();
    for (std::size_t k = 0; k < rows.size() && comparable; ++k) {
      if (k == i || !rows[k].at("fits").get<bool>()) continue;
      const auto& a = rows[i].at("step_time_band_s");
      const auto& b = rows[k].at("step_time_band_s");
      if (a.at(0).get<double>() <= b.at(1).get<double>() && b.at(0).get<double>() <= a.at(1).get<double>()) {
        expected.push_back(k + 1);
      }
    }
    CAPTURE(rows[i].at("name"));
    CHECK(rows[i].at("ties_with").get<std::vector<std::size_t>>() == expected);
  }
  const Outcome text = run_clustersim(args);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("  Hopper bf16 ZeRO 0-2") != std::string::npos);
  CHECK(text.out.find("1 published run, +0.0 % .. +25.0 %") != std::string::npos);
  CHECK(text.out.find("ties: the ranks whose bands overlap") != std::string::npos);
}

TEST_CASE("sweep bands: ZeRO-3 on B200 is marked unvalidated, with the dimension no published run covers") {
  const TempDir dir;
  const std::string configs = dir / "configs.json";
  std::ofstream(configs) << R"({"configs": [{"name": "zero3", "parallelism": {"tp": 8, "pp": 1, "dp": 32, "zero": 3}}]})";
  const std::string args = std::string("sweep ") + kTwelveLayouts + " --set cluster.gpu=b200 --configs " + configs;
  const auto rows = run_json(args + " --json").at("rows");
  REQUIRE(rows.size() == 1);
  const auto& validation = rows[0].at("validation");
  CHECK(validation.at("family") == "Blackwell bf16 ZeRO-3 fsdp2");
  CHECK(validation.at("runs") == 0);
  // Blackwell's published runs (NeMo's B200 long-sequence table) are fp8 with the distributed
  // optimizer: ZeRO-3 is the dimension none covers, and Blackwell's validated family stands in.
  CHECK(validation.at("unvalidated") == "no published run with ZeRO-3 on Blackwell (B200, GB200, GB300)");
  CHECK(validation.at("stand_in") ==
        "the span of the validated ZeRO 0-2 and ZeRO-3 fsdp2 families on Blackwell (Blackwell fp8 ZeRO 0-2, Blackwell nvfp4 ZeRO 0-2)");
  const Outcome text = run_clustersim(args);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("* Blackwell bf16 ZeRO-3 fsdp2  unvalidated: no published run with ZeRO-3 on Blackwell (B200, "
                      "GB200, GB300)") != std::string::npos);
  CHECK(text.out.find(rows[0].at("name").get<std::string>()) != std::string::npos);
  // The row's band carries the mark.
  const double slow = rows[0].at("step_time_band_s").at(1);
  CHECK(text.out.find(fmt::format("{:.3f}*", slow)) != std::string::npos);
}

TEST_CASE("sweep bands: a search that prunes by the slow end ranks its top rows as the full search does") {
  // ZeRO 0-2 and ZeRO-3 layouts carry different slow factors (1.3 and 1.0): the pruning must
  // compare slow ends, not points, or the top rows would differ.
  const TempDir dir;
  write_file(dir / "runs.csv", hopper_fixture(1.3, 1.0));
  const std::string args = std::string(kBandsSearch) + " --json --validation " + (dir / "runs.csv");
  const auto all = run_json(args + " --top 0");
  const auto best = run_json(args + " --top 3");
  REQUIRE(best.at("rows").size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(best.at("rows")[i] == all.at("rows")[i]);
  double previous = 0.0;
  bool zero3_seen = false;
  for (const auto& row : all.at("rows")) {
    if (row.at("status") != "simulated" || !row.at("fits").get<bool>()) continue;
    zero3_seen = zero3_seen || row.at("zero") == 3;
    const double slow = row.at("step_time_band_s").at(1);
    CHECK(slow >= previous);
    previous = slow;
  }
  CHECK(zero3_seen);
}

TEST_CASE("sweep bands: shards whose bands come from different runs do not merge") {
  const TempDir dir;
  write_file(dir / "runs.csv", hopper_fixture(1.3, 1.0));
  // The search of kBandsSearch on one node: what is refused is the shards' provenance, not their size.
  const std::string search = std::string(kBandsSearch) + " --set cluster.num_gpus=8 --set parallelism.pp=1 "
                                                         "--set training.global_batch=8";
  const Outcome one = run_clustersim(search + " --shard 1/2");
  const Outcome two = run_clustersim(search + " --shard 2/2 --validation " + (dir / "runs.csv"));
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  write_file(dir / "1.json", one.out);
  write_file(dir / "2.json", two.out);
  check_fails_cleanly(run_clustersim("merge " + (dir / "1.json") + " " + (dir / "2.json")), "comes from a different sweep");
}

TEST_CASE("sweep bands: a named profile's fitted intervals widen every band by the ratio they move the step") {
  // Independent path: `run --json` simulates the scenario with the profile's interval-carrying
  // constants at both ends (step_time_band_s).
  const std::string profile =
      " --set cluster.gpu=h200-sxm --set calibration.profile=calibration/profiles/h200-measured.json";
  const auto run = run_json("run --json" + profile);
  const double t = run.at("step_time_s"), fast = run.at("step_time_band_s").at("fast"),
               slow = run.at("step_time_band_s").at("slow");
  REQUIRE(fast < t);
  REQUIRE(slow > t);
  // Hopper bf16 ZeRO 0-2 runs at 1.25 x: the scenario's own layout carries t x [1 x fast / t, 1.25 x slow / t].
  const TempDir dir;
  write_file(dir / "runs.csv", hopper_fixture(1.25, 1.0));
  const std::string configs = dir / "configs.json";
  std::ofstream(configs) << R"({"configs": [{"name": "own", "parallelism": {"tp": 8, "pp": 4, "dp": 8}}]})";
  const auto j = run_json("sweep --json" + profile + " --configs " + configs + " --validation " + (dir / "runs.csv"));
  CHECK(j.at("bands").at("profile") == "calibration/profiles/h200-measured.json");
  CHECK(j.at("bands").at("profile_widening").at(0).get<double>() == doctest::Approx(fast / t));
  CHECK(j.at("bands").at("profile_widening").at(1).get<double>() == doctest::Approx(slow / t));
  const auto& row = j.at("rows").at(0);
  REQUIRE(row.at("step_time_s").get<double>() == t);
  CHECK(row.at("step_time_band_s").at(0).get<double>() == doctest::Approx(fast));
  CHECK(row.at("step_time_band_s").at(1).get<double>() == doctest::Approx(1.25 * slow));
  // The bundled profile adds nothing: its constants are those the validation runs were predicted with.
  const auto bundled = run_json("sweep --json --set cluster.gpu=h200-sxm --configs " + configs + " --validation " +
                                (dir / "runs.csv"));
  CHECK(bundled.at("bands").at("profile").is_null());
  const auto named_bundled = run_json("sweep --json --set cluster.gpu=h200-sxm --set calibration.profile=bundled --configs " +
                                      configs + " --validation " + (dir / "runs.csv"));
  CHECK(named_bundled.at("bands").at("profile").is_null());
  const auto& plain = bundled.at("rows").at(0);
  CHECK(plain.at("step_time_band_s").at(1).get<double>() ==
        doctest::Approx(1.25 * plain.at("step_time_s").get<double>()));
}

// Llama 3 8B on 16 to 64 H100: options of one GPU type, one topology.
constexpr const char* kBandsPlan =
    "plan --quiet --json --set model.preset=llama3-8b --set cluster.num_gpus=32 --set parallelism.tp=8 "
    "--set parallelism.pp=1 --set parallelism.dp=4 --set training.seq_len=2048 --set training.global_batch=64 "
    "--set training.tokens=2e10 --gpus h100-sxm --min-gpus 16 --max-gpus 64 --topologies rail_optimized";

TEST_CASE("plan bands: an option that meets the deadline only at its point estimate is not chosen") {
  const TempDir dir;
  // Every run of the families the plan meets (ZeRO 0-2 and ZeRO-3 on H100 in bf16) measured at
  // twice its prediction: every option's days run from its point to twice that.
  write_file(dir / "runs.csv", hopper_fixture(2.0, 2.0));
  const std::string args = std::string(kBandsPlan) + " --validation " + (dir / "runs.csv");
  const auto all = run_json(args);
  const auto& options = all.at("options");
  std::size_t cheapest = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    CHECK(options[i].at("days_band").at(1).get<double>() ==
          doctest::Approx(2.0 * options[i].at("days").get<double>()));
    CHECK(options[i].at("cost_usd_band").at(1).get<double>() ==
          doctest::Approx(2.0 * options[i].at("cost_usd").get<double>()));
    if (options[i].at("cost_usd").get<double>() < options[cheapest].at("cost_usd").get<double>()) cheapest = i;
  }
  // A deadline the cheapest option meets at its point estimate (1.5 x its days) but not at the
  // slow end of its band (2 x): a point-estimate rule would choose it.
  const double deadline = 1.5 * options[cheapest].at("days").get<double>();
  const auto j = run_json(args + " --deadline-days " + fmt::format("{:.17g}", deadline));
  REQUIRE(j.at("chosen").is_object());
  const std::size_t chosen = j.at("chosen").at("option");
  CHECK(chosen != cheapest);
  CHECK(j.at("options")[chosen].at("days_band").at(1).get<double>() <= deadline);
  // It is the cheapest of the options whose slow end meets the deadline.
  for (const auto& o : j.at("options")) {
    if (o.at("days_band").at(1).get<double>() > deadline) continue;
    CHECK(o.at("cost_usd_band").at(1).get<double>() >=
          j.at("options")[chosen].at("cost_usd_band").at(1).get<double>());
  }
}

TEST_CASE("plan bands: a B200 option is marked unvalidated in the text") {
  const Outcome outcome = run_clustersim(
      "plan --quiet --set model.preset=llama3-8b --set cluster.num_gpus=32 --set parallelism.tp=8 "
      "--set parallelism.pp=1 --set parallelism.dp=4 --set training.seq_len=2048 --set training.global_batch=64 "
      "--set training.tokens=2e10 --gpus b200 --min-gpus 16 --max-gpus 16 --topologies rail_optimized");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out.find("  unvalidated: no published run with ZeRO 0-2 in bf16 on Blackwell (B200, GB200, GB300)") !=
        std::string::npos);
  CHECK(outcome.out.find("* Blackwell bf16 ") != std::string::npos);
}

}  // namespace
}  // namespace clustersim::test
