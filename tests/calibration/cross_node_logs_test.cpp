// The standing check of the analytic model across nodes: for every multi-node log transcribed under
// calibration/published/, the worst |busbw error| from 1 MiB up of models::collective_time_s with
// the constants `clustersim collective` uses (the GPU's bundled profile, carried to the log's
// cluster), held under a bound per log: the measured worst plus a little margin, so the test fails
// when the model regresses. A new multi-node log fails here until it has a bound.
// The error is predicted busbw / measured busbw - 1 (= measured time / predicted time - 1).
//
// What holds, and what does not:
// - a100_4n32g_allreduce_jean-zay-omnipath (one size, 4 GB): the source of Omni-Path's fabric
//   efficiency (collectives.cpp), priced on the one NIC a direction its rings used, so the error is
//   the rounding of that constant and the ring's latency terms.
// - b200_4n32g_allreduce_ml-engineering (AWS P6-B200, EFA): a curve of its own layout in the
//   bundled profile, measured under the AWS OFI tuner and so priced on cluster.fabric=efa, where
//   the profile's constants, stated as InfiniBand's class (the bulk efficiency its all-reduce
//   reaches), are carried to EFA's (0.85 / 0.94 of the bandwidth, 1.5 us more a network step):
//   9.6 %, the carry's cost over the fit's residual (2.4 %).
// - h100_*_alltoall_aws-efa (2-32 nodes of p5, 32 MiB-2 GiB, cluster.fabric=efa): its bulk rate
//   reaches 85 % of the 400 Gb/s per GPU. The all-to-all
//   constants (collectives.cpp) are fitted to these five together, so the bounds are residuals. Not
//   within 10 %: worst 14 % on 2 nodes, 12 % on 4, 14 % on 16, 20 % on 32 (8 nodes: 9.3 %):
//   the measured cost beyond the bulk rate grows faster with the node count than one fixed cost
//   plus one per remote peer can follow.
// - h100_*_allreduce_aws-efa (the same 2-32 nodes of p5, 32 MiB-8 GiB): the AWS OFI plugin's tuner
//   picks each size's algorithm and protocol (its regions, models/comm/efa_all_reduce.cpp), and
//   each choice's rate and step latency are fitted to these five logs together, so the bounds are
//   residuals. Not within 10 %: 17 % on 2 and 32 nodes, 15 % on 16 (4 and 8 nodes: 9.1 and 9.2 %),
//   all at NVLSTree Simple, whose fixed cost grows from 0.3 ms on 2 nodes to 3.5 ms on 32 faster
//   than one latency per tree level follows. The InfiniBand-fitted model misses them by up to 49-82 %.
// - a100_2n16g_allreduce_oci-oke (2 nodes of OCI's BM.GPU4.8, 16 x 100 Gb/s RoCE a node, NCCL 2.19):
//   the A100 profile carried to RoCE by the fabric rule, priced as the default algorithms. Not within
//   10 %: the model is 20-22 % slow at 8-16 MiB and 8-12 % slow from 1 GiB, where the log's busbw
//   (238 GB/s) passes what the model gives two nodes' trees on RoCE, and 14 % fast at 512 MiB, a
//   dip of the log's own.
// - b200_{2n16g,4n32g}_sendrecv_together (Together AI's B200 nodes, 8 x 400 Gb/s NDR InfiniBand,
//   NCCL 2.29.7): the source of the point-to-point constants across nodes (CommProfile::
//   p2p_network_latency_s and p2p_network_share), fitted to both, so the bounds are residuals
//   (5.2 % and 3.2 %). sendrecv_perf's ring is as slow as its hops that cross the network, each
//   between two ranks on different nodes.
// - h200_2n16g_allgather_gcp-a3ultra (Google Cloud A3 Ultra, 8 x 400 Gb/s RoCE with Google's gIB
//   plugin): nothing fitted to it; the H200 profile carried to RoCE by the fabric rule: 9.4 %.
// - b200_2n16g_allgather_gcp-a4 (Google Cloud A4, the same network and plugin a release earlier):
//   nothing fitted to it. From 256 MiB the model is 3-8 % slow; below, fast by 16 % at 64 MiB and
//   151 % at 1 MiB, where the log takes 80 us (46 us at 512 KiB, 52 us on the A3 Ultra's H200s at
//   1 MiB): a protocol this release ran at 1-64 MiB that the model has no term for.
// - b200_allgather_together-scaling (the same B200 cluster, 2-46 nodes, the busbw at 16 GiB only):
//   nothing fitted to it. The model is fast by 11 % on 2 nodes, 17 % on 4 and 22-26 % on 8-46: the
//   rings there reach 343 GB/s, 0.86 of the node's 400 GB/s of NICs where the B200 profile's AWS
//   EFA all-reduce reaches 0.954 (NCCL's maintainers expect 48-49 GB/s of an NDR NIC, 0.96-0.98:
//   nccl-tests #267), and lose more as they span more nodes (their sendrecv hops fall to 26 GB/s on
//   8 nodes and 15 from 16: the cluster's fabric, which the non-blocking default is not).
// - b200_{allgather,allreduce}_together-flapping-airplanes-scaling and b200_4n32g_together-flapping-
//   airplanes (Together's other B200 cluster, 8 x 400 Gb/s NDR with the vendor's InfiniBand tuning,
//   NCCL 2.28.9 and 2.30.7; bulk sizes only): nothing fitted to them. Ring all-gathers on 2-64 nodes
//   within 2.7 %, and on 4 nodes its reduce-scatter (the one multi-node reduce-scatter here) and
//   all-gather within 1.9 %: the profile's 0.954 is a tuned fabric's level (the same report finds
//   ring and NVLS 20-25 % lower without that tuning, as on the cluster above). Its all-reduce is
//   NCCL's NVLSTree: as fast as a ring from 4 nodes (388-390 GB/s up to 64) and 720 GB/s on 2,
//   which the tree's traffic follows (the busiest node moves the buffer twice from 4 nodes on,
//   once on 2: collectives.hpp, tree_network_bytes_per_byte): within 1.6 % on 4-64 nodes and 6.4 %
//   on 2, with the tree constants fitted to nccl-tests #309's H100 logs. At these bulk sizes the
//   profile's EFA curve (above), the AWS tuner's, bounds NCCL's own tuner (collective_time_s) and
//   sets the time: without it the model is 11-17 % slow.
// A second test holds the other use of these logs: a profile fitted to some node counts predicting
// the others (collectives.hpp: measured node counts hold the level, the model the change); two
// more, what `calibrate` makes of a multi-node sendrecv log (the point-to-point constants) and of
// an all-to-all one (the network efficiency through each rank's share of the NICs).
// No public multi-node reduce_scatter log with a full size sweep was found for these GPUs outside
// the sources this project may not use: the one reduce-scatter row is the 4-node B200 table's.

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "calibration/calibrate.hpp"
#include "calibration/raw_inputs.hpp"
#include "calibration/step_inputs.hpp"
#include "models/comm/collectives.hpp"
#include "scenarios/scenario_io.hpp"

