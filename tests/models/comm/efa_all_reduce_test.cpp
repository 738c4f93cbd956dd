#include "models/comm/efa_all_reduce.hpp"

#include <doctest/doctest.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

constexpr double MiB = 1024.0 * 1024.0;
constexpr double GiB = 1024.0 * MiB;

// p5: 8 H100 a node, 32 EFA NICs of 100 Gb/s.
ClusterSpec p5(std::int64_t gpus) {
  ClusterSpec c = test::h100_cluster(gpus);
  c.fabric = Fabric::efa;
  c.nic_bytes_per_s = 12.5e9;
  c.nics_per_node = 32;
  return c;
}

}  // namespace

TEST_CASE("EFA all-reduce: the AWS plugin's p5 regions pick each size's algorithm") {
  // Read off the plugin's polygons (aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp, p5) by hand:
  // tree LL128 reaches 36 MiB at 32 ranks and 288 MiB at 256; ring Simple starts at 1.5 GiB on 32
  // ranks and 2.5 GiB on 64; 128 ranks take NVLSTree Simple at 2-6 GiB, ring Simple past 6.3 GiB.
  const auto choice = [](double bytes, std::int64_t ranks) { return efa_all_reduce_algorithm(bytes, ranks, 8); };
  using A = EfaAllReduceAlgorithm;
  CHECK(choice(32 * MiB, 32) == A::tree_ll128);
  CHECK(choice(64 * MiB, 32) == A::ring_ll128);
  CHECK(choice(1 * GiB, 32) == A::ring_ll128);
  CHECK(choice(2 * GiB, 32) == A::ring_simple);
  CHECK(choice(64 * MiB, 64) == A::tree_ll128);
  CHECK(choice(2 * GiB, 64) == A::ring_ll128);
  CHECK(choice(4 * GiB, 64) == A::ring_simple);
  CHECK(choice(256 * MiB, 128) == A::tree_ll128);
  CHECK(choice(4 * GiB, 128) == A::nvls_tree_simple);
  CHECK(choice(8 * GiB, 128) == A::ring_simple);
  CHECK(choice(512 * MiB, 256) == A::nvls_tree_simple);
  CHECK(choice(2 * GiB, 256) == A::ring_ll128);
  // Two nodes are NCCL's own choice, NVLSTree; other layouts and one node are not covered.
  CHECK(choice(32 * MiB, 16) == A::nvls_tree_simple);
  CHECK_FALSE(efa_all_reduce_algorithm(1 * GiB, 32, 4).has_value());
  CHECK_FALSE(efa_all_reduce_algorithm(1 * GiB, 8, 8).has_value());
}

TEST_CASE("EFA all-reduce: each size of AWS's 4-32 node logs lands in the region a second reading of the polygons gives") {
  // The same polygons, read again by an even-odd ray cast written apart from this code (a Python
  // script, run once): for 32 MiB, 64 MiB, ..., 8 GiB at 32, 64, 128 and 256 ranks, T tree LL128,
  // R ring LL128, S ring Simple, N NVLSTree Simple. The logs' busbw jumps where these letters
  // change (4 nodes: 280 GB/s at 1 GiB in ring LL128, 348 at 2 GiB in ring Simple).
  const std::array<std::pair<std::int64_t, std::string_view>, 4> expected{
      {{32, "TRRRRRSSS"}, {64, "TTRRRRRSS"}, {128, "TTTTRRRNS"}, {256, "TTTTNNRNN"}}};
  const auto letter = [](EfaAllReduceAlgorithm a) {
    switch (a) {
      case EfaAllReduceAlgorithm::tree_ll128: return 'T';
      case EfaAllReduceAlgorithm::ring_ll128: return 'R';
      case EfaAllReduceAlgorithm::ring_simple: return 'S';
      case EfaAllReduceAlgorithm::nvls_tree_simple: return 'N';
    }
    return '?';
  };
  for (const auto& entry : expected) {
    const std::int64_t ranks = entry.first;  // a plain name: doctest's CAPTURE cannot take a structured binding under clang
    const std::string_view letters = entry.second;
    CAPTURE(ranks);
    std::string got;
    for (double bytes = 32.0 * MiB; bytes <= 8.0 * GiB; bytes *= 2.0) {
      const auto choice = efa_all_reduce_algorithm(bytes, ranks, 8);
      got += choice ? letter(*choice) : '-';
    }
    CHECK(got == letters);
  }
}

TEST_CASE("EFA all-reduce: a ring Simple all-reduce costs its bytes at 0.883 of the NICs and a step latency per hop") {
  // 8 GiB over 32 ranks on 4 nodes: 2 x 31/32 x 8 GiB at 0.883 x 400 GB/s, plus 2 x 3 network
  // steps at EFA's 7 us and 2 x 28 NVLink steps at the profile's NVLink hop.
  const ClusterSpec cluster = p5(32);
  CommProfile profile = default_comm_profile(cluster);
  const CommGroup group{.ranks = 32, .ranks_per_node = 8};
  const double expected = 2.0 * 31.0 / 32.0 * 8.0 * GiB / (0.883 * 400e9) + 6.0 * 7e-6 + 56.0 * profile.nvlink_hop_latency_s;
  CHECK(collective_time_s(CollectiveOp::all_reduce, 8.0 * GiB, group, cluster, profile) == test::relative(expected));
  // A network latency 13 us above EFA's moves every network step by that much.
  profile.network_hop_latency_s = 20e-6;
  CHECK(collective_time_s(CollectiveOp::all_reduce, 8.0 * GiB, group, cluster, profile) ==
        test::relative(expected + 6.0 * 13e-6));
}

TEST_CASE("EFA all-reduce: the tree LL128 of mid sizes is slower than the InfiniBand model's tree") {
  // 256 MiB over 256 ranks (32 nodes): 2 x 5 tree levels of 67 us and, through the busiest node,
  // twice the buffer at 0.405 x 400 GB/s (AWS's 32-node log: 138 GB/s busbw, 3.87 ms).
  const ClusterSpec cluster = p5(256);
  const CommProfile profile = default_comm_profile(cluster);
  const double t = collective_time_s(CollectiveOp::all_reduce, 256.0 * MiB, {.ranks = 256, .ranks_per_node = 8},
                                     cluster, profile);
  CHECK(t == test::relative(10.0 * 67e-6 + 2.0 * 256.0 * MiB / (0.405 * 400e9)));
  CHECK(t == doctest::Approx(3.87e-3).epsilon(0.10));
  ClusterSpec infiniband = cluster;
  infiniband.fabric = Fabric::infiniband;
  CHECK(t > 1.4 * collective_time_s(CollectiveOp::all_reduce, 256.0 * MiB, {.ranks = 256, .ranks_per_node = 8},
                                    infiniband, default_comm_profile(infiniband)));
}
