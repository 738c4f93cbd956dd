#include "models/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace clustersim::models {

CommProfile default_comm_profile(const ClusterSpec& cluster) {
  CommProfile p;
  // NVLink 3 (A100) reaches 78 % of 300 GB/s with rings; NVLink 4 and later 82 % of 450 GB/s
  // (measurements.md 1.3: stas00 ml-engineering; NCCL maintainers in nccl-tests #212).
  const bool nvlink3 = cluster.gpu.nvlink_bytes_per_s <= 300e9;
  p.nvlink_efficiency = nvlink3 ? 0.78 : 0.82;
  // 46-48 GB/s per 400 Gb/s NDR NIC (NCCL maintainer, nccl-tests #290); 24 of 25 GB/s per HDR NIC
  // (nccl-tests #160). RoCE without DCQCN tuning keeps less: an assumption, 0.85.
  p.network_efficiency = cluster.fabric == Fabric::roce ? 0.85 : 0.94;
  // 8 B all-reduce on 8 x H100 takes 13.7 us (dgxc-benchmarking): launch plus 14 NVLink ring
  // steps; on 2 nodes 25 us (nccl-tests #309): one tree level up and down adds ~11 us.
  p.launch_latency_s = 8e-6;
  p.nvlink_hop_latency_s = 0.4e-6;
  p.network_hop_latency_s = cluster.fabric == Fabric::roce ? 7e-6 : 5.5e-6;
  p.source =
      "measurements.md 1.1, 1.3, 1.4 and nccl-tests #309 2-node log; RoCE efficiency and latency are "
      "assumptions";
  return p;
}

double bus_factor(CollectiveOp op, std::int64_t ranks) {
  const double n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return (n - 1.0) / n;
    case CollectiveOp::send_recv: return 1.0;
  }
  return 1.0;
}

double bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  const double nvlink = cluster.gpu.nvlink_bytes_per_s * profile.nvlink_efficiency;
  const std::int64_t nodes = (group.ranks + group.ranks_per_node - 1) / group.ranks_per_node;
  if (nodes <= 1) return nvlink;
  const double nic_per_gpu = cluster.nic_bytes_per_s * static_cast<double>(cluster.nics_per_node) /
                             static_cast<double>(cluster.gpus_per_node);
  const double network = static_cast<double>(group.ranks_per_node) * nic_per_gpu * profile.network_efficiency;
  return std::min(nvlink, network);
}

double collective_time_s(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                         const CommProfile& profile) {
  if (group.ranks <= 1 || cluster.ideal_network || bytes <= 0.0) return 0.0;
  const std::int64_t per_node = std::min(group.ranks_per_node, group.ranks);
  const std::int64_t nodes = (group.ranks + per_node - 1) / per_node;
  const double local_steps = static_cast<double>(per_node - 1);
  double network_steps = 0.0;
  if (nodes > 1) {
    const double levels = std::ceil(std::log2(static_cast<double>(nodes)));
    switch (op) {
      case CollectiveOp::all_reduce: network_steps = 2.0 * levels; break;
      case CollectiveOp::send_recv: network_steps = 1.0; break;
      default: network_steps = static_cast<double>(nodes - 1); break;
    }
  }
  const double nvlink_steps = op == CollectiveOp::all_reduce ? 2.0 * local_steps : local_steps;
  const double latency = profile.launch_latency_s + nvlink_steps * profile.nvlink_hop_latency_s +
                         network_steps * profile.network_hop_latency_s;
  const CommGroup effective{.ranks = group.ranks, .ranks_per_node = per_node};
  return latency + bus_factor(op, group.ranks) * bytes / bus_bandwidth(effective, cluster, profile);
}

}  // namespace clustersim::models