namespace {

using namespace clustersim;

struct LogBound {
  std::vector<std::string> sets;  // the log's cluster, as scenario keys
  double worst = 0.0;             // the bound on the worst |error| from 1 MiB
};

const std::map<std::string, LogBound>& cross_node_bounds() {
  static const std::vector<std::string> p5 = {"cluster.gpu=h100-sxm", "cluster.fabric=efa", "cluster.nics_per_node=32",
                                              "cluster.nic_gbit_per_s=100"};
  // Google Cloud's A3 Ultra and A4: 8 x 400 Gb/s RoCE a node.
  const auto gcp = [](const char* gpu) {
    return std::vector<std::string>{std::string("cluster.gpu=") + gpu, "cluster.fabric=roce", "cluster.nics_per_node=8",
                                    "cluster.nic_gbit_per_s=400"};
  };
  static const std::map<std::string, LogBound> table{
      {"a100_4n32g_allreduce_jean-zay-omnipath.jsonl",
       {{"cluster.gpu=a100-80gb", "cluster.fabric=omnipath", "cluster.nics_per_node=1", "cluster.nic_gbit_per_s=100"},
        0.02}},
      {"a100_2n16g_allreduce_oci-oke.txt",
       {{"cluster.gpu=a100-80gb", "cluster.fabric=roce", "cluster.nics_per_node=16", "cluster.nic_gbit_per_s=100"},
        0.23}},
      {"b200_4n32g_allreduce_ml-engineering.jsonl", {{"cluster.gpu=b200", "cluster.fabric=efa"}, 0.10}},
      {"h100_2n16g_allreduce_aws-efa.jsonl", {p5, 0.18}},
      {"h100_4n32g_allreduce_aws-efa.jsonl", {p5, 0.10}},
      {"h100_8n64g_allreduce_aws-efa.jsonl", {p5, 0.10}},
      {"h100_16n128g_allreduce_aws-efa.jsonl", {p5, 0.15}},
      {"h100_32n256g_allreduce_aws-efa.jsonl", {p5, 0.18}},
      {"h100_2n16g_alltoall_aws-efa.jsonl", {p5, 0.15}},
      {"h100_4n32g_alltoall_aws-efa.jsonl", {p5, 0.13}},
      {"h100_8n64g_alltoall_aws-efa.jsonl", {p5, 0.10}},
      {"h100_16n128g_alltoall_aws-efa.jsonl", {p5, 0.15}},
      {"h100_32n256g_alltoall_aws-efa.jsonl", {p5, 0.21}},
      {"b200_2n16g_sendrecv_together.txt", {{"cluster.gpu=b200"}, 0.06}},
      {"b200_4n32g_sendrecv_together.txt", {{"cluster.gpu=b200"}, 0.04}},
      {"h200_2n16g_allgather_gcp-a3ultra.txt", {gcp("h200-sxm"), 0.10}},
      {"b200_2n16g_allgather_gcp-a4.txt", {gcp("b200"), 1.52}},
      {"b200_allgather_together-scaling.jsonl", {{"cluster.gpu=b200"}, 0.26}},
      {"b200_allgather_together-flapping-airplanes-scaling.jsonl", {{"cluster.gpu=b200"}, 0.03}},
      {"b200_allreduce_together-flapping-airplanes-scaling.jsonl", {{"cluster.gpu=b200"}, 0.07}},
      {"b200_4n32g_together-flapping-airplanes.jsonl", {{"cluster.gpu=b200"}, 0.03}},
  };
  return table;
}

}  // namespace

