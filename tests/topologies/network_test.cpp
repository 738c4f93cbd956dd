#include "topologies/network.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "topologies/link_class.hpp"
#include "topologies/link_resources.hpp"
#include "topologies/node_domain.hpp"
#include "tests/topologies/topology_fixtures.hpp"

using namespace clustersim::topologies;

TEST_CASE("topologies: link classes carry line rates from the references") {
  // NVLink 4: 18 links x 25 GB/s = 450 GB/s per GPU per direction; NDR 400 Gb/s / 8 = 50 GB/s;
  // HDR 200 Gb/s = 25 GB/s; RoCE 400 GbE = 50 GB/s; PCIe Gen5 x16 ~ 64 GB/s.
  CHECK(link_class_info(LinkClass::nvlink).bytes_per_s == 450e9);
  CHECK(link_class_info(LinkClass::infiniband_ndr).bytes_per_s == 50e9);
  CHECK(link_class_info(LinkClass::infiniband_hdr).bytes_per_s == 25e9);
  CHECK(link_class_info(LinkClass::roce).bytes_per_s == 50e9);
  CHECK(link_class_info(LinkClass::pcie).bytes_per_s == 64e9);
  // NCCL reaches 46-48 GB/s per NDR NIC (nccl-tests#290) and ~370 GB/s busbw on NVLink 4 (#212).
  CHECK(link_class_info(LinkClass::infiniband_ndr).efficiency * 50e9 == doctest::Approx(47e9));
  CHECK(link_class_info(LinkClass::nvlink).efficiency * 450e9 == doctest::Approx(370e9));
  for (std::size_t c = 0; c < link_class_count; ++c) {
    const auto& info = link_class_info(static_cast<LinkClass>(c));
    CHECK(info.bytes_per_s > 0.0);
    CHECK(info.latency_s > 0.0);
    CHECK(info.efficiency > 0.0);
    CHECK(info.efficiency <= 1.0);
    CHECK_FALSE(info.source.empty());
  }
  // An override keeps the class (and its efficiency) but takes the given rate: NVLink 5.
  const LinkSpec nvlink5{.link_class = LinkClass::nvlink, .bytes_per_s = 900e9};
  CHECK(nvlink5.resolved_bytes_per_s() == 900e9);
  CHECK(nvlink5.resolved_latency_s() == link_class_info(LinkClass::nvlink).latency_s);
}

TEST_CASE("topologies: a hand-built network has CSR adjacency, cables and failures") {
  // a <-> s <-> b, plus a one-way link s -> a: 2 cables, 5 directed links.
  Network net;
  const NodeId a = net.add_node(NodeKind::gpu, "a");
  const NodeId s = net.add_node(NodeKind::leaf, "s");
  const NodeId b = net.add_node(NodeKind::gpu, "b");
  const LinkId as = net.add_cable(a, s, {.link_class = LinkClass::infiniband_hdr}, LinkTier::host);
  const LinkId bs = net.add_cable(b, s, {.bytes_per_s = 7.0, .latency_s = 2.0}, LinkTier::host);
  const LinkId extra = net.add_link(s, a, {}, LinkTier::host);
  net.finalize();
  CHECK(net.node_count() == 3);
  CHECK(net.link_count() == 5);
  CHECK(net.link(as).reverse == as + 1);
  CHECK(net.link(as + 1).reverse == as);
  CHECK(net.link(extra).reverse == no_link);
  CHECK(net.link(as).bytes_per_s == 25e9);
  CHECK(net.link(bs).bytes_per_s == 7.0);
  CHECK(net.link(bs).latency_s == 2.0);
  CHECK(net.link_count(LinkTier::host) == 5);
  CHECK(net.cable_count(LinkTier::host) == 2);
  CHECK(net.switch_count() == 1);
  REQUIRE(net.out_links(s).size() == 3);  // s->a, s->b, s->a (one-way), ascending ids
  CHECK(net.out_links(s)[0] == as + 1);
  CHECK(net.out_links(s)[2] == extra);
  CHECK(net.in_links(a).size() == 2);
  REQUIRE(net.gpus().size() == 2);
  CHECK(net.gpu_of_rank(1) == b);

  const auto epoch = net.failure_epoch();
  net.fail_cable(as);
  CHECK(net.link_failed(as));
  CHECK(net.link_failed(as + 1));
  CHECK_FALSE(net.usable(as));
  CHECK(net.failure_epoch() != epoch);
  net.fail_node(s);
  CHECK_FALSE(net.usable(bs));  // an end is down
  net.restore_all();
  CHECK(net.usable(as));
  CHECK(net.usable(bs));

  net.set_rank_order({b, a});
  net.finalize();
  CHECK(net.gpu_of_rank(0) == b);
  net.set_rank_order({b, s});
  CHECK_THROWS_AS(net.finalize(), std::invalid_argument);
}

