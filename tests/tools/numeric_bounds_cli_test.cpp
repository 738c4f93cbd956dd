// Reproducers of issue 22 (items 1, 6, 7, 9, 11): numbers out of any physical range, and
// durations simulated time cannot hold, are errors naming the key or quantity (exit 2, stdout
// empty), not negative step times, hangs or allocation failures.

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace {

using clustersim::test::check_fails_cleanly;
using clustersim::test::Outcome;

Outcome cli(const std::string& arguments) { return clustersim::test::run_clustersim(arguments); }

}  // namespace

TEST_CASE("numeric bounds cli: each reproducer of issue 22 is refused where the key is read") {
  struct Case {
    const char* arguments;
    const char* message;
  };
  const Case cases[] = {
      // A negative step time of -6.9e9 s before.
      {"run --set cluster.gpu.bf16_tflops=0.000001",
       "/cluster/gpu/bf16_tflops: must be a number in [1, 100000] TFLOP/s, got 1e-06"},
      {"run --set training.seq_len=400000000", "/training/seq_len: must be an integer in 1..33554432 tokens, got 400000000"},
      {"run --set cluster.nics_per_node=9223372036854775807",
       "/cluster/nics_per_node: must be an integer in 1..8192, got 9223372036854775807"},
      {"run --set cluster.gpu.hbm_gb=5e-324", "/cluster/gpu/hbm_gb: must be a number in [1, 100000] GB, got 5e-324"},
      {"failures --set failures.thermal_slowdown=1.8e19",
       "/failures/thermal_slowdown: must be a number in [0, 10], got 1.8e+19"},
      {"tco --set cost.build.financing_rate=1.8e19",
       "/cost/build/financing_rate: must be a number in [0, 1] 1/year, got 1.8e+19"},
      // Over 4 GiB, then std::bad_alloc, before.
      {"run --set training.global_batch=1000000000",
       "/training/global_batch: must be an integer in 1..1048576 sequences, got 1000000000"},
      // Past 30 s before.
      {"failures --set failures.planned_per_day=1e6",
       "/failures/planned_per_day: must be a number in [0, 24] 1/day, got 1000000.0"},
      {"run --set cluster.num_gpus=4194304", "/cluster/num_gpus: must be an integer in 1..1048576, got 4194304"},
      // "131 of 1960 tasks never finished ... waits for 9165730989327685887 unfinished
      // predecessors" before.
      {"run --set cluster.nic_gbit_per_s=1e-9",
       "/cluster/nic_gbit_per_s: must be a number in [1, 100000] Gbit/s, got 1e-09"},
      // "must be a number in 0..24, got 0" before: the bound is exclusive.
      {"tco --set cost.hours_per_day=0", "/cost/hours_per_day: must be a number in (0, 24] h/day, got 0"},
      {"run --set cluster.gpu.fp8_tflops=0.5", "/cluster/gpu/fp8_tflops: must be 0 or a number in [1, 200000] TFLOP/s"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.arguments);
    const Outcome outcome = cli(c.arguments);
    check_fails_cleanly(outcome, c.message);
    CHECK(outcome.err.find("never finished") == std::string::npos);
  }
  // The bounds are inclusive where they say so, and 0 stays "none" where it means that.
  CHECK(cli("run --set cluster.gpu.bf16_tflops=1 --set training.global_batch=64").exit_code == 0);
  CHECK(cli("tco --set cost.hours_per_day=24 --set cost.build.server_usd=300000 "
            "--set cost.rent.on_demand_usd_per_gpu_hour=2.5").exit_code == 0);
}

TEST_CASE("numeric bounds cli: a duration simulated time cannot hold names the quantity and its inputs") {
  // One forward pass of 2,500 layers of 2^25 tokens at 1 TFLOP/s: about 1e10 s, past the 292
  // years (2^63 ns) of simulated time; the step time wrapped to a negative number before.
  const Outcome pass = cli(
      "run --set cluster.gpu.bf16_tflops=1 --set training.seq_len=33554432 --set model.layers=10000");
  check_fails_cleanly(pass, "step time out of range: the forward pass of stage 0 (one micro-batch) takes ");
  for (const char* input : {"cluster.gpu.bf16_tflops = 1 TFLOP/s", "training.seq_len = 33554432", "model.layers = 10000"}) {
    CHECK(pass.err.find(input) != std::string::npos);
  }
  // Each pass fits, the 128 micro-batches of four stages do not.
  const Outcome step = cli("run --set cluster.gpu.bf16_tflops=1 --set training.seq_len=33554432");
  check_fails_cleanly(step, "step time out of range: the step's work in all");
  CHECK(step.err.find("training.global_batch = 1024 (128 micro-batches a step)") != std::string::npos);
}

