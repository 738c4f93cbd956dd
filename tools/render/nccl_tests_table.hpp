#pragma once
/// A predicted nccl-tests run: the sizes nccl-tests would time for `-b MIN -e MAX -f FACTOR` on
/// float elements, each with the step model's collective time, algbw and busbw as nccl-tests
/// defines them (algbw = size / time, busbw = algbw x bus factor; GB/s = 1e9 B/s), and the text
/// and JSON renderings. The text is what nccl-tests prints, line for line and column for column, so
/// that a real log and a prediction diff line by line: the "# nThread" line first (with nccl-tests'
/// defaults: 5 warm-up and 20 timed iterations, data check on), "# Using devices" and one
/// "#  Rank" line per rank, the two-line column header with out-of-place and in-place, the rows
/// (time in a 7-wide column with 2 decimals below 100 us, 1 below 10,000 us, none above; algbw and
/// busbw with 2; #wrong 0), "# Out of bounds values", "# Avg bus bandwidth" (%g). clustersim's own
/// lines (the command it predicts, scenario, constants) follow as "# clustersim ..." comments, after
/// the table. Both placements carry the one prediction. Layout source: NVIDIA/nccl-tests
/// src/common.cu and src/*_perf's *GetCollByteCount at v2.13.13 (commit cb6a46fdd677783e), the
/// same through v2.16.6 but for the device line's PCI address. Later versions differ: v2.16.7 adds
/// "# Collective test starting: NAME" before "# nThread"; v2.17.3 (JSON output) prints the numbers
/// through getFloatStr (util.cu), whose decimals follow the integer digits, and widens #wrong;
/// v2.19.6 changes getFloatStr again.
/// Not printed: rows of 0 bytes (sizes below one element per rank), which nccl-tests times.
/// Ranks: one per GPU of `nodes` whole nodes. Send/receive is one pair, as nccl-tests' sendrecv
/// pattern is paced by its slowest hop: across nodes when there are several, else over NVLink.
/// Fidelity: the scenario's. `flow` lowers each call to routed transfers on the cluster network
/// (models/comm/flow_collectives.hpp), failed cables included, and runs it on the engine.
/// Limitations: float elements only; flow times follow the link rates and latencies, not the
/// profile's measured curves.
/// Source: nccl-tests PERFORMANCE.md (algbw, busbw, bus factors) and its table layout.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/comm/collectives.hpp"
#include "models/step/step_model.hpp"

namespace clustersim::tools {

struct NcclTestsRow {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;  // elements, as nccl-tests prints them (per rank for gather/scatter kinds)
  double time_us = 0.0;
  double algbw_gbps = 0.0;
  double busbw_gbps = 0.0;
};

struct NcclTestsRun {
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::int64_t nodes = 1;
  std::int64_t ranks = 1;
  std::int64_t gpus_per_node = 1;
  std::string gpu{};
  std::string fidelity{};  // "analytic" or "flow"
  std::string constants{};  // which constants priced it (calibration::communication_constants)
  std::string basis{};      // what of them priced it (models::collective_basis; analytic only)
  double factor = 2.0;
  std::int64_t min_bytes = 0;  // as asked (nccl-tests' -b, -e), before rounding to elements
  std::int64_t max_bytes = 0;
  std::vector<NcclTestsRow> rows{};
  double avg_busbw_gbps = 0.0;
};

NcclTestsRun predict_nccl_tests_run(models::CollectiveOp op, std::int64_t nodes, std::int64_t min_bytes,
                                    std::int64_t max_bytes, double factor, const models::StepInputs& inputs);

/// A time in microseconds as nccl-tests prints it: "%7.2f" below 100, "%7.1f" below 10,000, else "%7.0f".
std::string nccl_tests_time_text(double us);
/// An algbw or busbw in GB/s as nccl-tests prints it: "%6.2f".
std::string nccl_tests_bandwidth_text(double gbps);

std::string nccl_tests_text(const NcclTestsRun& run, const std::string& scenario_name);
nlohmann::ordered_json nccl_tests_json(const NcclTestsRun& run, const std::string& scenario_name);

}  // namespace clustersim::tools
