#pragma once
/// Analytic (alpha-beta) cost of one NCCL collective, the `analytic` communication fidelity.
/// time = launch + latency steps x hop latency + bus-bandwidth factor x bytes / bus bandwidth, in
/// the NCCL protocol (LL, LL128, Simple) that makes it least (collective_protocol).
/// Bus bandwidth is the bottleneck of the group's path: NVLink inside a node; across nodes, the
/// NICs the group's ranks on one node can use (each rank of a rail-aligned group has its own NIC),
/// capped by NVLink. All-reduce takes the faster of what NCCL offers: a ring, or in-switch
/// reduction (NVLS) inside an NVSwitch node; across nodes NCCL's tree family (tree, NVLSTree: the
/// node's all-reduce inside, a double binary tree between nodes whose busiest node moves the
/// buffer once through its NICs on 2 nodes and twice from 4 on (tree_network_bytes_per_byte); the
/// two stages pipelined at the soft minimum of their rates), which NCCL runs on NVLS nodes, else
/// the faster of a ring and the tree (one rank per node: the ring). All-to-all across nodes is
/// held to each rank's own NIC share ((n-k)/n of its buffer leaves the node), not the node's NICs
/// together. On AWS EFA an all-reduce of 8 ranks a node across nodes runs what the AWS plugin's
/// tuner picks, at that choice's fitted rate (efa_all_reduce.hpp). Latency steps as NCCL's tuner
/// counts them (latency_steps): log-depth trees for all-reduce across nodes where the tree runs, a
/// hop per ring neighbour otherwise.
/// Measured curves: a profile may carry curves (collective_curve.hpp) fitted to nccl-tests runs.
/// A curve of the group's own layout gives the time outright; a single-node curve of the same
/// collective and GPUs per node also prices groups of several such nodes, as the faster of the two
/// protocol families NCCL's tuner picks from:
/// - bulk (Simple): the node's measured time (its protocol and channel ramp, NVLS chunking) + the
///   group's extra bandwidth time over the node's + per network step the fill and drain of the
///   chunk pipeline through that step;
/// - low latency (LL/LL128; tree all-reduce): a fixed cost + per network step a hop latency and the
///   whole buffer at a fraction of the node's NIC rate (store and forward, no pipelining).
/// Small and mid sizes take the second, large ones the first; where they cross, NCCL switches
/// (8 x 8 H100: near 8 MiB, nccl-tests #309).
/// Curves of the same collective and GPUs per node at other node counts hold the level there and
/// leave the model only the change with the node count: between two measured counts the time is
/// interpolated straight in log time against log node count; beyond them the nearest measured
/// time is scaled by the model's ratio of the two counts. Fitted to AWS p5 logs of 2, 8 and 32
/// nodes, this predicts their 4- and 16-node logs within 24 % (all-reduce) and 16 % (all-to-all),
/// where the built-in constants are up to 65 % off (tests/calibration/cross_node_logs_test.cpp).
/// Units: bytes (the full buffer: nccl-tests' "size"), seconds.
/// Limitations: no contention between concurrent collectives (the `flow` fidelity models that);
/// one bandwidth efficiency per link class; without curves, mid sizes (1-64 MiB) are optimistic,
/// since the protocols' lines do not follow NCCL's channel count changes. Across nodes, the
/// two protocol families' constants and the tree's pipeline (efficiency, coupling exponent) are
/// fitted to two clusters' logs (2 and 8 nodes of H100 on 400 Gb/s InfiniBand): within 6.6 % of both
/// from 1 MiB up; other fabrics and node counts extrapolate.
/// Source: latency steps as NCCL's src/graph/tuning.cc (base + intra steps x intra latency +
/// inter steps x inter latency); ring step counts and bus-bandwidth factors as in nccl-tests' PERFORMANCE.md and the
/// shared reference training-math.md; constants from measurements.md section 1 (see CommProfile).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "topologies/link_class.hpp"
#include "models/comm/collective_curve.hpp"

namespace clustersim::models {

/// Ranks taking part and how they sit on nodes (ranks_per_node of them share each node).
struct CommGroup {
  std::int64_t ranks = 1;
  std::int64_t ranks_per_node = 1;
};

/// The scale-out network a profile's constants were measured on (comm_on_cluster.hpp carries
/// them to another).
struct MeasuredNetwork {
  Fabric fabric = Fabric::infiniband;
  double nic_bytes_per_s = 0.0;  // per NIC, per direction
  std::int64_t nics_per_node = 0;