TEST_CASE("cross-node logs: every multi-node published log is predicted within its recorded bound from 1 MiB") {
  const std::filesystem::path dir = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "calibration" / "published";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());  // step_pace/ holds whole-job paces, not logs
  }
  std::sort(files.begin(), files.end());
  std::set<std::string> checked;  // files with a multi-node group (a file may hold several node counts)
  for (const auto& file : files) {
    const std::vector<std::string> paths{file.string()};
    const calibration::RawInputs in = calibration::read_raw_inputs(paths, std::nullopt);
    for (const auto& [key, group] : in.groups) {
      if (group.ranks <= group.ranks_per_node) continue;
      const std::string name = file.filename().string();
      CAPTURE(name);
      const auto bound = cross_node_bounds().find(name);
      REQUIRE_MESSAGE(bound != cross_node_bounds().end(), "a multi-node log without a recorded bound");
      const models::StepInputs inputs = calibration::step_inputs(scenarios::default_scenario(bound->second.sets));
      // sendrecv_perf's ring waits for its slowest hops: those across the network, two ranks each.
      const models::CommGroup priced = group.op == models::CollectiveOp::send_recv
                                           ? models::CommGroup{.ranks = 2, .ranks_per_node = 1}
                                           : models::CommGroup{.ranks = group.ranks, .ranks_per_node = group.ranks_per_node};
      double worst = 0.0;
      for (const auto& p : group.points) {
        if (p.bytes < (1 << 20)) continue;
        const double predicted_us =
            1e6 * models::collective_time_s(group.op, static_cast<double>(p.bytes), priced, inputs.cluster, inputs.comm);
        worst = std::max(worst, std::abs(p.time_us / predicted_us - 1.0));
      }
      MESSAGE(name << " (" << group.ranks / group.ranks_per_node << " nodes): worst |error| from 1 MiB " << worst);
      CHECK(worst <= bound->second.worst);
      checked.insert(name);
    }
  }
  CHECK(checked.size() == cross_node_bounds().size());
}

