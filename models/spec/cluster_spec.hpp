#pragma once
/// The hardware a job runs on: GPUs, how they group into nodes, and the scale-out network.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/spec/gpu_spec.hpp"

namespace clustersim::models {

/// The scale-out network technology. omnipath: Intel Omni-Path, which NCCL drives through its
/// InfiniBand verbs transport without GPUDirect RDMA (data staged through host memory).
enum class Fabric { infiniband, roce, omnipath, efa };
enum class TopologyKind { rail_optimized, fat_tree, dragonfly, torus };

/// The fabrics' scenario names, in the enum's order; and a name's fabric (nullopt: no such fabric).
inline constexpr std::array<std::string_view, 4> kFabricNames{"infiniband", "roce", "omnipath", "efa"};
std::string_view fabric_name(Fabric fabric);
std::optional<Fabric> fabric_from_name(std::string_view name);

struct ClusterSpec {
  GpuSpec gpu;
  std::int64_t num_gpus = 256;
  std::int64_t gpus_per_node = 8;  // GPUs of one server (or GB200 compute tray), which share its NICs
  // GPUs on one NVLink fabric: 0 (the default) is one node's; GB200 NVL72 joins 18 trays of 4 into
  // one domain of 72, so that groups of up to 72 ranks stay on NVLink. A multiple of gpus_per_node.
  std::int64_t nvlink_domain_gpus = 0;
  double nic_bytes_per_s = 50e9;  // per NIC, per direction (400 Gb/s)
  std::int64_t nics_per_node = 8;
  Fabric fabric = Fabric::infiniband;
  TopologyKind topology = TopologyKind::rail_optimized;
  // One hop's latency, software included, when the scenario sets it: it replaces the hop latency
  // of the communication constants (models/comm/comm_on_cluster.hpp). Negative (kUnsetLatency):
  // not set, the constants' own (a calibration profile's fitted one, else the fabric's built-in one).
  static constexpr double kUnsetLatency = -1e-6;
  double network_latency_s = kUnsetLatency;  // one scale-out hop
  double nvlink_latency_s = kUnsetLatency;   // one NVLink hop
  double oversubscription = 1.0;    // leaf downlinks : uplinks (2.0 = 2:1); 1 = non-blocking
  bool ideal_network = false;       // what-if: all communication is free
  // Failed cables, seen by the `flow` fidelity only: a count of random inter-node cables (the
  // tier `clustersim topo --fail-links` draws from) chosen by failed_links_seed, and/or named
  // links "from->to" (comma-separated, as `run --links` prints them), each with its reverse.
  std::int64_t failed_links = 0;
  std::uint64_t failed_links_seed = 1;
  std::string failed_link_names{};

  friend bool operator==(const ClusterSpec&, const ClusterSpec&) = default;
};

/// GPUs of the job that share one NVLink domain: the domain's size (a node's when unset), or the
/// whole job when it uses part of one domain.
inline std::int64_t nvlink_domain(const ClusterSpec& c) {
  const std::int64_t domain = c.nvlink_domain_gpus > 0 ? c.nvlink_domain_gpus : c.gpus_per_node;
  return c.num_gpus > 0 && c.num_gpus < domain ? c.num_gpus : domain;
}

/// "32 nodes of 8"; with NVLink domains of several nodes "36 nodes of 4 in 2 NVLink domains of 72".
std::string node_layout_text(const ClusterSpec& cluster);

}  // namespace clustersim::models
