#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "calibration/apply_profile.hpp"
#include "calibration/profile.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_error.hpp"

namespace {

using namespace clustersim::calibration;
using clustersim::scenarios::ScenarioError;

std::string bundled_text(const std::string& gpu) {
  std::ifstream file(std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/profiles/" + gpu + ".json");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The error parsing `document` gives, or "" if it parses.
std::string parse_error(const nlohmann::ordered_json& document) {
  try {
    parse_profile(document.dump(), "p.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("profile: JSON round trip is exact") {
  for (const char* gpu : {"a100-80gb", "h100-sxm", "h200-sxm", "b200"}) {
    CAPTURE(gpu);
    const std::string text = bundled_text(gpu);
    REQUIRE_FALSE(text.empty());
    const auto profile = parse_profile(text, gpu);
    CHECK(profile.gpu == gpu);
    CHECK(profile.compute.gpu == gpu);
    CHECK(profile_to_json(profile) == text);
  }
}

TEST_CASE("profile: errors name the file and the JSON pointer") {
  const auto good = nlohmann::ordered_json::parse(bundled_text("h100-sxm"));
  auto unknown = good;
  unknown["compute"]["flops"] = {{"value", 1.0}, {"source", "x"}};
  CHECK(parse_error(unknown) == "p.json: /compute/flops: unknown key");
  auto missing = good;
  missing["comm"]["nvlink_efficiency"].erase("value");
  CHECK(parse_error(missing) == "p.json: /comm/nvlink_efficiency: \"value\" is required");
  auto fractional = good;
  fractional["compute"]["sm_count"]["value"] = 131.5;
  CHECK(parse_error(fractional) == "p.json: /compute/sm_count/value: must be an integer >= 1");
  auto unsourced = good;
  unsourced["compute"]["k_half"]["source"] = "";
  CHECK(parse_error(unsourced) == "p.json: /compute/k_half/source: must say where the value comes from");
  auto reversed = good;
  reversed["compute"]["k_half"]["ci95"] = {300.0, 200.0};
  CHECK(parse_error(reversed) == "p.json: /compute/k_half/ci95: hi must be >= lo");
  auto newer = good;
  newer["version"] = 2;
  CHECK(parse_error(newer) == "p.json: /version: this clustersim reads version 1");
  auto bad_segment = good;
  bad_segment["collectives"][0]["segments"][0]["busbw_gb_per_s"] = -3.0;
  CHECK(parse_error(bad_segment) == "p.json: /collectives/0/segments/0/busbw_gb_per_s: must be null or a number in (0, 100000] GB/s, got -3");
  // Efficiencies are in (0, 1]: 1e308 gave an MFU of 105 %, 0 infinite times.
  auto too_efficient = good;
  too_efficient["compute"]["gemm_max_efficiency_bf16"]["value"] = 1e308;
  CHECK(parse_error(too_efficient) ==
        "p.json: /compute/gemm_max_efficiency_bf16/value: must be a number in (0, 1], got 1e+308");
  auto no_tree = good;
  no_tree["comm"]["tree_efficiency"]["value"] = 0.0;
  CHECK(parse_error(no_tree) == "p.json: /comm/tree_efficiency/value: must be a number in (0, 1], got 0");
  auto no_nvls = good;  // 0 means "no NVLS" there
  no_nvls["comm"]["nvls_algbw_efficiency"]["value"] = 0.0;
  CHECK(parse_error(no_nvls).empty());
  auto slow_hop = good;
  slow_hop["comm"]["nvlink_hop_latency_s"]["value"] = 2.0;
  CHECK(parse_error(slow_hop) == "p.json: /comm/nvlink_hop_latency_s/value: must be a number in [0, 1], got 2");
  CHECK_THROWS_WITH_AS(parse_profile("{", "p.json"), doctest::Contains("p.json: malformed JSON: "), ScenarioError);
  CHECK_THROWS_WITH_AS(load_profile("/nonexistent/profile.json"),
                       "/nonexistent/profile.json: no such file", ScenarioError);
}

TEST_CASE("profile: the constants added after version 1 was first written may be missing, and read as 0") {
  // A profile written before the low-latency protocols and the tree's coupling exponent existed
  // still reads: the missing constants keep 0, which the collective model reads as "not modelled"
  // (no low-latency path; the tree family at the plain minimum of its stages' rates, as
  // tests/models/comm/flow_collectives_test.cpp checks).
  auto old = nlohmann::ordered_json::parse(bundled_text("h100-sxm"));
  REQUIRE(old["comm"]["tree_coupling_exponent"]["value"] == 3.0);
  for (const char* key : {"ll_base_latency_s", "ll_network_hop_latency_s", "ll_network_efficiency", "tree_coupling_exponent"})
    old["comm"].erase(key);
  const auto profile = parse_profile(old.dump(), "old.json");
  CHECK(profile.comm.tree_coupling_exponent == 0.0);
  CHECK(profile.comm.ll_base_latency_s == 0.0);
  CHECK(profile.comm.ll_network_hop_latency_s == 0.0);
  CHECK(profile.comm.ll_network_efficiency == 0.0);
}

TEST_CASE("profile: a profile without attention's clock factor and dropout share holds attention at the GEMMs' clock, dropout free") {
  auto old = nlohmann::ordered_json::parse(bundled_text("h100-sxm"));
  REQUIRE(old["compute"].contains("attention_clock_factor"));
  REQUIRE(old["compute"].contains("attention_dropout_share"));
  old["compute"].erase("attention_clock_factor");
  old["compute"].erase("attention_dropout_share");
  const auto profile = parse_profile(old.dump(), "old.json");
  CHECK(profile.compute.attention_clock_factor.value == 1.0);
  CHECK(profile.compute.attention_clock_factor.source.starts_with("not in the profile"));
  CHECK(profile.compute.attention_dropout_share.value == 0.0);
  CHECK(profile.compute.attention_dropout_share.source.starts_with("not in the profile"));
  old["compute"]["attention_clock_factor"] = {{"value", 0.0}, {"source", "x"}};
  CHECK_THROWS_WITH_AS(parse_profile(old.dump(), "zero.json"),
                       doctest::Contains("/compute/attention_clock_factor"), std::exception);
  old["compute"]["attention_clock_factor"] = {{"value", 1.0}, {"source", "x"}};
  old["compute"]["attention_dropout_share"] = {{"value", -0.5}, {"source", "x"}};  // dropout cannot halve a call
  CHECK_THROWS_WITH_AS(parse_profile(old.dump(), "half.json"),
                       doctest::Contains("/compute/attention_dropout_share"), std::exception);
}

TEST_CASE("profile: ci95 is optional and kept by pointer") {
  const auto profile = parse_profile(bundled_text("b200"), "b200.json");
  // The 4-node B200 fit has 3 sizes in its last segment: an interval; sm_count is not fitted: none.
  CHECK(profile.ci95.contains("/comm/network_efficiency"));
  CHECK_FALSE(profile.ci95.contains("/compute/sm_count"));
  const auto [lo, hi] = profile.ci95.at("/comm/network_efficiency");
  CHECK(lo <= profile.comm.network_efficiency);
  CHECK(hi >= profile.comm.network_efficiency);
}

TEST_CASE("profile: apply_profile replaces a run's compute and comm constants") {
  const auto path = std::filesystem::temp_directory_path() / ("clustersim-profile-" + std::to_string(::getpid()) + ".json");
  { std::ofstream(path) << bundled_text("h100-sxm"); }
  clustersim::models::StepInputs inputs;
  inputs.cluster.gpu = clustersim::scenarios::gpu_preset("h100-sxm");
  apply_profile(path.string(), inputs);
  // measurements.md 1.1 and 1.2: 479.90 GB/s busbw at 16 GiB (dgxc) and 478.87 at 8 GiB (Azure),
  // NVLS all-reduces on 8 GPUs: algbw = busbw / 1.75 over the 450 GB/s NVLink 4 line rate. The
  // ring constant keeps its built-in value, and the fitted curves come along.
  CHECK(inputs.comm.nvls_algbw_efficiency == doctest::Approx((479.90 + 478.87) / 2.0 / 1.75 / 450.0).epsilon(0.01));
  CHECK(inputs.comm.nvlink_efficiency == doctest::Approx(0.82));
  REQUIRE(inputs.comm.curves.size() == 2);
  CHECK(inputs.comm.curves[0].ranks == 8);
  // PyTorch's FlashAttention-2 rate, fitted by call size, lies above its largest measured call
  // (279.31 TF/s of 989, calibration/measured/h200-2026-11-30/attention_flash2.jsonl) and under the
  // published best (measurements.md 2.2: 327.9). The flash-attn package's lies above its largest
  // call in the FlashAttention-3 paper (325.6 TF/s forward + backward at 16k tokens), within the
  // little a 3.8 TFLOP call spends outside its main loop. STREAM copy 2.90 TB/s on H100.
  CHECK(inputs.compute.attention_sdpa_flash_efficiency.value > 279.31 / 989.0);
  CHECK(inputs.compute.attention_sdpa_flash_efficiency.value < 327.9 / 989.0);
  CHECK(inputs.compute.attention_efficiency.value > 325.6 / 989.0);
  CHECK(inputs.compute.attention_efficiency.value < 1.05 * 325.6 / 989.0);
  CHECK(inputs.compute.hbm_efficiency.value == doctest::Approx(2.90 / 3.35));
  CHECK(inputs.comm.source.starts_with("calibration profile " + path.string()));

  inputs.cluster.gpu = clustersim::scenarios::gpu_preset("a100-80gb");
  CHECK_THROWS_WITH_AS(apply_profile(path.string(), inputs),
                       (path.string() + ": /gpu: the profile is for \"h100-sxm\" but the scenario's GPU is \"a100-80gb\"").c_str(),
                       ScenarioError);
  std::filesystem::remove(path);
}

TEST_CASE("profile: fnv1a64 of known strings") {
  // FNV-1a 64 test vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c.
  CHECK(fnv1a64("") == "cbf29ce484222325");
  CHECK(fnv1a64("a") == "af63dc4c8601ec8c");
}

}  // namespace

TEST_CASE("profile: the band puts each interval-carrying constant at its fast and slow end") {
  const std::string path = std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/profiles/h200-measured.json";
  clustersim::models::StepInputs inputs;
  inputs.cluster.gpu = clustersim::scenarios::gpu_preset("h200-sxm");
  apply_profile(path, inputs);
  const auto band = clustersim::calibration::profile_band(path, inputs);
  REQUIRE(band.has_value());
  const auto profile = clustersim::calibration::load_profile(path);
  const auto [e_lo, e_hi] = profile.ci95.at("/compute/gemm_max_efficiency_bf16");
  const auto [k_lo, k_hi] = profile.ci95.at("/compute/k_half");
  CHECK(band->fast.compute.gemm_max_efficiency_bf16.value == e_hi);
  CHECK(band->slow.compute.gemm_max_efficiency_bf16.value == e_lo);
  CHECK(band->fast.compute.k_half.value == k_lo);  // a shorter prologue is faster
  CHECK(band->slow.compute.k_half.value == k_hi);
  // A constant without an interval stays as applied.
  CHECK(band->fast.compute.hbm_efficiency.value == inputs.compute.hbm_efficiency.value);
  CHECK(band->constants.size() == 4);
}
