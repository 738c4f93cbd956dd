#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/calibrate.hpp"
#include "calibration/profile.hpp"
#include "scenarios/scenario_error.hpp"
#include "tests/calibration/overlap_records.hpp"

namespace {

namespace fs = std::filesystem;
using namespace clustersim::calibration;

fs::path write_records(const std::string& name, const std::string& text) {
  const auto dir = fs::temp_directory_path() / ("clustersim-overlap-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path;
}

Calibration calibrate_records() {
  const std::vector<std::string> inputs{write_records("overlap.jsonl", clustersim::test::kOverlapRecords).string()};
  return calibrate(inputs, CalibrateOptions{.gpu = "h100-sxm"});
}

const OverlapEstimate& estimate(const Calibration& c, const std::string& quantity, const std::string& comm) {
  const OverlapEstimate* found = nullptr;
  for (const auto& e : c.overlap->estimates) {
    if (e.quantity == quantity && e.comm == comm) found = &e;
  }
  CAPTURE(quantity);
  REQUIRE(found != nullptr);
  return *found;
}

TEST_CASE("overlap fit: SMs held and HBM bytes per byte from overlap_bench records, by hand") {
  const Calibration c = calibrate_records();
  REQUIRE(c.overlap.has_value());
  const auto& o = c.profile.compute.overlap;
  CHECK(c.profile.overlap_section);
  CHECK(o.sms_held.value == doctest::Approx(26.4));
  const auto ci = c.profile.ci95.at("/overlap/sms_held");
  CHECK(ci.first == doctest::Approx(26.4 - 16.3954).epsilon(1e-4));
  CHECK(ci.second == doctest::Approx(26.4 + 16.3954).epsilon(1e-4));
  CHECK(o.sms_held.source.find("measured") == 0);
  CHECK(o.sms_held.source.find("3 sample(s)") != std::string::npos);
  CHECK(o.hbm_bytes_per_bus_byte.value == doctest::Approx(0.1 * 3350.0 / 300.0));
  CHECK_FALSE(c.profile.ci95.contains("/overlap/hbm_bytes_per_bus_byte"));
  CHECK(o.copy_hbm_bytes_per_byte.value == doctest::Approx(0.4 * 3350.0 / 1000.0));

  const OverlapEstimate& sms = estimate(c, "sms_held", "nccl_all_reduce");
  CHECK(sms.samples == 3);  // the one-rank and the uncovered runs are out
  CHECK(sms.mean_lost == doctest::Approx(0.2));
  CHECK(sms.model == 24.0);  // the built-in H100 constant
  const OverlapEstimate& copy_check = estimate(c, "check: SMs a device-to-device copy takes", "memcpy_d2d");
  CHECK_FALSE(copy_check.sets_constant);
  CHECK(copy_check.value == doctest::Approx(1.32));
  CHECK(copy_check.model == 0.0);
  CHECK(c.overlap->estimates.size() == 4);

  bool one_rank_note = false, uncovered_note = false;
  for (const auto& note : c.notes) {
    one_rank_note = one_rank_note || note.find("one-rank NCCL") != std::string::npos;
    uncovered_note = uncovered_note || note.find("ended before the victim") != std::string::npos;
  }
  CHECK(one_rank_note);
  CHECK(uncovered_note);
}

TEST_CASE("overlap fit: the profile's overlap section round-trips, absent, the built-in constants") {
  const Calibration c = calibrate_records();
  const std::string text = profile_to_json(c.profile);
  const CalibrationProfile back = parse_profile(text, "p.json");
  CHECK(back.overlap_section);
  CHECK(back.compute.overlap.sms_held.value == doctest::Approx(26.4));
  CHECK(back.compute.overlap.sms_held.source == c.profile.compute.overlap.sms_held.source);
  CHECK(back.ci95.at("/overlap/sms_held") == c.profile.ci95.at("/overlap/sms_held"));
  CHECK(profile_to_json(back) == text);

  // Without overlap records calibrate writes no section; reading one without it gives the built-ins.
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(text);
  document.erase("overlap");
  const CalibrationProfile plain = parse_profile(document.dump(), "p.json");
  CHECK_FALSE(plain.overlap_section);
  CHECK(plain.compute.overlap.sms_held.value == 24.0);
  CHECK(profile_to_json(plain).find("\"overlap\"") == std::string::npos);

  const auto error = [&](const nlohmann::ordered_json& d) -> std::string {
    try {
      parse_profile(d.dump(), "p.json");
    } catch (const clustersim::scenarios::ScenarioError& e) {
      return e.what();
    }
    return "";
  };
  nlohmann::ordered_json bad = nlohmann::ordered_json::parse(text);
  bad["overlap"]["ctas"] = 3;
  CHECK(error(bad) == "p.json: /overlap/ctas: unknown key");
  bad = nlohmann::ordered_json::parse(text);
  bad["overlap"]["sms_held"]["value"] = -1;
  CHECK(error(bad) == "p.json: /overlap/sms_held/value: must be a number in [0, 1024], got -1");
}

TEST_CASE("overlap fit: bad overlap records name the line and the key") {
  const auto error = [](const std::string& line) -> std::string {
    try {
      parse_bench_records(line, "o.jsonl");
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error("{\"bench\":\"overlap\",\"victim\":\"attention\",\"comm\":\"memcpy_d2d\"}") ==
        "o.jsonl:1: /victim: \"attention\" is not gemm or memory");
  CHECK(error("{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"memcpy_d2d\",\"alone_s\":1}") ==
        "o.jsonl:1: /overlapped_s: is required");
  CHECK(error("{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"memcpy_d2d\",\"alone_s\":1,\"overlapped_s\":2,"
              "\"comm_gb_per_s\":5,\"covered\":1}") == "o.jsonl:1: /covered: must be true or false");
}

}  // namespace
