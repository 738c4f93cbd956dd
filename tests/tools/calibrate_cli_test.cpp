#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/compute/compute_profile.hpp"
#include "tests/calibration/calibration_fixtures.hpp"
#include "tests/calibration/overlap_records.hpp"
#include "tests/tools/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using clustersim::test::Outcome;
using clustersim::test::run_shell;

using clustersim::test::read_text;

// A scratch folder per test process (ctest runs tests in parallel).
fs::path scratch() {
  const auto dir = fs::temp_directory_path() / ("clustersim-calibrate-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

Outcome calibrate(const std::string& arguments) {
  return run_shell("'" + std::string(CLUSTERSIM_BINARY) + "' calibrate " + arguments);
}

// Same structure and strings; numbers equal to 1e-9 relative.
void check_same(const json& actual, const json& expected, const std::string& pointer = "") {
  CAPTURE(pointer);
  REQUIRE(actual.type() == expected.type());
  if (expected.is_object()) {
    REQUIRE(actual.size() == expected.size());
    for (const auto& [key, value] : expected.items()) {
      REQUIRE(actual.contains(key));
      check_same(actual.at(key), value, pointer + "/" + key);
    }
  } else if (expected.is_array()) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) check_same(actual[i], expected[i], pointer + "/" + std::to_string(i));
  } else if (expected.is_number_float()) {
    const double a = actual.get<double>(), e = expected.get<double>();
    CHECK(std::abs(a - e) <= 1e-9 * std::max(std::abs(a), std::abs(e)));
  } else {
    CHECK(actual == expected);
  }
}

TEST_CASE("calibrate: bad input is one error line naming file and line, exit 2, and no profile") {
  const auto dir = scratch();
  const auto log = dir / "bad.txt";
  const auto profile = dir / "bad-profile.json";
  // A table row with a field missing (line 14: see calibration_fixtures.hpp's layout).
  std::ofstream(log) << clustersim::calibration::test::nccl_log(
      8, 8, {"     8388608       2097152     float     sum      -1   100.00   83.89  146.81      0   100.00   83.89  146.81"});
  const Outcome outcome = calibrate("'" + log.string() + "' --gpu h100-sxm --out '" + profile.string() + "'");
  CHECK(outcome.exit_code == 2);
  CHECK(outcome.out.empty());
  CHECK(outcome.err == "clustersim: error: " + log.string() +
                           ":14: table row has 12 fields; expected 13 (size count type redop root, then time algbw busbw "
                           "#wrong out of place and in place), or 9, 11 or 7 in shorter layouts\n");
  CHECK_FALSE(fs::exists(profile));

  const auto records = dir / "bad.jsonl";
  std::ofstream(records) << "# header\n{\"bench\":\"gemm\",\"m\":1024,\"n\":1024,\"k\":1024,\"dtype\":\"bf16\"}\n";
  const Outcome json_outcome = calibrate("'" + records.string() + "' --gpu h100-sxm --out '" + profile.string() + "'");
  CHECK(json_outcome.exit_code == 2);
  CHECK(json_outcome.err == "clustersim: error: " + records.string() + ":2: needs time_us or tflops\n");
  CHECK_FALSE(fs::exists(profile));

  const Outcome no_out = calibrate("'" + records.string() + "'");
  CHECK(no_out.exit_code == 2);
  CHECK(no_out.err == "clustersim: error: calibrate: --out PROFILE.json is required\n");
  const Outcome missing = calibrate("'" + (dir / "nothing.txt").string() + "' --out '" + profile.string() + "'");
  CHECK(missing.err == "clustersim: error: " + (dir / "nothing.txt").string() + ": no such file\n");
  fs::remove_all(dir);
}