TEST_CASE("cross-node logs: a profile fitted to 2, 8 and 32 nodes of p5 predicts their 4- and 16-node logs") {
  const std::filesystem::path dir = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "calibration" / "published";
  const auto log = [&](int nodes, const char* op) {
    return (dir / ("h100_" + std::to_string(nodes) + "n" + std::to_string(8 * nodes) + "g_" + op + "_aws-efa.jsonl"))
        .string();
  };
  std::vector<std::string> fitted;
  for (const char* op : {"allreduce", "alltoall"})
    for (int nodes : {2, 8, 32}) fitted.push_back(log(nodes, op));
  // p5: 32 EFA NICs of 100 Gb/s a node.
  const calibration::Calibration fit = calibration::calibrate(
      fitted, {.gpu = "h100-sxm", .nic_gbit_per_s = 100.0, .nics_per_node = 32, .fabric = models::Fabric::efa});
  const auto profile_path =
      std::filesystem::temp_directory_path() / ("clustersim-p5-holdout-" + std::to_string(::getpid()) + ".json");
  std::ofstream(profile_path) << calibration::profile_to_json(fit.profile);
  const models::StepInputs fitted_inputs = calibration::step_inputs(scenarios::default_scenario(
      {"cluster.gpu=h100-sxm", "cluster.fabric=efa", "cluster.nics_per_node=32", "cluster.nic_gbit_per_s=100",
       "calibration.profile=" + profile_path.string()}));
  std::filesystem::remove(profile_path);
  // The held-out logs, and the worst |busbw error| from 1 MiB each is held to (the measured worst
  // plus a little): NCCL's tuner on EFA changes algorithm at sizes that move with the node count,
  // which no interpolation between node counts follows; the built-in EFA model, which follows the
  // tuner's choices, is within 9.1 and 12.1 % of the same all-reduce logs (the first test).
  const std::map<std::string, double> held_out{{log(4, "allreduce"), 0.25}, {log(16, "allreduce"), 0.23},
                                               {log(4, "alltoall"), 0.17}, {log(16, "alltoall"), 0.08}};
  for (const auto& entry : held_out) {
    const std::string& file = entry.first;  // a plain name: doctest's CAPTURE cannot take a structured binding under clang
    const double bound = entry.second;
    const std::vector<std::string> paths{file};
    const calibration::RawInputs in = calibration::read_raw_inputs(paths, std::nullopt);
    REQUIRE(in.groups.size() == 1);
    const auto& group = in.groups.begin()->second;
    double worst = 0.0;
    for (const auto& p : group.points) {
      const double predicted_us =
          1e6 * models::collective_time_s(group.op, static_cast<double>(p.bytes),
                                          {.ranks = group.ranks, .ranks_per_node = group.ranks_per_node},
                                          fitted_inputs.cluster, fitted_inputs.comm);
      worst = std::max(worst, std::abs(p.time_us / predicted_us - 1.0));
    }
    CAPTURE(file);
    MESSAGE(std::filesystem::path(file).filename().string() << ": worst |error| held out " << worst);
    CHECK(worst <= bound);
  }
}

TEST_CASE("cross-node logs: calibrate turns a 2-node sendrecv log into the point-to-point constants, not the NICs'") {
  const std::filesystem::path dir = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "calibration" / "published";
  const std::vector<std::string> inputs{(dir / "b200_2n16g_sendrecv_together.txt").string()};
  // Together AI's B200 nodes: 8 NDR NICs of 400 Gb/s.
  const calibration::Calibration fit =
      calibration::calibrate(inputs, {.gpu = "b200", .nic_gbit_per_s = 400.0, .nics_per_node = 8});
  const models::CommProfile& comm = fit.profile.comm;
  // The node's NICs and the collectives' hop are not what a send measures: built-in values stay.
  CHECK(comm.network_efficiency == 0.94);
  CHECK(comm.network_hop_latency_s == 5.5e-6);
  // The log's bulk rate, 43.2 GB/s at 256 MiB, over one rank's 50 GB/s NIC at 0.94: 0.919 (the
  // fit's line reads 43.8 GB/s there, 0.932).
  CHECK(comm.p2p_network_share == doctest::Approx(43.23 / (50.0 * 0.94)).epsilon(0.02));
  // Its 1-2 KiB calls, 27.1-27.8 us, less the line's launch (8 us) and InfiniBand hop (5.5 us).
  CHECK(comm.p2p_network_latency_s == doctest::Approx(27.44e-6 - 13.5e-6).epsilon(0.02));
  // The 4-node log, held out, from that profile: within 8 % from 1 MiB.
  const auto profile_path =
      std::filesystem::temp_directory_path() / ("clustersim-p2p-" + std::to_string(::getpid()) + ".json");
  std::ofstream(profile_path) << calibration::profile_to_json(fit.profile);
  const models::StepInputs priced = calibration::step_inputs(
      scenarios::default_scenario({"cluster.gpu=b200", "calibration.profile=" + profile_path.string()}));
  std::filesystem::remove(profile_path);
  const std::vector<std::string> held_out{(dir / "b200_4n32g_sendrecv_together.txt").string()};
  const calibration::RawInputs in = calibration::read_raw_inputs(held_out, std::nullopt);
  REQUIRE(in.groups.size() == 1);
  double worst = 0.0;
  for (const auto& p : in.groups.begin()->second.points) {
    if (p.bytes < (1 << 20)) continue;
    const double predicted_us = 1e6 * models::collective_time_s(models::CollectiveOp::send_recv, static_cast<double>(p.bytes),
                                                                {.ranks = 2, .ranks_per_node = 1}, priced.cluster, priced.comm);
    worst = std::max(worst, std::abs(p.time_us / predicted_us - 1.0));
  }
  MESSAGE("4-node sendrecv from the 2-node profile: worst |error| " << worst);
  CHECK(worst <= 0.08);
}

