// Accuracy of the analytic collective model (models/comm/collectives.hpp) against measured all-reduce
// busbw: the published single-node tables (measurements.md 1.1-1.3, transcribed under
// calibration/published/) and the real nccl-tests logs of issues #290 and #309 (copies under
// tests/calibration/data/). Predictions use the bundled profile of the GPU
// (`calibration.profile = "bundled"`), as `clustersim collective --set calibration.profile=bundled`.
// The error is predicted busbw / measured busbw - 1 (= measured time / predicted time - 1).
//
// What holds, and what does not yet:
// - one node, 8 MiB and up: within 10 % of every source;
// - one node at 1-4 MiB: the sources disagree (H100 at 1 MiB: dgxc-benchmarking 67.0 GB/s, Azure
//   ND H100 v5 43.7, 35 % apart; H200 at 4 MiB: Azure ND H200 v5 138.4, ml-engineering 107.2, 29 %
//   apart), so no prediction is within 10 % of both; the bound there is 25 % against each, and the
//   prediction must lie inside the sources' range and within 10 % of their mean time (it is
//   within about 1 %: the bundled curve is the mean of the sources' fits);
// - across nodes, 1 MiB and up: within 10 % of both logs. Large sizes follow the tree family's
//   pipeline (the soft minimum of NVLS inside and the tree between nodes); smaller ones the faster
//   of NCCL's bulk protocol (the node's curve plus a chunk pipeline fill per network step) and its
//   low-latency protocols (the buffer forwarded step by step), which follows the switch near 8 MiB
//   on 8 nodes. The two logs come from different clusters and NCCL versions, and the six
//   constants of that part are fitted to both together (models/comm/collectives.cpp; worst error 6.6 %),
//   so this bound is the fit's residual, not an independent check of it.

#include <doctest/doctest.h>

#include <tuple>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "calibration/apply_profile.hpp"
#include "calibration/raw_inputs.hpp"
#include "models/comm/collectives.hpp"
#include "scenarios/scenario_io.hpp"
#include "calibration/step_inputs.hpp"
#include "tests/calibration/calibration_fixtures.hpp"