TEST_CASE("calibrate: a real log in, a profile and a JSON report out") {
  const auto dir = scratch();
  const auto profile = dir / "h100.json";
  const std::string log = clustersim::calibration::test::data_path("h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt");
  const Outcome outcome = calibrate("'" + log + "' --out '" + profile.string() + "' --json");
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.err.empty());
  const json report = json::parse(outcome.out);
  const json written = json::parse(read_text(profile));
  CHECK(report.at("profile") == written);
  // The GPU comes from the log's device name, NVIDIA H100 80GB HBM3.
  CHECK(written.at("gpu") == "h100-sxm");
  // The recorded arguments are those that make the profile: not --out, not --json.
  CHECK(written.at("metadata").at("arguments") == json::array({log}));
  CHECK(written.at("metadata").at("inputs").at(0).at("records") == 32);
  REQUIRE(report.at("collectives").size() == 1);
  const json& fit = report.at("collectives").at(0);
  CHECK(fit.at("scope") == "network");
  CHECK(fit.at("ranks") == 16);
  CHECK(fit.at("points").size() == 32);
  CHECK(fit.at("max_relative").get<double>() <= 0.03 + 1e-12);  // the default tolerance
  // The 16 GiB row: 68652 us out of place, 68668 in place; busbw 469.21 as printed.
  const json& last = fit.at("points").back();
  CHECK(last.at("time_us").get<double>() == doctest::Approx(68652.0));
  CHECK(last.at("measured_busbw_gb_per_s").get<double>() == doctest::Approx(469.21).epsilon(0.001));
  // Network efficiency: that busbw over 8 x 400 Gb/s = 400 GB/s of NICs per node (NVLSTree beats the
  // ring bus factor's assumption, hence > 1).
  CHECK(written.at("comm").at("network_efficiency").at("value").get<double>() ==
        doctest::Approx(469.21 / 400.0).epsilon(0.01));
  fs::remove_all(dir);
}

TEST_CASE("calibrate: JSON-lines collectives, repeated sizes keep the fastest run") {
  // nccl_bench --json prints an out-of-place and an in-place record per size. All-gather on 8 ranks:
  // bus factor 7/8, so 8 MiB in 100 us is 8388608 x 0.875 / 100 / 1e3 = 73.40 GB/s busbw.
  const auto dir = scratch();
  const auto records = dir / "ag.jsonl";
  std::ofstream(records)
      << "{\"bench\":\"nccl\",\"op\":\"all_gather\",\"ranks\":8,\"bytes\":1048576,\"time_us\":30.0,\"in_place\":false}\n"
         "{\"bench\":\"nccl\",\"op\":\"all_gather\",\"ranks\":8,\"bytes\":1048576,\"time_us\":29.0,\"in_place\":true}\n"
         "{\"bench\":\"nccl\",\"op\":\"all_gather\",\"ranks\":8,\"bytes\":8388608,\"time_us\":100.0,\"in_place\":false}\n"
         "{\"bench\":\"nccl\",\"op\":\"all_gather\",\"ranks\":8,\"bytes\":8388608,\"time_us\":104.0,\"in_place\":true}\n"
         "{\"bench\":\"nccl\",\"op\":\"all_gather\",\"ranks\":8,\"bytes\":67108864,\"time_us\":700.0,\"in_place\":false}\n";
  const Outcome outcome = calibrate("'" + records.string() + "' --gpu h100-sxm --out '" + (dir / "p.json").string() + "' --json");
  REQUIRE(outcome.exit_code == 0);
  const json report = json::parse(outcome.out);
  const json& points = report.at("collectives").at(0).at("points");
  REQUIRE(points.size() == 3);
  CHECK(points[0].at("time_us").get<double>() == doctest::Approx(29.0));
  CHECK(points[1].at("time_us").get<double>() == doctest::Approx(100.0));
  CHECK(points[1].at("measured_busbw_gb_per_s").get<double>() == doctest::Approx(73.40).epsilon(0.001));
  fs::remove_all(dir);
}

TEST_CASE("calibrate: make_profiles regenerates the bundled profiles") {
  const auto dir = scratch() / "profiles";
  const std::string root = CLUSTERSIM_SOURCE_DIR;
  const Outcome outcome = run_shell("bash '" + root + "/calibration/make_profiles' --clustersim '" +
                              std::string(CLUSTERSIM_BINARY) + "' --out-dir '" + dir.string() + "'");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  for (const char* gpu : {"a100-80gb", "h100-sxm", "h200-sxm", "b200", "h200-measured"}) {
    CAPTURE(gpu);
    const std::string name = std::string(gpu) + ".json";
    check_same(json::parse(read_text(dir / name)), json::parse(read_text(fs::path(root) / "calibration/profiles" / name)));
  }
  fs::remove_all(dir.parent_path());
}

