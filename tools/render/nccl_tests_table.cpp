#include "tools/render/nccl_tests_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "models/comm/flow_collectives.hpp"
#include "models/comm/flow_network.hpp"
#include "sim/engine.hpp"
#include "sim/task_graph.hpp"

namespace clustersim::tools {

namespace {

constexpr std::int64_t kFloatBytes = 4;
// The gather/scatter kinds round each rank's share down to 16 bytes (nccl-tests'
// *GetCollByteCount: (count / nranks) & -(16 / element size)): 4 floats.
constexpr std::int64_t kAlignFloats = 16 / kFloatBytes;
// nccl-tests' defaults (common.cu): -w 5 warm-up iterations, -n 20 timed ones, -c 1 data check.
constexpr int kDefaultWarmupIters = 5;
constexpr int kDefaultIters = 20;

bool per_rank_count(models::CollectiveOp op) {
  return op == models::CollectiveOp::all_gather || op == models::CollectiveOp::reduce_scatter ||
         op == models::CollectiveOp::all_to_all;
}

std::string_view test_name(models::CollectiveOp op) {
  switch (op) {
    case models::CollectiveOp::all_reduce: return "all_reduce";
    case models::CollectiveOp::all_gather: return "all_gather";
    case models::CollectiveOp::reduce_scatter: return "reduce_scatter";
    case models::CollectiveOp::all_to_all: return "alltoall";
    case models::CollectiveOp::send_recv: return "sendrecv";
  }
  return "";
}

// all_gather_perf and alltoall_perf pass "none"; the others print their -o operation, sum by
// default (sendrecv_perf too, though it reduces nothing).
std::string_view redop(models::CollectiveOp op) {
  return op == models::CollectiveOp::all_gather || op == models::CollectiveOp::all_to_all ? "none" : "sum";
}

// One nccl-tests call on the flow fidelity: the collective over ranks 0..n-1 lowered to routed
// transfers (send/receive: every rank to the next, as sendrecv_perf does), run on the engine.
double flow_time_s(models::CollectiveOp op, double bytes, std::int64_t ranks, models::FlowNetwork& network,
                   const models::StepInputs& inputs) {
  models::FlowLowering lowering(network, 0);
  sim::TaskGraph graph;
  std::vector<std::int64_t> all(static_cast<std::size_t>(ranks));
  for (std::int64_t r = 0; r < ranks; ++r) all[static_cast<std::size_t>(r)] = r;
  if (op == models::CollectiveOp::send_recv) {
    std::vector<std::array<std::int64_t, 2>> pairs;
    for (std::int64_t r = 0; r < ranks; ++r) pairs.push_back({r, (r + 1) % ranks});
    for (const auto& pair : pairs) {
      models::lower_collective(graph, lowering, {.op = op, .bytes = bytes, .ranks = pair}, inputs.cluster, inputs.comm);
    }
  } else {
    models::lower_collective(graph, lowering, {.op = op, .bytes = bytes, .ranks = all}, inputs.cluster, inputs.comm);
  }
  return sim::Engine(network.resources()).run(graph).makespan.seconds();
}

}  // namespace

NcclTestsRun predict_nccl_tests_run(models::CollectiveOp op, std::int64_t nodes, std::int64_t min_bytes,
                                    std::int64_t max_bytes, double factor, const models::StepInputs& inputs) {
  const models::ClusterSpec& cluster = inputs.cluster;
  NcclTestsRun run{.op = op, .nodes = nodes, .ranks = nodes * cluster.gpus_per_node,
                   .gpus_per_node = cluster.gpus_per_node, .gpu = cluster.gpu.name, .fidelity = {}, .factor = factor,
                   .min_bytes = min_bytes, .max_bytes = max_bytes, .rows = {},
                   .avg_busbw_gbps = 0.0};
  const models::CommGroup group =
      op == models::CollectiveOp::send_recv
          ? models::CommGroup{.ranks = 2, .ranks_per_node = run.ranks <= models::nvlink_domain(cluster) ? 2 : 1}
          : models::CommGroup{.ranks = run.ranks, .ranks_per_node = std::min(run.ranks, models::nvlink_domain(cluster))};
  const bool flow = inputs.fidelity == models::CommFidelity::flow;
  run.fidelity = flow ? "flow" : "analytic";
  if (!flow) run.basis = models::collective_basis(op, group, cluster, inputs.comm);
  std::optional<models::FlowNetwork> network;
  if (flow) network.emplace(cluster, inputs.comm);
  double busbw_sum = 0.0;
  for (double size = static_cast<double>(min_bytes); size <= static_cast<double>(max_bytes) * (1.0 + 1e-12);
       size *= factor) {
    // nccl-tests rounds each size down to whole elements (per rank, 16-byte aligned, for the
    // gather/scatter kinds) and prints the larger of the send and receive buffers.
    const std::int64_t elements = static_cast<std::int64_t>(size) / kFloatBytes;
    const std::int64_t count =
        per_rank_count(op) ? elements / run.ranks / kAlignFloats * kAlignFloats : elements;
    const std::int64_t bytes = count * kFloatBytes * (per_rank_count(op) ? run.ranks : 1);
    if (bytes == 0) continue;
    if (!run.rows.empty() && run.rows.back().size_bytes == bytes) continue;
    const double seconds = flow ? flow_time_s(op, static_cast<double>(bytes), run.ranks, *network, inputs)
                                : models::collective_time_s(op, static_cast<double>(bytes), group, cluster, inputs.comm);
    NcclTestsRow row{.size_bytes = bytes, .count = count, .time_us = seconds * 1e6, .algbw_gbps = 0.0,
                     .busbw_gbps = 0.0};
    if (seconds > 0.0) {
      row.algbw_gbps = static_cast<double>(bytes) / seconds / 1e9;
      row.busbw_gbps = row.algbw_gbps * models::bus_factor(op, run.ranks);
    }
    busbw_sum += row.busbw_gbps;
    run.rows.push_back(row);
  }
  if (!run.rows.empty()) run.avg_busbw_gbps = busbw_sum / static_cast<double>(run.rows.size());
  return run;
}

std::string nccl_tests_time_text(double us) {
  // nccl-tests' BenchTime: four significant digits or so in a 7-character column.
  if (us >= 10000.0) return fmt::sprintf("%7.0f", us);
  if (us >= 100.0) return fmt::sprintf("%7.1f", us);
  return fmt::sprintf("%7.2f", us);
}

std::string nccl_tests_bandwidth_text(double gbps) { return fmt::sprintf("%6.2f", gbps); }

std::string nccl_tests_text(const NcclTestsRun& run, const std::string& scenario_name) {
  // The lines nccl-tests prints, in its order and widths (see the header); the rank lines stand for
  // one process per node running -g GPUS_PER_NODE, as an MPI launch of nccl-tests usually does.
  std::string text = fmt::sprintf(
      "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %s(factor) warmup iters: %d iters: %d agg iters: %d "
      "validation: %d graph: %d\n",
      1, run.gpus_per_node, run.min_bytes, run.max_bytes, fmt::format("{}", run.factor), kDefaultWarmupIters,
      kDefaultIters, 1, 1, 0);
  text += "#\n# Using devices\n";
  for (std::int64_t rank = 0; rank < run.ranks; ++rank) {
    const std::int64_t node = rank / run.gpus_per_node;
    text += fmt::sprintf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s\n", rank, 0, node,
                         fmt::format("node{}", node), rank % run.gpus_per_node, 0, run.gpu);
  }
  text += "#\n";
  text += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
                       "", "", "", "", "");
  text += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count", "type",
                       "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  text += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "",
                       "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  for (const auto& row : run.rows) {
    // Both placements carry the one prediction; #wrong is 0, as a validated run prints it.
    const std::string timing = fmt::sprintf("  %7s  %6s  %6s  %5g", nccl_tests_time_text(row.time_us),
                                            nccl_tests_bandwidth_text(row.algbw_gbps),
                                            nccl_tests_bandwidth_text(row.busbw_gbps), 0.0);
    text += fmt::sprintf("%12li  %12li  %8s  %6s  %6s", row.size_bytes, row.count, "float", redop(run.op),
                         fmt::sprintf("%6i", -1)) +
            timing + timing + "\n";
  }
  text += fmt::sprintf("# Out of bounds values : %d %s\n", 0, "OK");
  text += fmt::sprintf("# Avg bus bandwidth    : %g %s\n", run.avg_busbw_gbps, "");
  text += "#\n";
  // clustersim's own lines, after the table, so that a diff against a real log lines up above.
  text += fmt::format("# clustersim collective: predicted output of {}_perf -b {} -e {} -f {} -g {}, {} process(es) on {} "
                      "node(s) of {} {}\n",
                      test_name(run.op), run.min_bytes, run.max_bytes, run.factor, run.gpus_per_node, run.nodes,
                      run.nodes, run.gpus_per_node, run.gpu);
  text += fmt::format("# clustersim scenario: {}, {} fidelity\n", scenario_name, run.fidelity);
  if (!run.constants.empty()) text += fmt::format("# clustersim communication constants: {}\n", run.constants);
  if (!run.basis.empty()) text += fmt::format("# clustersim priced from: {}\n", run.basis);
  text += "# clustersim: times are predicted, not measured; both placements carry the one prediction; #wrong 0 "
          "checks nothing (no data is moved); the Rank lines stand for the scenario's nodes\n";
  return text;
}

nlohmann::ordered_json nccl_tests_json(const NcclTestsRun& run, const std::string& scenario_name) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : run.rows) {
    rows.push_back({{"size_bytes", row.size_bytes},
                    {"count", row.count},
                    {"type", "float"},
                    {"time_us", row.time_us},
                    {"algbw_gbps", row.algbw_gbps},
                    {"busbw_gbps", row.busbw_gbps}});
  }
  nlohmann::ordered_json basis = nullptr;  // the flow fidelity routes every collective as flows
  if (!run.basis.empty()) basis = run.basis;
  return {{"scenario", scenario_name},   {"op", test_name(run.op)},     {"gpu", run.gpu},
          {"nodes", run.nodes},          {"ranks", run.ranks},          {"gpus_per_node", run.gpus_per_node},
          {"fidelity", run.fidelity},      {"constants", run.constants},  {"basis", std::move(basis)},
          {"rows", std::move(rows)},     {"avg_busbw_gbps", run.avg_busbw_gbps}};
}

}  // namespace clustersim::tools
