// NVLink domains larger than a node (GB200 NVL72: 18 trays of 4 GPUs on one NVLink fabric): the
// groups that fit in a domain talk over NVLink, each rank keeps its own tray's NIC share, and the
// topology's server is the rack.

#include <doctest/doctest.h>

#include "models/comm/cluster_topology.hpp"
#include "models/comm/collectives.hpp"
#include "models/compute/compute_profile.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"
#include "topologies/topology.hpp"

using namespace clustersim::models;

namespace {

StepInputs mixtral_on_gb200(std::int64_t domain) {
  StepInputs in;
  in.model = test::mixtral_8x7b();
  in.parallelism = {.tp = 1, .pp = 1, .dp = 64, .ep = 8};
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 256, .recompute = Recompute::none};
  in.cluster = test::gb200_cluster(64, domain);
  in.compute = default_compute_profile("gb200");
  in.comm = default_comm_profile(in.cluster);
  return in;
}

}  // namespace

TEST_CASE("nvlink domain: defaults to one node, and a job smaller than a domain is its own domain") {
  ClusterSpec c = test::h100_cluster(256);
  CHECK(nvlink_domain(c) == 8);
  c = test::gb200_cluster(576);
  CHECK(nvlink_domain(c) == 72);
  c = test::gb200_cluster(16);  // four trays of one rack
  CHECK(nvlink_domain(c) == 16);
  CHECK(node_layout_text(test::gb200_cluster(144)) == "36 nodes of 4 in 2 NVLink domains of 72");
  CHECK(node_layout_text(test::h100_cluster(256)) == "32 nodes of 8");
}

TEST_CASE("nvlink domain: an expert-parallel group across trays of one rack stays on NVLink") {
  const StepPlan rack = plan_step(mixtral_on_gb200(64));
  const StepPlan trays = plan_step(mixtral_on_gb200(0));  // trays of 4 joined by the NICs only
  const CollectiveRecord& a = rack.layer.ep_dispatch;
  const CollectiveRecord& b = trays.layer.ep_dispatch;
  CHECK(a.group.ranks == 8);
  CHECK(a.group.ranks_per_node == 8);
  CHECK(b.group.ranks_per_node == 4);
  // Each rank sends 7/8 of its 4096 x 2 routed copies of 4096 bf16 values over NVLink 5 at the
  // ring efficiency of NVLink 4 and later (0.82 of 900 GB/s), plus latency.
  const double bytes = 4096.0 * 2.0 * 4096.0 * 2.0;
  CHECK(a.bytes == doctest::Approx(bytes));
  const double nvlink_s = 7.0 / 8.0 * bytes / (900e9 * 0.82);
  CHECK(a.seconds >= nvlink_s);
  CHECK(a.seconds < nvlink_s + 50e-6);
  // Across trays half of each rank's buffer leaves over its own 400 Gb/s NIC: far slower.
  const double nic_s = 4.0 / 8.0 * bytes / (50e9 * 0.94);
  CHECK(b.seconds >= nic_s);
  CHECK(b.seconds > 5.0 * a.seconds);
}

TEST_CASE("nvlink domain: tensor parallelism over 16 GPUs of an NVL72 rack is not a cross-node group") {
  StepInputs in = mixtral_on_gb200(72);
  in.cluster = test::gb200_cluster(144);
  in.model = test::llama3_70b();
  in.parallelism = {.tp = 16, .pp = 1, .dp = 9, .sp = true};
  in.training.global_batch = 72;
  const StepSimulation sim = simulate_step(in);
  CHECK(plan_step(in).layer.tp[0].group.ranks_per_node == 16);
  for (const std::string& note : sim.report.notes) CHECK(note.find("NVLink domains") == std::string::npos);
  in.cluster.nvlink_domain_gpus = 0;  // trays of 4: the same group spans four of them
  bool crosses = false;
  for (const std::string& note : simulate_step(in).report.notes)
    crosses = crosses || note.find("tp = 16 spans 4 NVLink domains") != std::string::npos;
  CHECK(crosses);
}

TEST_CASE("nvlink domain: the rules name the key when a domain splits a node or a job splits a domain") {
  const TransformerSpec model = test::llama3_70b();
  const ParallelismSpec p{.tp = 8, .pp = 1, .dp = 18};
  const TrainingSpec t{.seq_len = 4096, .micro_batch = 1, .global_batch = 144};
  ClusterSpec c = test::gb200_cluster(144);
  CHECK_FALSE(layout_violation(model, p, t, c).has_value());
  c.nvlink_domain_gpus = 70;  // not whole trays of 4
  auto v = layout_violation(model, p, t, c);
  REQUIRE(v.has_value());
  CHECK(v->field == LayoutField::cluster_nvlink_domain_gpus);
  CHECK(v->rule == "must be 0 (one node) or a multiple of gpus_per_node=4, got 70");
  c = test::gb200_cluster(112);  // a rack and a half
  const ParallelismSpec q{.tp = 8, .pp = 1, .dp = 14};
  const TrainingSpec u{.seq_len = 4096, .micro_batch = 1, .global_batch = 112};
  v = layout_violation(model, q, u, c);
  REQUIRE(v.has_value());
  CHECK(v->field == LayoutField::cluster_num_gpus);
  CHECK(v->rule == "must be at most nvlink_domain_gpus=72 or a multiple of it, got 112");
}

TEST_CASE("nvlink domain: racks of NVL72 on a rail-optimized fabric, a tray's NICs of 8 racks per leaf") {
  namespace topo = clustersim::topologies;
  ClusterSpec c = test::gb200_cluster(576);  // one GB200 SuperPOD scalable unit: 8 racks
  const topo::Network network = topo::build_network(topology_spec(c));
  CHECK(network.count(topo::NodeKind::gpu) == 576);
  CHECK(network.count(topo::NodeKind::nvswitch) == 8);  // one NVLink fabric per rack
  CHECK(network.nic_count() == 576);                    // 4 per tray
  // 32 downlinks a leaf of 64 ports (1:1): 4 rails x 8 racks, so 576 / 32 = 18 leaves.
  CHECK(network.count(topo::NodeKind::leaf) == 18);
  CHECK(network.cable_count(topo::LinkTier::host) == 576);
  // Two SUs: the leaves of both meet at the spines.
  c = test::gb200_cluster(1152);
  const topo::Network two = topo::build_network(topology_spec(c));
  CHECK(two.count(topo::NodeKind::leaf) == 36);
  CHECK(two.count(topo::NodeKind::spine) > 0);
}

TEST_CASE("nvlink domain: an all-reduce over a rack reduces in the NVLink 5 switches (NVLS)") {
  // 64 ranks of one NVL72 domain: NVLS keeps an algorithm bandwidth of 483 of 900 GB/s (8 x B200:
  // 845.67 GB/s busbw at 16 GiB, measurements.md 1.3), above a 64-rank ring's 0.82 x 900 x 64 / 126.
  const ClusterSpec c = test::gb200_cluster(576);
  const CommProfile profile = default_comm_profile(c);
  const CommGroup rack{.ranks = 64, .ranks_per_node = 64};
  const double bus = all_reduce_bus_bandwidth(rack, c, profile);
  CHECK(bus / bus_factor(CollectiveOp::all_reduce, 64) == doctest::Approx(483e9));
  CHECK_FALSE(all_reduce_uses_tree(rack, c, profile));
}