TEST_CASE("cross-node logs: calibrate maps an all-to-all log across nodes through each rank's share of the NICs") {
  const std::filesystem::path dir = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "calibration" / "published";
  const std::vector<std::string> inputs{(dir / "h100_2n16g_alltoall_aws-efa.jsonl").string()};
  // p5: 32 EFA NICs of 100 Gb/s a node, 50 GB/s a rank.
  const calibration::Calibration fit = calibration::calibrate(
      inputs, {.gpu = "h100-sxm", .nic_gbit_per_s = 100.0, .nics_per_node = 32, .fabric = models::Fabric::efa});
  // 79.25 GB/s busbw at 2 GiB is 15/16 of the buffer over the time, of which each rank's 8/16 left
  // the node through its 50 GB/s: 79.25 x 8/15 / 50 = 0.845 of the line rate (the node's 400 GB/s
  // would say 0.198).
  CHECK(fit.profile.comm.network_efficiency == doctest::Approx(79.25 * 8.0 / 15.0 / 50.0).epsilon(0.02));
}

TEST_CASE("cross-node logs: a curve measured under the AWS OFI tuner bounds NCCL's own tuner, never sets its small sizes") {
  // The bundled B200 profile's 4-node all-reduce ran on AWS EFA, where the AWS OFI plugin's tuner
  // chose the algorithms: 1 MiB took 1 MiB x 1.9375 / 5.37 GB/s = 378 us. On InfiniBand NCCL's own
  // tuner prices each size by its model, at most at the EFA curve's time (the algorithm that tuner
  // ran is one NCCL can run too), so the small sizes take the model's time and the bulk the
  // curve's; on EFA the curve is the time.
  const auto cluster = [](const char* fabric) {
    return calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=b200", std::string("cluster.fabric=") + fabric}));
  };
  const models::StepInputs ib = cluster("infiniband");
  const models::StepInputs efa = cluster("efa");
  models::CommProfile without_curves = ib.comm;
  std::erase_if(without_curves.curves, [](const models::CollectiveCurve& c) { return c.ranks > c.ranks_per_node; });
  REQUIRE(without_curves.curves.size() + 1 == ib.comm.curves.size());
  const auto time_us = [](const models::StepInputs& in, const models::CommProfile& comm, double bytes, std::int64_t nodes) {
    return 1e6 * models::collective_time_s(models::CollectiveOp::all_reduce, bytes,
                                           {.ranks = 8 * nodes, .ranks_per_node = 8}, in.cluster, comm);
  };
  const double mib = 1 << 20;
  CHECK(time_us(efa, efa.comm, mib, 4) > 300.0);
  CHECK(time_us(ib, ib.comm, mib, 4) == time_us(ib, without_curves, mib, 4));
  CHECK(time_us(ib, ib.comm, mib, 4) < 100.0);
  CHECK(time_us(ib, ib.comm, 16 * 1024 * mib, 4) < time_us(ib, without_curves, 16 * 1024 * mib, 4));
  // Across 16 nodes, 1 KiB to 16 GiB: never above the model, never faster for more bytes.
  double previous = 0.0;
  for (double bytes = 1024; bytes <= 16 * 1024 * mib; bytes *= 2) {
    const double t = time_us(ib, ib.comm, bytes, 16);
    CAPTURE(bytes);
    CHECK(t <= time_us(ib, without_curves, bytes, 16));
    CHECK(t >= previous);
    previous = t;
  }
}