namespace {

using namespace clustersim;

struct Measured {
  std::int64_t ranks = 0, ranks_per_node = 0, bytes = 0;
  double time_us = 0.0;
};

std::vector<Measured> measured(const std::string& path) {
  const std::vector<std::string> paths{path};
  const calibration::RawInputs in = calibration::read_raw_inputs(paths, models::CollectiveOp::all_reduce);
  std::vector<Measured> out;
  for (const auto& [key, group] : in.groups) {
    REQUIRE(group.op == models::CollectiveOp::all_reduce);
    for (const auto& p : group.points) out.push_back({group.ranks, group.ranks_per_node, p.bytes, p.time_us});
  }
  return out;
}

models::StepInputs bundled(const std::string& gpu) {
  models::StepInputs inputs = calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=" + gpu}));
  calibration::apply_profile("bundled", inputs);
  return inputs;
}

// Worst |busbw error| over the sizes in [min_bytes, max_bytes].
double worst_error(const std::vector<Measured>& rows, const models::StepInputs& inputs, std::int64_t min_bytes,
                   std::int64_t max_bytes) {
  double worst = 0.0;
  int used = 0;
  for (const auto& m : rows) {
    if (m.bytes < min_bytes || m.bytes > max_bytes) continue;
    const double predicted_us =
        1e6 * models::collective_time_s(models::CollectiveOp::all_reduce, static_cast<double>(m.bytes),
                                        {.ranks = m.ranks, .ranks_per_node = m.ranks_per_node}, inputs.cluster,
                                        inputs.comm);
    const double error = m.time_us / predicted_us - 1.0;
    CAPTURE(m.bytes);
    CAPTURE(error);
    worst = std::max(worst, std::abs(error));
    ++used;
  }
  REQUIRE(used > 0);
  return worst;
}

constexpr std::int64_t MiB = 1 << 20, GiB = std::int64_t{1} << 30, kAll = std::int64_t{1} << 40;

std::string published(const std::string& name) { return std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/published/" + name; }

}  // namespace

TEST_CASE("collective accuracy: one node of 8 H100 or H200, 8 MiB and up, within 10 % of every source") {
  const models::StepInputs h100 = bundled("h100-sxm"), h200 = bundled("h200-sxm");
  for (const auto& [path, inputs] : std::vector<std::pair<std::string, const models::StepInputs*>>{
           {published("h100_1n8g_allreduce_dgxc.txt"), &h100},
           {published("h100_1n8g_allreduce_azure.jsonl"), &h100},
           {calibration::test::data_path("h100_1n8g_allreduce_nccl-tests-290.txt"), &h100},
           {published("h200_1n8g_allreduce_azure.jsonl"), &h200},
           {published("h200_1n8g_allreduce_ml-engineering.jsonl"), &h200}}) {
    const std::string& log = path;  // a plain name: clang 14 cannot capture a structured binding
    CAPTURE(log);
    CHECK(worst_error(measured(path), *inputs, 8 * MiB, kAll) <= 0.10);
    // At 1-4 MiB the sources are up to 35 % apart (see the top of this file).
    CHECK(worst_error(measured(path), *inputs, MiB, kAll) <= 0.25);
  }
}

TEST_CASE("collective accuracy: one node at 1-4 MiB, inside the sources' range and within 10 % of their mean") {
  // Where two or more sources measured a size, the prediction (the mean of the bundled profile's
  // curves) must lie between the fastest and slowest of them and within 10 % of their mean time.
  for (const auto& [gpu, paths] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"h100-sxm", {published("h100_1n8g_allreduce_dgxc.txt"), published("h100_1n8g_allreduce_azure.jsonl"),
                         calibration::test::data_path("h100_1n8g_allreduce_nccl-tests-290.txt")}},
           {"h200-sxm", {published("h200_1n8g_allreduce_azure.jsonl"), published("h200_1n8g_allreduce_ml-engineering.jsonl")}}}) {
    const models::StepInputs inputs = bundled(gpu);
    const std::string& gpu_name = gpu;  // a plain name: clang 14 cannot capture a structured binding
    std::map<std::int64_t, std::vector<double>> by_size;
    for (const auto& path : paths) {
      for (const auto& m : measured(path)) {
        if (m.bytes >= MiB && m.bytes <= 4 * MiB) by_size[m.bytes].push_back(m.time_us);
      }
    }
    int compared = 0;
    for (const auto& entry : by_size) {
      const auto& bytes = std::get<0>(entry);
      const auto& times = std::get<1>(entry);
      if (times.size() < 2) continue;
      const double predicted_us =
          1e6 * models::collective_time_s(models::CollectiveOp::all_reduce, static_cast<double>(bytes),
                                          {.ranks = 8, .ranks_per_node = 8}, inputs.cluster, inputs.comm);
      const auto [fastest, slowest] = std::minmax_element(times.begin(), times.end());
      const double mean = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
      CAPTURE(gpu_name);
      CAPTURE(bytes);
      CHECK(predicted_us >= *fastest);
      CHECK(predicted_us <= *slowest);
      CHECK(std::abs(mean / predicted_us - 1.0) <= 0.10);
      ++compared;
    }
    CHECK(compared >= 2);
  }
}

TEST_CASE("collective accuracy: 2 and 8 nodes of H100 on 400 Gb/s InfiniBand (nccl-tests #309)") {
  const models::StepInputs h100 = bundled("h100-sxm");
  const auto two = measured(calibration::test::data_path("h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt"));
  const auto eight = measured(calibration::test::data_path("h100_8n64g_ib400_allreduce_default_nccl-tests-309.txt"));
  CHECK(worst_error(two, h100, MiB, kAll) <= 0.10);
  CHECK(worst_error(eight, h100, MiB, kAll) <= 0.10);
}

TEST_CASE("collective accuracy: a ring over two nodes runs at 46-48 GB/s per 400 Gb/s NIC") {
  // measurements.md 1.4: the NCCL maintainer's figure for NDR400, NCCL_ALGO=RING on 2 nodes.
  const models::StepInputs h100 = bundled("h100-sxm");
  const double bytes = 8.0 * GiB;
  const double seconds = models::collective_time_s(models::CollectiveOp::all_gather, bytes, {.ranks = 16, .ranks_per_node = 8},
                                                   h100.cluster, h100.comm);
  const double busbw_per_nic = models::bus_factor(models::CollectiveOp::all_gather, 16) * bytes / seconds / 8.0;
  CHECK(busbw_per_nic >= 46e9 * 0.9);
  CHECK(busbw_per_nic <= 48e9 * 1.1);
}
