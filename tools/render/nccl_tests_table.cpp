#include "tools/render/nccl_tests_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "models/comm/flow_collectives.hpp"
#include "models/comm/flow_network.hpp"
#include "sim/engine.hpp"
#include "sim/task_graph.hpp"

namespace clustersim::tools {

namespace {

constexpr std::int64_t kFloatBytes = 4;

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

std::string_view redop(models::CollectiveOp op) {
  return op == models::CollectiveOp::all_reduce || op == models::CollectiveOp::reduce_scatter ? "sum" : "none";
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
                   .gpus_per_node = cluster.gpus_per_node, .gpu = cluster.gpu.name, .fidelity = {}, .factor = factor, .rows = {},
                   .avg_busbw_gbps = 0.0};
  const models::CommGroup group =
      op == models::CollectiveOp::send_recv
          ? models::CommGroup{.ranks = 2, .ranks_per_node = run.ranks <= models::nvlink_domain(cluster) ? 2 : 1}
          : models::CommGroup{.ranks = run.ranks, .ranks_per_node = std::min(run.ranks, models::nvlink_domain(cluster))};
  // nccl-tests rounds each size down to whole elements (per rank, for the gather/scatter kinds).
  const std::int64_t unit = kFloatBytes * (per_rank_count(op) ? run.ranks : 1);
  const bool flow = inputs.fidelity == models::CommFidelity::flow;
  run.fidelity = flow ? "flow" : "analytic";
  std::optional<models::FlowNetwork> network;
  if (flow) network.emplace(cluster, inputs.comm);
  double busbw_sum = 0.0;
  for (double size = static_cast<double>(min_bytes); size <= static_cast<double>(max_bytes) * (1.0 + 1e-12);
       size *= factor) {
    const std::int64_t bytes = static_cast<std::int64_t>(size) / unit * unit;
    if (bytes == 0) continue;
    if (!run.rows.empty() && run.rows.back().size_bytes == bytes) continue;
    const double seconds = flow ? flow_time_s(op, static_cast<double>(bytes), run.ranks, *network, inputs)
                                : models::collective_time_s(op, static_cast<double>(bytes), group, cluster, inputs.comm);
    NcclTestsRow row{.size_bytes = bytes, .count = bytes / unit, .time_us = seconds * 1e6, .algbw_gbps = 0.0,
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

std::string nccl_tests_text(const NcclTestsRun& run, const std::string& scenario_name) {
  std::string text = fmt::format(
      "# clustersim collective: {} predicted for {} ranks ({} node(s) x {} {}), scenario {}, {} fidelity\n",
      test_name(run.op), run.ranks, run.nodes, run.gpus_per_node, run.gpu, scenario_name, run.fidelity);
  if (!run.constants.empty()) text += fmt::format("# communication constants: {}\n", run.constants);
  text += fmt::format(
      "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {}(factor) warmup iters: 0 iters: 0 agg iters: 1 "
      "validation: 0 graph: 0\n#\n# Using devices\n",
      run.rows.empty() ? 0 : run.rows.front().size_bytes, run.rows.empty() ? 0 : run.rows.back().size_bytes, run.factor);
  // One line per rank, as nccl-tests prints them: they tell a reader the rank layout.
  for (std::int64_t rank = 0; rank < run.ranks; ++rank) {
    text += fmt::format("#  Rank {:>2} Group  0 Pid {:>6} on {:>10} device {:>2} [0x00] {}\n", rank, rank,
                        fmt::format("node{}", rank / run.gpus_per_node), rank % run.gpus_per_node, run.gpu);
  }
  text += fmt::format("#\n# collective: {}\n#\n", test_name(run.op));
  text +=
      "#                                                              out-of-place                       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  // nccl-tests prints times with 4 significant digits where they are large.
  const auto time_text = [](double us) { return us >= 10000.0 ? fmt::format("{:.0f}", us) : us >= 1000.0 ? fmt::format("{:.1f}", us) : fmt::format("{:.2f}", us); };
  for (const auto& row : run.rows) {
    const std::string timing =
        fmt::format("{:>8} {:>7.2f} {:>7.2f} {:>6}", time_text(row.time_us), row.algbw_gbps, row.busbw_gbps, "N/A");
    text += fmt::format("{:>12} {:>13} {:>9} {:>7} {:>7} {} {}\n", row.size_bytes, row.count, "float", redop(run.op),
                        -1, timing, timing);
  }
  text += fmt::format("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {:.4g} \n#\n", run.avg_busbw_gbps);
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
  return {{"scenario", scenario_name},   {"op", test_name(run.op)},     {"gpu", run.gpu},
          {"nodes", run.nodes},          {"ranks", run.ranks},          {"gpus_per_node", run.gpus_per_node},
          {"fidelity", run.fidelity},      {"constants", run.constants},  {"rows", std::move(rows)},
          {"avg_busbw_gbps", run.avg_busbw_gbps}};
}

}  // namespace clustersim::tools