TEST_CASE("topologies: an HGX node is 8 GPUs on one NVSwitch with a NIC each") {
  // 8 GPUs + 1 NVSwitch + 8 NICs; 8 NVLink cables at 450 GB/s, 8 PCIe cables; NICs unconnected.
  const Network net = build_node({});
  CHECK(net.kind() == TopologyKind::single_node);
  CHECK(net.count(NodeKind::gpu) == 8);
  CHECK(net.count(NodeKind::nvswitch) == 1);
  CHECK(net.nic_count() == 8);
  CHECK(net.cable_count(LinkTier::nvlink) == 8);
  CHECK(net.cable_count(LinkTier::pcie) == 8);
  CHECK(net.node(net.gpu_of_rank(3)).name == "n0.gpu3");
  for (const Link& l : net.links()) {
    if (l.tier == LinkTier::nvlink) CHECK(l.bytes_per_s == 450e9);
  }
}

TEST_CASE("topologies: GPUs share NICs when a node has fewer NICs than GPUs") {
  // 8 GPUs, 4 NICs: GPU i -> NIC i*4/8, so GPUs 0,1 -> NIC 0 ... 6,7 -> NIC 3. Each NIC then
  // injects min(50 GB/s NIC, 2 x 64 GB/s PCIe) = 50 GB/s: 200 GB/s per server.
  const NodeSpec spec{.nics_per_node = 4};
  const Network net = build_node(spec);
  CHECK(net.nic_count() == 4);
  for (const Link& l : net.links()) {
    if (l.tier != LinkTier::pcie || net.node(l.from).kind != NodeKind::gpu) continue;
    CHECK(net.node(l.to).index == net.node(l.from).index / 2);
  }
  CHECK(server_injection_bytes_per_s(spec) == 200e9);
  CHECK_THROWS_AS(build_node({.gpus_per_node = 4, .nics_per_node = 8}), std::invalid_argument);
}

TEST_CASE("topologies: a GB200 NVL72 domain is 72 GPUs on one logical NVSwitch") {
  // NVLink 5: 900 GB/s per GPU per direction; 72 NVLink cables to one switch.
  const Network net = build_node({.gpus_per_node = 72, .nics_per_node = 72,
                                   .nvlink = {.link_class = LinkClass::nvlink, .bytes_per_s = 900e9}});
  CHECK(net.count(NodeKind::gpu) == 72);
  CHECK(net.count(NodeKind::nvswitch) == 1);
  CHECK(net.cable_count(LinkTier::nvlink) == 72);
}

TEST_CASE("topologies: links become simulation resources index for index") {
  // An HGX node: 32 directed links; resource i is link i, NVLink at 450 GB/s line rate or
  // 370 GB/s with NCCL's efficiency applied.
  const Network net = build_node({});
  const auto raw = link_resources(net);
  const auto effective = link_resources(net, true);
  REQUIRE(raw.size() == net.link_count());
  REQUIRE(raw.size() == 32);
  CHECK(net.link(0).tier == LinkTier::nvlink);
  CHECK(raw[0].name == "n0.gpu0->n0.nvswitch");
  CHECK(raw[0].capacity_per_s == 450e9);
  CHECK(effective[0].capacity_per_s == doctest::Approx(370e9));
}