TEST_CASE("calibrate: the built-in GEMM and attention constants are the bundled profiles' fits") {
  // models/compute/compute_profile.cpp copies e_max, k_half and each attention kernel's rate from
  // calibration/profiles/<gpu>.json for a GPU run without a profile; a refit that moves them must
  // move the copies too (to the fit's convergence: Gauss-Newton starts from the built-in k_half).
  const std::string root = CLUSTERSIM_SOURCE_DIR;
  for (const char* gpu : {"a100-80gb", "h100-sxm", "h200-sxm"}) {
    CAPTURE(gpu);
    const json bundled = json::parse(read_text(fs::path(root) / "calibration/profiles" / (std::string(gpu) + ".json")));
    const clustersim::models::ComputeProfile built_in = clustersim::models::default_compute_profile(gpu);
    const json& c = bundled.at("compute");
    CHECK(built_in.gemm_max_efficiency_bf16.value == doctest::Approx(c.at("gemm_max_efficiency_bf16").at("value").get<double>()).epsilon(1e-6));
    CHECK(built_in.gemm_max_efficiency_fp8.value == doctest::Approx(c.at("gemm_max_efficiency_fp8").at("value").get<double>()).epsilon(1e-6));
    CHECK(built_in.k_half.value == doctest::Approx(c.at("k_half").at("value").get<double>()).epsilon(1e-6));
    const auto value = [&](const char* key) { return doctest::Approx(c.at(key).at("value").get<double>()).epsilon(1e-9); };
    CHECK(built_in.attention_efficiency.value == value("attention_efficiency"));
    CHECK(built_in.attention_cudnn_efficiency.value == value("attention_cudnn_efficiency"));
    CHECK(built_in.attention_flash3_efficiency.value == value("attention_flash3_efficiency"));
    CHECK(built_in.attention_sdpa_flash_efficiency.value == value("attention_sdpa_flash_efficiency"));
  }
  // Blackwell's bf16 GEMM constant is MAMF's best shape, not a by-shape fit; its fp8 GEMMs and its
  // attention rates are fitted like Hopper's.
  const json b200 = json::parse(read_text(fs::path(root) / "calibration/profiles/b200.json")).at("compute");
  const clustersim::models::ComputeProfile built_in = clustersim::models::default_compute_profile("b200");
  CHECK(built_in.gemm_max_efficiency_fp8.value ==
        doctest::Approx(b200.at("gemm_max_efficiency_fp8").at("value").get<double>()).epsilon(1e-6));
  CHECK(built_in.k_half.value == doctest::Approx(b200.at("k_half").at("value").get<double>()).epsilon(1e-6));
  CHECK(built_in.attention_efficiency.value == doctest::Approx(b200.at("attention_efficiency").at("value").get<double>()).epsilon(1e-9));
  CHECK(built_in.attention_cudnn_efficiency.value ==
        doctest::Approx(b200.at("attention_cudnn_efficiency").at("value").get<double>()).epsilon(1e-9));
  // No GB200 profile is bundled: its built-in FP8 GEMM constants are calibrate's fit of the same
  // GB200 rows, as fractions of its own peak.
  const auto dir = scratch();
  const auto gb200_profile = dir / "gb200.json";
  const Outcome fit = calibrate("'" + root + "/calibration/published/gb200_compute.jsonl' --gpu gb200 --out '" +
                                gb200_profile.string() + "'");
  REQUIRE(fit.exit_code == 0);
  const json gb200 = json::parse(read_text(gb200_profile)).at("compute");
  const clustersim::models::ComputeProfile gb200_built_in = clustersim::models::default_compute_profile("gb200");
  CHECK(gb200_built_in.gemm_max_efficiency_fp8.value ==
        doctest::Approx(gb200.at("gemm_max_efficiency_fp8").at("value").get<double>()).epsilon(1e-6));
  CHECK(gb200_built_in.k_half.value == doctest::Approx(gb200.at("k_half").at("value").get<double>()).epsilon(1e-6));
  // Nor a GB300 one: its built-in attention rates are calibrate's fit of cuDNN frontend's GB300 runs.
  const auto gb300_profile = dir / "gb300.json";
  REQUIRE(calibrate("'" + root + "/calibration/published/gb300_attention_cudnn-frontend.jsonl' --gpu gb300 --out '" +
                    gb300_profile.string() + "'")
              .exit_code == 0);
  const json gb300 = json::parse(read_text(gb300_profile)).at("compute");
  const clustersim::models::ComputeProfile gb300_built_in = clustersim::models::default_compute_profile("gb300");
  CHECK(gb300_built_in.attention_cudnn_efficiency.value ==
        doctest::Approx(gb300.at("attention_cudnn_efficiency").at("value").get<double>()).epsilon(1e-9));
  CHECK(gb300_built_in.attention_efficiency.value ==
        doctest::Approx(gb300.at("attention_efficiency").at("value").get<double>()).epsilon(1e-9));
}

