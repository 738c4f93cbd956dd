#include "models/comm/comm_on_cluster.hpp"

#include <algorithm>

namespace clustersim::models {

MeasuredNetwork network_of(const ClusterSpec& cluster) {
  return {.fabric = cluster.fabric, .nic_bytes_per_s = cluster.nic_bytes_per_s, .nics_per_node = cluster.nics_per_node};
}

CommProfile comm_on_cluster(const CommProfile& profile, const ClusterSpec& cluster) {
  const MeasuredNetwork here = network_of(cluster);
  const MeasuredNetwork from = profile.measured_on.value_or(here);
  CommProfile out = profile;
  out.measured_on = here;

  const double fabric_ratio = fabric_efficiency(here.fabric) / fabric_efficiency(from.fabric);
  out.network_efficiency = profile.network_efficiency * fabric_ratio;
  const double node_nics_here = here.nic_bytes_per_s * static_cast<double>(here.nics_per_node);
  const double node_nics_from = from.nic_bytes_per_s * static_cast<double>(from.nics_per_node);
  const double bandwidth_ratio = node_nics_from > 0.0 ? node_nics_here / node_nics_from * fabric_ratio : fabric_ratio;

  double network_hop = profile.network_hop_latency_s + fabric_hop_latency_s(here.fabric) - fabric_hop_latency_s(from.fabric);
  if (cluster.network_latency_s >= 0.0) network_hop = cluster.network_latency_s;
  const double network_shift = network_hop - profile.network_hop_latency_s;
  const double nvlink_shift =
      cluster.nvlink_latency_s >= 0.0 ? cluster.nvlink_latency_s - profile.nvlink_hop_latency_s : 0.0;
  out.network_hop_latency_s = std::max(0.0, network_hop);
  out.nvlink_hop_latency_s = std::max(0.0, profile.nvlink_hop_latency_s + nvlink_shift);
  out.network_bulk_hop_latency_s = std::max(0.0, profile.network_bulk_hop_latency_s + network_shift);
  out.ll_network_hop_latency_s = std::max(0.0, profile.ll_network_hop_latency_s + network_shift);

  for (CollectiveCurve& curve : out.curves) {
    const CommGroup group{.ranks = curve.ranks, .ranks_per_node = curve.ranks_per_node};
    const bool crosses_nodes = curve.ranks > curve.ranks_per_node;
    const LatencySteps steps = latency_steps(curve.op, group, cluster, profile);
    const double shift = steps.nvlink * nvlink_shift + steps.network * network_shift;
    for (CurveSegment& segment : curve.segments) {
      segment.alpha_s = std::max(0.0, segment.alpha_s + shift);
      if (crosses_nodes) segment.busbw_bytes_per_s *= bandwidth_ratio;
    }
  }
  return out;
}

}  // namespace clustersim::models
