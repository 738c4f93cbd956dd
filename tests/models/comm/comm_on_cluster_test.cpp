#include "models/comm/comm_on_cluster.hpp"

#include <doctest/doctest.h>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

using test::h100_cluster;

// A profile measured on 8 x 400 Gb/s InfiniBand with one single-node and one 2-node curve.
CommProfile measured_on_ndr() {
  CommProfile p = default_comm_profile(h100_cluster(16));
  p.measured_on = MeasuredNetwork{.fabric = Fabric::infiniband, .nic_bytes_per_s = 50e9, .nics_per_node = 8};
  p.curves = {
      {.op = CollectiveOp::all_reduce, .ranks = 8, .ranks_per_node = 8,
       .segments = {{.min_bytes = 1e6, .max_bytes = 1e10, .alpha_s = 20e-6, .busbw_bytes_per_s = 480e9}}},
      {.op = CollectiveOp::all_reduce, .ranks = 16, .ranks_per_node = 8,
       .segments = {{.min_bytes = 1e6, .max_bytes = 1e10, .alpha_s = 50e-6, .busbw_bytes_per_s = 400e9}}},
  };
  return p;
}

}  // namespace

TEST_CASE("comm on cluster: a profile from 8 x 400G InfiniBand prices 4 x 200G RoCE by the fabric and NIC ratios") {
  ClusterSpec roce = h100_cluster(16);
  roce.fabric = Fabric::roce;
  roce.nic_bytes_per_s = 25e9;
  roce.nics_per_node = 4;
  const CommProfile carried = comm_on_cluster(measured_on_ndr(), roce);
  // Efficiency: 0.94 x (0.85 / 0.94) = 0.85, RoCE's.
  CHECK(carried.network_efficiency == doctest::Approx(0.85));
  // Node NICs 100 GB/s of 400, times 0.85 / 0.94: 0.25 x 0.904255 = 0.226064 of the 2-node curve's rate.
  CHECK(carried.curves[1].segments[0].busbw_bytes_per_s == doctest::Approx(400e9 * 0.25 * 0.85 / 0.94));
  CHECK(carried.curves[0].segments[0].busbw_bytes_per_s == 480e9);  // inside a node: untouched
  // Hop: 5.5 us + (7 - 5.5) RoCE's extra = 7 us; the bulk step 37 + 1.5 us; the 2-node curve's tree
  // (2 network steps) 50 + 3 us; the single-node curve has none.
  CHECK(carried.network_hop_latency_s == doctest::Approx(7e-6));
  CHECK(carried.network_bulk_hop_latency_s == doctest::Approx(38.5e-6));
  CHECK(carried.curves[1].segments[0].alpha_s == doctest::Approx(53e-6));
  CHECK(carried.curves[0].segments[0].alpha_s == doctest::Approx(20e-6));
  REQUIRE(carried.measured_on.has_value());
  CHECK(*carried.measured_on == network_of(roce));
}

TEST_CASE("comm on cluster: the latency keys replace the hop latencies and shift every step") {
  ClusterSpec cluster = h100_cluster(16);
  cluster.network_latency_s = 1.0;   // 1e6 us
  cluster.nvlink_latency_s = 0.0;
  const CommProfile p = measured_on_ndr();
  const CommProfile carried = comm_on_cluster(p, cluster);
  CHECK(carried.network_hop_latency_s == 1.0);
  CHECK(carried.nvlink_hop_latency_s == 0.0);
  CHECK(carried.ll_network_hop_latency_s == doctest::Approx(1.0 - 5.5e-6 + 9.5e-6));
  // The single-node curve: 14 NVLink steps at 0.4 us come off its 20 us.
  CHECK(carried.curves[0].segments[0].alpha_s == doctest::Approx(20e-6 - 14 * 0.4e-6));
  // Unset keys, the same network: nothing changes; carrying twice is carrying once.
  const CommProfile same = comm_on_cluster(p, h100_cluster(16));
  CHECK(same.network_hop_latency_s == p.network_hop_latency_s);
  const CommProfile twice = comm_on_cluster(carried, cluster);
  for (std::size_t c = 0; c < p.curves.size(); ++c) {
    CHECK(same.curves[c].segments[0].alpha_s == p.curves[c].segments[0].alpha_s);
    CHECK(same.curves[c].segments[0].busbw_bytes_per_s == p.curves[c].segments[0].busbw_bytes_per_s);
    CHECK(twice.curves[c].segments[0].alpha_s == carried.curves[c].segments[0].alpha_s);
    CHECK(twice.curves[c].segments[0].busbw_bytes_per_s == carried.curves[c].segments[0].busbw_bytes_per_s);
  }
}

TEST_CASE("comm on cluster: a NIC lost scales the cross-node curves by the NICs left") {
  ClusterSpec degraded = h100_cluster(16);
  degraded.nic_bytes_per_s *= 7.0 / 8.0;
  const CommProfile carried = comm_on_cluster(comm_on_cluster(measured_on_ndr(), h100_cluster(16)), degraded);
  CHECK(carried.curves[1].segments[0].busbw_bytes_per_s == doctest::Approx(400e9 * 7.0 / 8.0));
}