TEST_CASE("calibrate: nvfp4 GEMM records give the profile its FP4 efficiency, which a run then takes") {
  // The GB200's two cuBLASLt FP4 cubes (Azure ND GB200 v6, measurements.md 2.2) beside its FP8 rows.
  const auto dir = scratch();
  const auto records = dir / "gb200_fp4.jsonl";
  const std::string root = CLUSTERSIM_SOURCE_DIR;
  std::string text = read_text(root + "/calibration/published/gb200_compute.jsonl");
  text += "{\"bench\": \"gemm\", \"m\": 8192, \"n\": 8192, \"k\": 8192, \"dtype\": \"nvfp4\", \"tflops\": 7535.6}\n";
  text += "{\"bench\": \"gemm\", \"m\": 16384, \"n\": 16384, \"k\": 16384, \"dtype\": \"nvfp4\", \"tflops\": 7627.6}\n";
  std::ofstream(records) << text;
  const auto profile = dir / "gb200_fp4.json";
  const Outcome fit = calibrate("'" + records.string() + "' --gpu gb200 --out '" + profile.string() + "'");
  REQUIRE(fit.exit_code == 0);
  CHECK(fit.out.find("e_max nvfp4") != std::string::npos);
  const json compute = json::parse(read_text(profile)).at("compute");
  REQUIRE(compute.contains("gemm_max_efficiency_fp4"));
  const double e_fp4 = compute.at("gemm_max_efficiency_fp4").at("value").get<double>();
  // 7,536 and 7,628 TF/s of 10,000 over fills of about 0.99 and k fills of 0.91 and 0.95.
  CHECK(e_fp4 > 0.78);
  CHECK(e_fp4 < 0.86);
  // Without nvfp4 records the profile says nothing of FP4 (the round trip of the bundled ones).
  const auto plain = dir / "gb200_plain.json";
  REQUIRE(calibrate("'" + root + "/calibration/published/gb200_compute.jsonl' --gpu gb200 --out '" + plain.string() + "'")
              .exit_code == 0);
  CHECK_FALSE(json::parse(read_text(plain)).at("compute").contains("gemm_max_efficiency_fp4"));
}

