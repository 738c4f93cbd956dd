// The issue's reproducers for input files, through the binary: nesting, numbers out of range,
// NUL bytes, control characters in keys, calibration inputs from another GPU.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/calibration/calibration_fixtures.hpp"
#include "tests/tools/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using clustersim::test::check_fails_cleanly;
using clustersim::test::run_clustersim;
using clustersim::test::TempDir;

std::string write_input(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string deep(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST_CASE("cli inputs: 100,000-deep arrays are refused, in a scenario and in sweep --configs") {
  const TempDir dir;
  const std::string scenario = write_input(dir, "deep.json", deep(100'000));
  check_fails_cleanly(run_clustersim("run '" + scenario + "'"), scenario + ": nested deeper than 64 levels at line 1, column 65");
  const std::string configs = write_input(dir, "configs.json", deep(100'000));
  check_fails_cleanly(run_clustersim("sweep --configs '" + configs + "'"), configs + ": nested deeper than 64 levels");
  check_fails_cleanly(run_clustersim("run --set 'training.tokens=" + deep(1000) + "'"), "nested deeper than 64 levels");
}

TEST_CASE("cli inputs: 1e999 and 1e309 name the pointer and the rule") {
  check_fails_cleanly(run_clustersim("run --set training.tokens=1e999"),
                      "--set training.tokens=1e999: /training/tokens: must be a finite number (a double), got 1e999");
  const TempDir dir;
  const std::string scenario = write_input(dir, "s.json", R"({"model": {"preset": "llama3-8b"}, "training": {"tokens": 1e309}})");
  check_fails_cleanly(run_clustersim("run '" + scenario + "'"),
                      scenario + ": /training/tokens: must be a finite number (a double), got 1e309");
}

TEST_CASE("cli inputs: garbage after a NUL byte is refused, a NUL key does not cut the message") {
  const TempDir dir;
  using namespace std::string_literals;
  const std::string nul = write_input(dir, "nul.json", "{\"model\": {\"preset\": \"llama3-8b\"}}\0garbage"s);
  check_fails_cleanly(run_clustersim("run '" + nul + "'"), nul + ": a NUL byte at line 1, column 35 (JSON text holds none)");
  const std::string key = write_input(dir, "key.json", R"({"model": {"preset": "llama3-8b"}, "\u0000\u001b[2J": 1})");
  const auto outcome = run_clustersim("run '" + key + "'");
  check_fails_cleanly(outcome, key + ": /\\u0000\\u001b[2J: unknown key");
  CHECK(outcome.err.find('\0') == std::string::npos);
  CHECK(outcome.err.find('\x1b') == std::string::npos);
}

TEST_CASE("cli inputs: calibrate refuses a --gpu that is not the GPU the logs were measured on") {
  const TempDir dir;
  const std::string log = write_input(dir, "h100.txt",
                                clustersim::calibration::test::nccl_log(
                                    8, 8, {"     8388608       2097152     float     sum      -1   100.00   83.89  146.81      0   "
                                           "100.00   83.89  146.81      0"}));
  check_fails_cleanly(run_clustersim("calibrate '" + log + "' --gpu a100-80gb --out '" + dir / "p.json" + "'"),
                      "--gpu a100-80gb (Ampere GA100): the inputs were measured on \"NVIDIA H100 80GB HBM3\" "
                      "(h100-sxm, Hopper GH100)");
  CHECK_FALSE(fs::exists(dir / "p.json"));
  // Another preset of the same die is a refinement, not a mismatch.
  const std::string h100 = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/calibration/data/h100_1n8g_allreduce_nccl-tests-290.txt";
  const auto same_chip = run_clustersim("calibrate '" + h100 + "' --gpu h100-96gb-500w --out '" + dir / "p.json" + "'");
  CHECK(same_chip.exit_code == 0);
  // The measured H200 logs.
  const std::string h200 = std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/measured/h200-2026-11-30/nccl_all_reduce.txt";
  check_fails_cleanly(run_clustersim("calibrate '" + h200 + "' --gpu a100-80gb --out '" + dir / "q.json" + "'"),
                      "(h200-sxm, Hopper GH100): calibrate them with --gpu h200-sxm, or leave --gpu out");
}

TEST_CASE("cli inputs: a validation CSV with a column twice is refused naming file and line") {
  const TempDir dir;
  const std::string csv = write_input(dir, "runs.csv", "id,id\nx,y\n");
  check_fails_cleanly(run_clustersim("validate '" + csv + "'"), csv + ":1: column \"id\" appears twice (fields 1 and 2)");
}

}  // namespace
