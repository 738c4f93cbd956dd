#pragma once
/// The hardware a job runs on: GPUs, how they group into nodes, and the scale-out network.

#include <cstdint>
#include <string>

#include "models/spec/gpu_spec.hpp"

namespace clustersim::models {

enum class Fabric { infiniband, roce };
enum class TopologyKind { rail_optimized, fat_tree, dragonfly, torus };

struct ClusterSpec {
  GpuSpec gpu;
  std::int64_t num_gpus = 256;
  std::int64_t gpus_per_node = 8;
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

}  // namespace clustersim::models