TEST_CASE("calibrate: the bf16 GEMM's held clock over its first second's is the sustained clock ratio") {
  // clock_under_load.py's form: back-to-back bf16 GEMMs fall from 1980 to 1590 MHz at the 700 W
  // limit, back-to-back attention holds 1900: the ratio is 1590 / 1980 = 0.803, attention's
  // 1900 / 1980 = 0.960 is reported beside it, and its clock factor is 1900 / 1590 = 1.195.
  const auto dir = scratch();
  const auto input = dir / "clock.jsonl";
  std::ofstream(input) << "{\"bench\":\"device\",\"name\":\"NVIDIA H200\",\"sm_count\":132}\n"
                          "{\"bench\":\"clock\",\"work\":\"gemm\",\"dtype\":\"bf16\",\"kernel\":\"matmul\",\"tflops\":702,"
                          "\"sm_mhz_first_s\":1980,\"sm_mhz\":1590,\"power_w\":699,\"power_limit_w\":700}\n"
                          "{\"bench\":\"clock\",\"work\":\"attention\",\"kernel\":\"sdpa flash2\",\"tflops\":300,"
                          "\"sm_mhz_first_s\":1980,\"sm_mhz\":1900,\"power_w\":610,\"power_limit_w\":700}\n";
  const auto profile = dir / "clock-profile.json";
  const Outcome outcome = calibrate("'" + input.string() + "' --json --out '" + profile.string() + "'");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json report = json::parse(outcome.out);
  const json written = json::parse(read_text(profile));
  const json& ratio = written.at("compute").at("sustained_clock_ratio");
  CHECK(ratio.at("value").get<double>() == doctest::Approx(1590.0 / 1980.0));
  CHECK(ratio.at("source").get<std::string>().starts_with("measured: SM clock of back-to-back bf16 GEMMs"));
  const json& factor = written.at("compute").at("attention_clock_factor");
  CHECK(factor.at("value").get<double>() == doctest::Approx(1900.0 / 1590.0));
  CHECK(factor.at("source").get<std::string>().starts_with("measured: held / first-second SM clock of back-to-back "
                                                           "attention over the bf16 GEMMs' 0.803, mean of 1 run(s)"));
  REQUIRE(report.at("clocks").size() == 2);
  CHECK(report.at("clocks")[1].at("held").get<double>() == doctest::Approx(1900.0 / 1980.0));
  bool noted = false;
  for (const auto& note : report.at("notes"))
    noted = noted || note.get<std::string>().starts_with("clock: sdpa flash2 held 1900 MHz, 0.960 of its first "
                                                         "second's, at 610 W: 1.195 of the bf16 GEMMs' 0.803");
  CHECK(noted);

  // Without an attention record the factor keeps the GPU's built-in value, and says so.
  std::ofstream(input) << "{\"bench\":\"device\",\"name\":\"NVIDIA H200\",\"sm_count\":132}\n"
                          "{\"bench\":\"clock\",\"work\":\"gemm\",\"dtype\":\"bf16\",\"kernel\":\"matmul\",\"tflops\":702,"
                          "\"sm_mhz_first_s\":1980,\"sm_mhz\":1590,\"power_w\":699,\"power_limit_w\":700}\n";
  const Outcome gemm_only = calibrate("'" + input.string() + "' --json --out '" + profile.string() + "'");
  REQUIRE(gemm_only.exit_code == 0);
  const json kept = json::parse(read_text(profile)).at("compute").at("attention_clock_factor");
  CHECK(kept.at("value").get<double>() == 1.0);
  CHECK(kept.at("source").get<std::string>().starts_with("built-in, not calibrated here: assumed: attention throttles"));
  fs::remove_all(scratch());
}

