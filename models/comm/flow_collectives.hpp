#pragma once
/// Collectives lowered to concurrent point-to-point transfers on real routes, the `flow`
/// communication fidelity. A lowered collective is a start task that pays its latency, the
/// transfers (each over its route's link resources, sharing them by max-min fairness), and an end
/// task; successors wait for the end task only. Algorithms:
/// - ring (all-reduce, reduce-scatter, all-gather): each rank sends bus_factor x S to its ring
///   successor (2(n-1)/n x S for all-reduce, (n-1)/n x S otherwise). A group of k > 1 ranks on
///   each of several nodes runs k channels of S/k, as NCCL does: channel c enters each node on one
///   rail, visits the node's ranks over NVLink and leaves on the rail the next node enters on
///   (ascending on even nodes, descending on odd ones), so every NIC carries one channel and
///   inter-node hops stay rail-aligned (with an odd node count the closing hop changes rails).
/// - nvls (all-reduce inside an NVSwitch node): each GPU pushes S into the switch, which reduces
///   and multicasts S back; each direction held to the profile's NVLS rate.
/// - tree (all-reduce across nodes, NCCL's tree family): inside each node an all-reduce (NVLS or a
///   ring), and at the same time (pipelined) each rail's ranks move the busiest node's tree traffic
///   (S/k x tree_network_bytes_per_byte: 1 on two nodes, 2 from four) around the N nodes, held
///   to the NIC rate x the profile's tree efficiency x the share of it the pipeline with the
///   node's stage leaves (models/comm/collectives.hpp, tree_network_share).
/// - hierarchical all-reduce: intra-node reduce-scatter over NVLink, an all-reduce ring per rail
///   across nodes on S/k, then an intra-node all-gather, one phase after the other.
/// - direct all-to-all: every rank sends S/n to every other rank at once. Across nodes NCCL sends
///   rail-aligned (PXN: a byte for a peer on another node first crosses NVLink to the GPU of the
///   peer's rail), so the exchange puts on every NVLink and NIC link the load of a rotation: over
///   a group of k ranks on each of N nodes, each rank sends its (k-1) S/n for its own node to its
///   node's next rank, and k S/n to the rank of its position on each other node, which is what the
///   n (n-1) pairwise transfers load each link with, in n N flows. Groups of unequal nodes: the
///   pairwise transfers.
/// - send/receive: one transfer of S; across nodes between GPUs on different rails, NCCL's PXN
///   (on by default since NCCL 2.12): S over NVLink to the sender's node's GPU on the receiver's
///   rail and S from there through its NIC, pipelined (rail-aligned, as the all-to-all's).
/// `automatic` picks what the analytic model assumes NCCL picks (collectives.hpp): for all-reduce
/// NVLS or a ring inside a node, the tree across nodes; rings for the other collectives.
/// Flow classes: transfers with the same ends, size, cap and channel become one task of weight k.
/// Latency: the analytic model's step counts and hop latencies from the same CommProfile, paid once
/// before the transfers, so the fidelities differ only in how bytes move. Routes are ECMP-hashed
/// per (pair, channel) and so the same for every call.
/// Units: bytes (S is the full buffer, nccl-tests' "size"), seconds.
/// Limitations: bandwidth starts after the whole latency (no overlap of the two); the tree's
/// traffic pattern is a ring per rail with the tree's byte count and efficiency, not a binary tree;
/// an all-to-all's PXN hop over NVLink (at most (k-1)/k of the inter-node bytes, on links many
/// times a NIC's rate) is left out.
/// Source: ring step counts and bus factors as in nccl-tests' PERFORMANCE.md; channel layout as
/// NCCL's rail-aligned rings (one ring per NIC); NVLS and tree rates as in collectives.cpp.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "models/comm/collectives.hpp"
#include "models/comm/flow_network.hpp"
#include "sim/task_graph.hpp"

namespace clustersim::models {

/// The first and last task of a lowered communication: predecessors point at `first`, successors
/// wait for `last`.
struct FlowSpan {
  sim::TaskId first = 0;
  sim::TaskId last = 0;
};

/// Which links of the route from src to dst a transfer crosses: all of them, or only the first
/// (src into its switch) or the last (the switch into dst), for in-switch reduction.
enum class RoutePart : std::uint8_t { whole, first, last };

/// One point-to-point transfer between ranks; `weight` identical ones when > 1.
struct Transfer {
  std::int64_t src = 0;
  std::int64_t dst = 0;
  double bytes = 0.0;
  double weight = 1.0;
  std::uint32_t channel = 0;  // ECMP flow id of inter-node hops
  double cap_bytes_per_s = std::numeric_limits<double>::infinity();  // per flow
  RoutePart part = RoutePart::whole;
};

enum class FlowAlgorithm { automatic, ring, nvls, tree, hierarchical, direct };

/// Adds transfers to a task graph over a FlowNetwork's link resources, which the graph's engine
/// must hold from `first_link` on.
class FlowLowering {
 public:
  FlowLowering(FlowNetwork& network, sim::ResourceId first_link) : network_(network), first_link_(first_link) {}

  FlowNetwork& network() { return network_; }
  /// A start task paying `latency_s`, the transfers (merged into flow classes; each labelled with
  /// its sender's rank), an end task. Stage, phase and kind come from `label`.
  FlowSpan add(sim::TaskGraph& graph, std::vector<Transfer> transfers, double latency_s, sim::TaskLabel label);

 private:
  FlowNetwork& network_;
  sim::ResourceId first_link_;
  std::vector<sim::ResourceId> scratch_;
};

/// Appends the ring transfers of one group: each rank sends `bytes_per_rank` to its successor,
/// split over channels as described above. `ranks` in ring order, grouped by node.
void append_ring(const FlowNetwork& network, std::span<const std::int64_t> ranks, double bytes_per_rank,
                 std::vector<Transfer>& out);

/// Appends the transfers of an all-reduce of S bytes over one group by `algorithm` (automatic:
/// as the analytic model picks). Throws std::invalid_argument for an algorithm the group cannot use.
void append_all_reduce(const FlowNetwork& network, std::span<const std::int64_t> ranks, double bytes,
                       FlowAlgorithm algorithm, const ClusterSpec& cluster, const CommProfile& profile,
                       std::vector<Transfer>& out);

/// Appends the transfers of an all-to-all of `bytes_per_rank` (each rank's whole buffer, S) over
/// one group, as described above.
void append_all_to_all(const FlowNetwork& network, std::span<const std::int64_t> ranks, double bytes_per_rank,
                       std::vector<Transfer>& out);

/// The group's shape for the analytic model: its size and most ranks on one node.
CommGroup comm_group_of(const FlowNetwork& network, std::span<const std::int64_t> ranks);

struct CollectiveCall {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;                    // S
  std::span<const std::int64_t> ranks;   // send_recv: {from, to}
  FlowAlgorithm algorithm = FlowAlgorithm::automatic;
};

/// Lowers one collective; throws std::invalid_argument for an algorithm the op or group cannot use.
FlowSpan lower_collective(sim::TaskGraph& graph, FlowLowering& lowering, const CollectiveCall& call,
                          const ClusterSpec& cluster, const CommProfile& profile, sim::TaskLabel label = {});

}  // namespace clustersim::models
