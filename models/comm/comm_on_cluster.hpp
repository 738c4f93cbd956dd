#pragma once
/// A communication profile carried to the cluster it prices: the scenario's hop-latency keys and
/// the scenario's scale-out network applied to constants measured elsewhere, so that under any
/// profile the fabric, the NIC rate, the NIC count per node and the latency keys still matter.
/// Rules (each applied to the profile's constants as measured):
/// - bandwidth: network_efficiency scales by the fabric efficiency ratio (scenario's fabric /
///   measured fabric, fabric_efficiency()), so the fabric keeps its cost under a fitted
///   efficiency; the NIC rate and count enter the cost formulas directly. The bandwidth term of a
///   fitted curve that crosses nodes scales by the ratio of per-node NIC bandwidth x fabric
///   efficiency (scenario / measured); curves inside one node are untouched.
/// - latency: the scenario's network hop is `cluster.network_latency_us` when set, else the
///   profile's hop shifted by the difference of the two fabrics' hop latencies
///   (fabric_hop_latency_s()). The change of hop latency is added to every per-network-step
///   latency (alpha-beta hop, bulk pipeline step, low-latency step) and, times its network steps
///   (latency_steps), to a fitted curve's latencies: a per-step latency is the wire and software
///   hop plus a protocol part (pipeline fill, store and forward) the hop does not change. An
///   additive rule, not a ratio, for that reason. `cluster.nvlink_latency_us` likewise replaces
///   the NVLink hop and shifts every curve by the change times its NVLink steps.
/// The result records the scenario's network as measured_on, so carrying it again (e.g. to the
/// same cluster with a NIC lost) scales from the scenario's network, not the profile's.
/// Units: SI. Limitations: the same GPUs per node on both networks is assumed; a scaled-up curve is
/// not capped at NVLink; latencies do not go below 0.
/// Source: rules stated here; fabric constants in collectives.cpp (nccl-tests #290, #160).

#include "models/comm/collectives.hpp"
#include "models/spec/cluster_spec.hpp"

namespace clustersim::models {

/// The scenario's network as a MeasuredNetwork.
MeasuredNetwork network_of(const ClusterSpec& cluster);

/// `profile` carried to `cluster` by the rules above; the profile unchanged where it was measured
/// on the cluster's network and no latency key is set.
CommProfile comm_on_cluster(const CommProfile& profile, const ClusterSpec& cluster);

}  // namespace clustersim::models