TEST_CASE("calibrate: attention runs with dropout give its share and stay out of the kernel's rate") {
  // cuDNN at two call sizes without dropout (the rate's fit), and the larger again with dropout
  // 0.1 at 400 TF/s against 500: the same FLOPs in 500 / 400 = 1.25 x the time. A dropout run of a
  // shape measured only with dropout has no partner and is reported, even where another shape
  // without dropout has its FLOPs (4 x 2048^2 = 1 x 4096^2).
  const auto dir = scratch();
  const auto input = dir / "attention.jsonl";
  const std::string shape = "\"causal\":true,\"heads\":16,\"head_dim\":128,\"kernel\":\"torch sdpa cudnn\"";
  std::ofstream(input) << "{\"bench\":\"device\",\"name\":\"NVIDIA H200\",\"sm_count\":132}\n"
                       << "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"batch\":1,\"seq\":4096,\"tflops\":400," << shape << "}\n"
                       << "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"batch\":2,\"seq\":8192,\"tflops\":500," << shape << "}\n"
                       << "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"batch\":2,\"seq\":8192,\"tflops\":400,\"dropout\":0.1,"
                       << shape << "}\n"
                       << "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"batch\":4,\"seq\":2048,\"tflops\":300,\"dropout\":0.1,"
                       << shape << "}\n";
  const auto profile = dir / "dropout-profile.json";
  const Outcome outcome = calibrate("'" + input.string() + "' --json --out '" + profile.string() + "'");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json compute = json::parse(read_text(profile)).at("compute");
  // The pair: 1.25 x the time of the call at 500 of the H200's 989 TF/s without dropout, so
  // dropout adds 0.25 x 989 / 500 of a peak FLOP's time per FLOP.
  const json& share = compute.at("attention_dropout_share");
  CHECK(share.at("value").get<double>() == doctest::Approx(0.25 * 989.0 / 500.0));
  CHECK(share.at("source").get<std::string>().starts_with("measured: (time with dropout / time without - 1)"));
  // The rate is the two runs without dropout's: W / rate + t0 through both exactly, so the
  // dropout runs would pull it down. Its W: 4 b h s^2 d / 2 x 3.5.
  const auto w = [](double b, double seq) { return 4.0 * b * 16.0 * seq * seq * 128.0 / 2.0 * 3.5; };
  const double t1 = w(1, 4096) / 400e12, t2 = w(2, 8192) / 500e12;
  const double rate = (w(2, 8192) - w(1, 4096)) / (t2 - t1);
  CHECK(compute.at("attention_cudnn_efficiency").at("value").get<double>() == doctest::Approx(rate / 989e12));
  bool paired = false, unpaired = false;
  const json report = json::parse(outcome.out);
  for (const auto& note : report.at("notes")) {
    const std::string text = note.get<std::string>();
    paired = paired || text.starts_with("attention: with dropout 0.1 the call of line 4 takes 1.250 x its time without (line 3, at 0.506 of the bf16 peak)");
    unpaired = unpaired || text.starts_with("attention: the dropout 0.1 run of line 5 has no run of its kernel and shape");
  }
  CHECK(paired);
  CHECK(unpaired);
  fs::remove_all(scratch());
}

TEST_CASE("calibrate: a one-GPU log gives NCCL's per-call cost from its out-of-place times") {
  // calibration/measured/h200-2026-11-30/nccl_all_reduce.txt, one rank: out-of-place times of the
  // 14 sizes 8 B .. 64 KiB are 9.08 9.35 9.10 9.00 8.70 8.85 9.11 8.90 9.15 9.58 8.84 9.19 9.77
  // 9.38 us, mean 9.143; the slope adds at most 64 KiB / 2 TB/s = 0.03 us. In-place calls take
  // 1.7 us (NCCL does nothing on one rank) and must not be what is fitted.
  const std::string log = std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/measured/h200-2026-11-30/nccl_all_reduce.txt";
  const auto profile = scratch() / "one-rank.json";
  const Outcome outcome = calibrate("'" + log + "' --gpu h200-sxm --json --note 'one H200' --out '" + profile.string() + "'");
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  const json report = json::parse(outcome.out);
  REQUIRE(report.at("single_rank").size() == 1);
  const json& fit = report.at("single_rank")[0];
  CHECK(fit.at("op") == "all_reduce");
  CHECK(fit.at("alpha_us").get<double>() == doctest::Approx(9.143).epsilon(0.02));
  // 8 GiB out of place in 3990.5 us.
  CHECK(fit.at("copy_gb_per_s").get<double>() == doctest::Approx(8589934592.0 / 3990.5 / 1e3).epsilon(1e-6));
  CHECK(report.at("collectives").empty());
  const json written = json::parse(read_text(profile));
  CHECK(written.at("comm").at("launch_latency_s").at("value").get<double>() == doctest::Approx(fit.at("alpha_us").get<double>() * 1e-6));
  CHECK(written.at("comm").at("launch_latency_s").at("source").get<std::string>().starts_with("measured: mean per-call cost"));
  CHECK(written.at("metadata").at("note") == "one H200");
  for (const auto& argument : written.at("metadata").at("arguments")) CHECK(argument != "one H200");
  fs::remove_all(scratch());
}