  friend bool operator==(const MeasuredNetwork&, const MeasuredNetwork&) = default;
};

/// Link efficiencies and latencies of one cluster's communication stack, each with its source.
struct CommProfile {
  double nvlink_efficiency = 0.0;   // ring busbw / NVLink line rate
  double network_efficiency = 0.0;  // per-NIC busbw / NIC line rate
  double launch_latency_s = 0.0;    // fixed cost of any collective
  double nvlink_hop_latency_s = 0.0;
  double network_hop_latency_s = 0.0;
  std::string source;
  double nvls_algbw_efficiency = 0.0;  // NVLS all-reduce algbw / NVLink line rate; 0: no NVLS
  double tree_efficiency = 1.0;        // achieved / ideal inter-node rate of NCCL's tree all-reduce
  // NCCL's tree family pipelines the node's all-reduce with the tree between nodes; two stages of
  // close rates lose to each other's stalls, so the pipeline runs at the soft minimum
  // (inside^-p + between^-p)^(-1/p) of their rates. p: this exponent; 0: the plain minimum.
  double tree_coupling_exponent = 0.0;
  double network_bulk_hop_latency_s = 0.0;  // per network step, NCCL's bulk protocol: pipeline fill and drain
  // NCCL's low-latency protocols (LL, LL128) across nodes, which its tuner takes for mid sizes: a
  // tree that forwards the whole buffer one network step after another, without pipelining.
  double ll_base_latency_s = 0.0;         // fixed cost of such an all-reduce
  double ll_network_hop_latency_s = 0.0;  // per network step
  double ll_network_efficiency = 0.0;     // per-step forwarding rate / the NIC rate; 0: not modelled
  // All-to-all across nodes: NCCL runs it as a send and a receive per peer, and the cost of those
  // operations, not the ring's hops, fills its small and mid sizes: a fixed cost per call and one
  // per peer on another node. 0: not modelled.
  double all_to_all_base_latency_s = 0.0;
  double all_to_all_peer_latency_s = 0.0;
  // Send/receive across nodes: NCCL hands each chunk to its network proxy thread on the host,
  // which posts it to the NIC and, on the far side, hands it back to the receiving kernel. Those
  // host round trips add to the call's fixed cost, and their per-chunk gaps keep the bulk rate
  // below what a ring's steady stream reaches. 0: not modelled.
  double p2p_network_latency_s = 0.0;  // added to the alpha-beta line's launch and network hop
  double p2p_network_share = 0.0;      // bulk rate / the fabric's collective rate (network_efficiency)
  std::vector<CollectiveCurve> curves{};    // measured, by layout (calibration profiles)
  std::optional<MeasuredNetwork> measured_on{};  // none: the cluster the profile is used on
};

/// What a fabric's network steps keep of the NIC line rate (per-NIC busbw / line rate) and the
/// latency of one of its hops on the alpha-beta line: the fabric's only constants, with whether
/// the AWS plugin picks its all-reduces (below).
double fabric_efficiency(Fabric fabric);
double fabric_hop_latency_s(Fabric fabric);
/// The link class of the fabric's NIC links in the flow fidelity's topology.
topologies::LinkClass fabric_topology_link(Fabric fabric);
/// Whether NCCL's all-reduce algorithm on the fabric is the AWS OFI plugin's choice
/// (efa_all_reduce.hpp) rather than NCCL's own tuner's.
bool fabric_runs_aws_ofi_tuner(Fabric fabric);

/// Line rate (bytes/s, per direction) of the NICs the group's ranks on one node use: their share
/// of the node's NICs.
double node_nic_line_rate(const CommGroup& group, const ClusterSpec& cluster);
/// The rate of two pipelined stages: the soft minimum (a^-p + b^-p)^(-1/p) of their rates in
/// bytes/s, the plain minimum where p <= 0; a free stage (infinite rate) drops out.
double pipeline_rate(double a, double b, double exponent);

/// Defaults for the cluster's GPU generation and fabric (RoCE: lower efficiency, higher latency).
CommProfile default_comm_profile(const ClusterSpec& cluster);

/// Bus bandwidth (bytes/s) a ring collective over `group` reaches on `cluster`, large messages.
double bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile);

/// Bus bandwidth (bytes/s) of an all-reduce over `group`, large messages: ring or NVLS inside a
/// node; across nodes NCCL's tree family on NVLS nodes with several ranks each (NVLSTree), else a
/// ring or the tree, whichever is faster.
double all_reduce_bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile);

/// Bytes the busiest node of NCCL's double binary tree sends (and receives) across the network per
/// byte of an all-reduce's buffer over `nodes` nodes. Each tree carries half the buffer up (reduce)
/// and down (broadcast); a node inner to one tree (a parent, two children) moves 3/2 of the buffer
/// there and, a leaf of the other, 1/2 more: 2 from four nodes on, whatever their number. On two
/// nodes each tree is a root and one child (1); on three, a chain and its shift (3/2). NCCL's tuner
/// models it alike (src/graph/tuning.cc: NVLSTree's bandwidth independent of the node count, its
/// network rate doubled on two nodes); a ring moves 2 (N-1)/N.
double tree_network_bytes_per_byte(std::int64_t nodes);

