#pragma once
/// A predicted nccl-tests run: the sizes nccl-tests would time for `-b MIN -e MAX -f FACTOR` on
/// float elements, each with the step model's collective time, algbw and busbw as nccl-tests
/// defines them (algbw = size / time, busbw = algbw x bus factor; GB/s = 1e9 B/s), and the text
/// and JSON renderings. The text follows nccl-tests' table (out-of-place and in-place columns,
/// `# Avg bus bandwidth` at the end) so that a real log and a prediction diff line by line; both
/// placements carry the one prediction.
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
  double factor = 2.0;
  std::vector<NcclTestsRow> rows{};
  double avg_busbw_gbps = 0.0;
};

NcclTestsRun predict_nccl_tests_run(models::CollectiveOp op, std::int64_t nodes, std::int64_t min_bytes,
                                    std::int64_t max_bytes, double factor, const models::StepInputs& inputs);

std::string nccl_tests_text(const NcclTestsRun& run, const std::string& scenario_name);
nlohmann::ordered_json nccl_tests_json(const NcclTestsRun& run, const std::string& scenario_name);

}  // namespace clustersim::tools
