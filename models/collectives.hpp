#pragma once
/// Analytic (alpha-beta) cost of one NCCL collective, the `analytic` communication fidelity.
/// time = launch + latency steps x hop latency + bus-bandwidth factor x bytes / bus bandwidth.
/// Bus bandwidth is the bottleneck of the group's path: NVLink inside a node; across nodes, the
/// NICs the group's ranks on one node can use (each rank of a rail-aligned group has its own NIC),
/// capped by NVLink. Latency steps: log-depth trees for all-reduce across nodes (NCCL's tree and
/// NVLSTree), rings otherwise.
/// Units: bytes (the full buffer: nccl-tests' "size"), seconds.
/// Limitations: no contention between concurrent collectives (the `flow` fidelity models that);
/// no in-switch reduction (NVLS) speed-up; one bandwidth efficiency per link class.
/// Source: ring step counts and bus-bandwidth factors as in nccl-tests' PERFORMANCE.md and the
/// shared reference training-math.md; constants from measurements.md section 1 (see CommProfile).

#include <cstdint>
#include <string>

#include "models/cluster_spec.hpp"

namespace clustersim::models {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all, send_recv };

/// Ranks taking part and how they sit on nodes (ranks_per_node of them share each node).
struct CommGroup {
  std::int64_t ranks = 1;
  std::int64_t ranks_per_node = 1;
};

/// Link efficiencies and latencies of one cluster's communication stack, each with its source.
struct CommProfile {
  double nvlink_efficiency = 0.0;   // ring busbw / NVLink line rate
  double network_efficiency = 0.0;  // per-NIC busbw / NIC line rate
  double launch_latency_s = 0.0;    // fixed cost of any collective
  double nvlink_hop_latency_s = 0.0;
  double network_hop_latency_s = 0.0;
  std::string source;
};

/// Defaults for the cluster's GPU generation and fabric (RoCE: lower efficiency, higher latency).
CommProfile default_comm_profile(const ClusterSpec& cluster);

/// Bus bandwidth (bytes/s) a collective over `group` reaches on `cluster`, large messages.
double bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile);

/// nccl-tests' bus-bandwidth factor: bytes each rank moves per byte of buffer.
double bus_factor(CollectiveOp op, std::int64_t ranks);

/// Seconds for one collective of `bytes` over `group`; 0 for a group of one rank or with
/// cluster.ideal_network.
double collective_time_s(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                         const CommProfile& profile);

}  // namespace clustersim::models