/// The fraction of its network stage's rate NCCL's tree family keeps over `group` once pipelined
/// with the node's all-reduce (CommProfile::tree_coupling_exponent): 1 where the node's stage is
/// free (one rank per node) or the exponent is 0 and the network binds.
double tree_network_share(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile);

/// Whether an all-reduce over `group` runs NCCL's tree family (across nodes, when at least as fast
/// as a ring), so that the flow fidelity lowers the algorithm this model costs.
bool all_reduce_uses_tree(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile);

/// Hops a collective's latency pays, as NCCL's tuner counts them: a ring over n ranks on N nodes
/// n - 1 (N - 1 across the network, n - N over NVLink), twice for all-reduce; NCCL's tree (an
/// all-reduce across nodes where all_reduce_uses_tree) 2 (ranks per node - 1) NVLink hops and
/// 2 ceil(log2 N) network hops; send/receive and all-to-all (NCCL's point-to-point operations, all
/// peers at once) one hop.
struct LatencySteps {
  double nvlink = 0.0;
  double network = 0.0;
};
LatencySteps latency_steps(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster,
                           const CommProfile& profile);

/// nccl-tests' bus-bandwidth factor: bytes each rank moves per byte of buffer.
double bus_factor(CollectiveOp op, std::int64_t ranks);

/// The protocol NCCL's tuner takes for a ring collective (all-gather, reduce-scatter, and an
/// all-reduce that runs as a ring) priced by the alpha-beta line: the fastest of
/// - LL: the line's own latency (launch + hops, the measured small-message cost), a quarter of
///   the bus bandwidth across nodes or for all-reduce, a third otherwise (8-byte lines of 4 data
///   bytes and a flag);
/// - LL128: 6.4 us more base latency, 1.43 us more per NVLink hop and 1.3 us per network hop, 0.92
///   of the bus bandwidth;
/// - Simple: 4.8 us more base latency, 2.93 us more per NVLink hop and 6.9 us per network hop,
///   the whole bus bandwidth (a chunk's fill and drain through every hop of the ring).
/// The extra latencies are NCCL's own differences between the protocols (src/graph/tuning.cc of
/// v2.8.4: ring base 3.6 / 10.0 / 8.4 us, NVLink hop 0.47 / 1.9 / 3.4 us, network hop 2.7 / 4.0 /
/// 9.6 us for LL / LL128 / Simple; bandwidth x 1/4 or 1/3, x 0.92, x 1). Large rings thus pay
/// LL128's or Simple's hop latency at every ring step, as NCCL's tuner charges it: Simple's is 6.9
/// ms over 1,536 A100 on 192 nodes (NCCL's own constants: 6.4 ms). Curves fitted to nccl-tests
/// logs, where a profile has them, take precedence (collective_time_s). Other collectives, and
/// all-reduce on NVLS or the tree: the line as it is, at the whole bandwidth. Limitations: NCCL's
/// LL and LL128 per-channel bandwidth caps are not applied, and LL128 is taken to be available
/// (NCCL enables it on NVLink nodes of Volta and later).
struct Protocol {
  double latency_s = 0.0;           // launch + base + hops
  double bandwidth_fraction = 1.0;  // of the bus bandwidth the protocol keeps
  double seconds = 0.0;             // the collective's time on the line in this protocol
};
Protocol collective_protocol(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                             const CommProfile& profile);

/// What collective_time_s prices `group` from under `profile`, in words: the profile's curve of
/// the layout, its curves at other node counts (interpolated, or the nearest scaled by the model),
/// the node's curve extended across nodes, or the alpha-beta line; and the curves measured under
/// the AWS OFI tuner that bound it (below).
std::string collective_basis(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster,
                             const CommProfile& profile);

/// Seconds for one collective of `bytes` over `group`; 0 for a group of one rank or with
/// cluster.ideal_network. Curves across nodes are read by the tuner that chose their algorithms
/// (CollectiveCurve::aws_ofi_tuner): on EFA those the AWS OFI plugin's tuner ran; elsewhere those
/// NCCL's own tuner ran, and the AWS ones only as a bound, the lesser time taken: the algorithm
/// that tuner ran at a size is one NCCL can run too, and NCCL's tuner takes it or one its model
/// finds faster, while that tuner's choices at small sizes (378 us for 1 MiB over 4 B200 nodes on
/// EFA) are not NCCL's.
double collective_time_s(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                         const CommProfile& profile);

}  // namespace clustersim::models