TEST_CASE("numeric bounds cli: a step graph too large to hold is refused before it is built") {
  // 8 stages x 131,072 micro-batches: 2^20 chunk passes, each a few tasks of the step's graph.
  check_fails_cleanly(cli("run --set cluster.num_gpus=512 --set parallelism.pp=8 "
                                 "--set training.global_batch=1048576"),
                      "/training/global_batch: pp*vp*micro-batches = 8*1*131072 = 1048576 chunk passes a step: "
                      "at most 524288 are simulated");
  // The flow fidelity's flows cost more a pass: 2^17 passes would take minutes and gigabytes.
  check_fails_cleanly(cli("run --set simulation.fidelity=flow --set training.global_batch=262144"),
                      "/training/global_batch: pp*vp*micro-batches = 4*1*32768 = 131072 chunk passes a step: the "
                      "flow fidelity simulates at most 65536");
}

TEST_CASE("numeric bounds cli: profile constants out of their physical range are refused") {
  const clustersim::test::TempDir dir;
  const auto with = [&](const std::string& section, const std::string& key, double value) {
    auto profile = nlohmann::json::parse(
        clustersim::test::read_text(std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/profiles/h100-sxm.json"));
    profile.at(section).at(key).at("value") = value;
    const std::string path = dir / (key + ".json");
    std::ofstream(path) << profile.dump(2);
    return cli("run --set calibration.profile=" + path);
  };
  // MFU 105 % before.
  check_fails_cleanly(with("compute", "gemm_max_efficiency_bf16", 1e308),
                      "/compute/gemm_max_efficiency_bf16/value: must be a number in (0, 1], got 1e+308");
  // Infinite times before.
  check_fails_cleanly(with("comm", "tree_efficiency", 0.0), "/comm/tree_efficiency/value: must be a number in (0, 1], got 0");
  check_fails_cleanly(with("comm", "network_hop_latency_s", 5.0),
                      "/comm/network_hop_latency_s/value: must be a number in [0, 1], got 5");
  // The bundled profile itself loads.
  CHECK(with("comm", "tree_efficiency", 0.78).exit_code == 0);
}

TEST_CASE("numeric bounds cli: explain prints every numeric key's range with its unit") {
  const Outcome text = cli("explain");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("RANGE") != std::string::npos);
  const auto line_of = [&](const std::string& pointer) {
    const auto at = text.out.find(pointer + " ");
    REQUIRE(at != std::string::npos);
    return text.out.substr(at, text.out.find('\n', at) - at);
  };
  // The unit column, then the range column.
  const auto unit_then_range = [&](const std::string& pointer, const std::string& unit, const std::string& range) {
    const std::string line = line_of(pointer);
    const auto unit_at = line.find(" " + unit + " ");
    REQUIRE(unit_at != std::string::npos);
    CHECK(line.find(" " + range + " ", unit_at + unit.size()) != std::string::npos);
  };
  unit_then_range("/cluster/gpu/bf16_tflops", "TFLOP/s", "[1, 100000]");
  unit_then_range("/cost/hours_per_day", "h/day", "(0, 24]");
  CHECK(line_of("/training/seq_len").find("1..33554432") != std::string::npos);
  CHECK(line_of("/cluster/gpu/fp8_tflops").find("0 or [1, 200000]") != std::string::npos);

  const auto keys = nlohmann::json::parse(cli("explain --json").out).at("keys");
  std::size_t numeric = 0;
  for (const auto& key : keys) {
    if (key.at("type") != "integer" && key.at("type") != "number") continue;
    CAPTURE(key.at("pointer"));
    ++numeric;
    CHECK(key.contains("range"));
    CHECK(key.at("range") != "any");
    if (key.at("pointer") == "/simulation/seed" || key.at("pointer") == "/cluster/failed_links_seed") continue;
    CHECK(key.at("max").is_number());  // every numeric key but the seeds has a finite range
  }
  CHECK(numeric > 80);
  const auto hours = std::find_if(keys.begin(), keys.end(), [](const auto& k) { return k.at("pointer") == "/cost/hours_per_day"; });
  REQUIRE(hours != keys.end());
  CHECK(hours->at("min") == 0);
  CHECK(hours->at("min_exclusive") == true);
  CHECK(hours->at("max") == 24);
}

// AddressSanitizer maps terabytes of shadow memory at start-up, so under an address-space limit an
// instrumented binary cannot even load: the sanitizer build skips this case (GCC says so by
// __SANITIZE_ADDRESS__, clang by __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define CLUSTERSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLUSTERSIM_TEST_ASAN 1
#endif
#endif
#if defined(CLUSTERSIM_TEST_ASAN)
constexpr bool kAddressSpaceLimitApplies = false;
#else
constexpr bool kAddressSpaceLimitApplies = true;
#endif

TEST_CASE("numeric bounds cli: running out of memory is one line naming the command, not std::bad_alloc" *
          doctest::skip(!kAddressSpaceLimitApplies)) {
  // 2^19 chunk passes, the most a step may hold (220 MB), under a 128 MiB address-space limit.
  const Outcome outcome = clustersim::test::run_shell(
      "ulimit -v 131072 && cd '" + std::string(CLUSTERSIM_SOURCE_DIR) + "' && '" + std::string(CLUSTERSIM_BINARY) +
      "' run --set training.global_batch=1048576");
  check_fails_cleanly(outcome, "run: ran out of memory");
  CHECK(outcome.err.find("std::bad_alloc") == std::string::npos);
}