TEST_CASE("calibrate: the bundled profiles carry the published numbers") {
  const auto load = [](const std::string& gpu) {
    return json::parse(read_text(fs::path(CLUSTERSIM_SOURCE_DIR) / "calibration/profiles" / (gpu + ".json")));
  };
  const auto value = [](const json& profile, const std::string& group, const std::string& name) {
    return profile.at(group).at(name).at("value").get<double>();
  };
  const json a100 = load("a100-80gb"), h200 = load("h200-sxm"), b200 = load("b200");
  // measurements.md 1.3: A100 all-reduce 234.89 GB/s at 16 GiB over NVLink 3's 300 GB/s.
  CHECK(value(a100, "comm", "nvlink_efficiency") == doctest::Approx(234.89 / 300.0).epsilon(0.01));
  // measurements.md 1.4: 4 x 8 B200, 381.80 GB/s at 16 GiB over 8 x 400 Gb/s = 400 GB/s per node.
  CHECK(value(b200, "comm", "network_efficiency") == doctest::Approx(381.80 / 400.0).epsilon(0.01));
  // measurements.md 1.3: one-node B200 845.67 GB/s busbw at 16 GiB, an NVLS all-reduce on 8 GPUs:
  // algbw 845.67 / 1.75 over NVLink 5's 900 GB/s.
  CHECK(value(b200, "comm", "nvls_algbw_efficiency") == doctest::Approx(845.67 / 1.75 / 900.0).epsilon(0.01));
  // No Blackwell bf16 GEMM is published by shape: bf16 keeps MAMF's best shape, 1745.0 of 2250 TF/s
  // (measurements.md 2.1), unfitted.
  CHECK(value(b200, "compute", "gemm_max_efficiency_bf16") == doctest::Approx(1745.0 / 2250.0));
  // FP8 is fitted to the GB200's cuBLASLt rows by shape (measurements.md 2.2), taken as the B200's
  // own TF/s (compute_profile.cpp: on one MLPerf job the B200 ran at 0.98 of the GB200's pace): at
  // 16384^3, 2906.9 TF/s, 64 x 128 = 8192 tiles of 128 x 256 in 56 waves of 148 SMs (fill 8192 /
  // 8288) and k_fill 16384 / (16384 + k_half), the fitted model lands within its few-percent rms.
  const double k_half = value(b200, "compute", "k_half");
  CHECK(value(b200, "compute", "gemm_max_efficiency_fp8") * 4500.0 * (8192.0 / 8288.0) * (16384.0 / (16384.0 + k_half)) ==
        doctest::Approx(2906.9).epsilon(0.05));
  // measurements.md 2.2: H200 STREAM copy 4.01 TB/s of 4.8.
  CHECK(value(h200, "compute", "hbm_efficiency") == doctest::Approx(4.01 / 4.8));
  // Attention by kernel, fitted by call size: each kernel's rate per further FLOP lies above the
  // throughput of its largest call, which still carries the call's fixed time (on the H200, cuDNN
  // 495.05 TF/s of 989 and PyTorch's FlashAttention-2 279.31; the flash-attn package's 325.6 in the
  // FlashAttention-3 paper), and FlashAttention-2's builds below cuDNN's, PyTorch's below the package's.
  CHECK(value(h200, "compute", "attention_cudnn_efficiency") > 495.05 / 989.0);
  CHECK(value(h200, "compute", "attention_sdpa_flash_efficiency") > 279.31 / 989.0);
  CHECK(value(h200, "compute", "attention_efficiency") > 325.6 / 989.0);
  CHECK(value(h200, "compute", "attention_sdpa_flash_efficiency") < value(h200, "compute", "attention_efficiency"));
  CHECK(value(h200, "compute", "attention_efficiency") < value(h200, "compute", "attention_cudnn_efficiency"));
}

TEST_CASE("calibrate: the report prints the overlap estimates and constants") {
  const fs::path records = scratch() / "overlap-report.jsonl";
  std::ofstream(records) << clustersim::test::kOverlapRecords;
  const Outcome outcome = calibrate("'" + records.string() + "' --gpu h100-sxm --out '" + (scratch() / "overlap.json").string() + "'");
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out.find("Overlap: victim kernels alone and beside a transfer") != std::string::npos);
  CHECK(outcome.out.find("/overlap/sms_held") != std::string::npos);
  // 26.4 SMs, 16.4 either side (overlap_records.hpp works both out by hand).
  CHECK(outcome.out.find("26.4 [10, 42.8]") != std::string::npos);
}

}  // namespace
