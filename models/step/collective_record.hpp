#pragma once
/// One collective of a training step, described once: its operation, its bytes, the analytic
/// model's view of its group (ranks, ranks per node) and its placement on the cluster (which
/// parallel dimension's ranks run it). Both fidelities derive their costs from the record: the
/// `analytic` one its alpha-beta seconds (collectives.hpp), the `flow` one its traffic (what each
/// rank sends, lowered on the group's real routes by flow_step.hpp).
/// A communication task of the step stands for a sum of records (CommPart): for instance a chunk's
/// forward tensor-parallel task is layers x (2 x (all-gather + reduce-scatter)). Seconds and
/// traffic of a task fold its parts in the same order, so the two fidelities agree on what a task
/// moves. A default record is a group of one rank: no time, no traffic.
/// Units: bytes (a collective's full buffer, nccl-tests' "size"; a send's bytes per rank), seconds.

#include <array>
#include <cassert>
#include <cstdint>
#include <limits>
#include <span>

#include "models/comm/collectives.hpp"
#include "models/comm/nccl_channel.hpp"
#include "models/spec/cluster_spec.hpp"

namespace clustersim::models {

/// Which ranks a collective runs between, for the `flow` fidelity (flow_step.hpp).
enum class CommScope : std::uint8_t {
  tp,            // the stage's tensor-parallel rings
  dp,            // the stage's data-parallel rings (over dp x cp ranks: all hold the same weights)
  dp_shard,      // ZeRO-3 hybrid sharding: the rings inside each shard group of those ranks
  dp_replica,    // ... and across the groups, between the ranks holding the same shard
  cp,            // the stage's context-parallel rings (ring attention's K/V blocks)
  pp_next,       // each rank to its peer on the next stage (forward activations)
  pp_previous,   // each rank to its peer on the previous stage (backward gradients)
  ep,            // MoE: the stage's expert-parallel groups (token dispatch and combine)
  ep_dp,         // MoE: the ranks holding the same experts (their gradient reduction)
  ep_tp,         // MoE: the etp ranks splitting each expert (expert tensor parallelism)
  pp_ends,       // each rank of the first stage and its peer on the last (a tied embedding's gradient)
  cp_inner,      // context parallel a2a+p2p: the all-to-all groups of consecutive context ranks
  cp_outer,      // ... and the rings across them, between the ranks at one position of each group
};

/// What a collective moves under the `flow` fidelity: every rank of each group of its scope sends
/// `ring_bytes` to its successor (its ring neighbour; for a pipeline send, its peer on the
/// neighbouring stage), each group all-reduces `all_reduce_bytes` (buffer size, lowered as
/// flow_collectives.hpp picks), and each rank sends 1/n of `all_to_all_bytes` to every other rank
/// of its group (n ranks), after `latency_s`, the analytic model's latency.
struct Traffic {
  double ring_bytes = 0.0;
  double all_reduce_bytes = 0.0;
  double all_to_all_bytes = 0.0;
  double latency_s = 0.0;
  // The most a rank sends per second, whatever the links carry (a communicator held to few CTAs,
  // nccl_channel.hpp); spread over its flows in proportion to their bytes.
  double send_cap_bytes_per_s = std::numeric_limits<double>::infinity();

  double bytes() const { return ring_bytes + all_reduce_bytes + all_to_all_bytes; }
  // Two pieces sent one after the other take the sum of their times at their own caps: the sum's
  // cap is the rate that moves both pieces' bytes in that time (infinite where neither is capped).
  Traffic& operator+=(const Traffic& other) {
    const double capped_s = bytes() / send_cap_bytes_per_s + other.bytes() / other.send_cap_bytes_per_s;
    ring_bytes += other.ring_bytes;
    all_reduce_bytes += other.all_reduce_bytes;
    all_to_all_bytes += other.all_to_all_bytes;
    latency_s += other.latency_s;
    send_cap_bytes_per_s = capped_s > 0.0 ? bytes() / capped_s : std::numeric_limits<double>::infinity();
    return *this;
  }
  Traffic scaled(double factor) const {
    return {ring_bytes * factor, all_reduce_bytes * factor, all_to_all_bytes * factor, latency_s * factor,
            send_cap_bytes_per_s};
  }
  bool empty() const {
    return ring_bytes <= 0.0 && all_reduce_bytes <= 0.0 && all_to_all_bytes <= 0.0 && latency_s <= 0.0;
  }
};

struct CollectiveRecord {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;
  CommGroup group{};                // the analytic model's view of the group
  CommScope scope = CommScope::tp;  // where the flow fidelity places it
  double seconds = 0.0;             // analytic time: collective_time_s of the fields above + host_s + staging_s
  double host_s = 0.0;              // host work of the issuing framework around the collective
                                    // (sharding.hpp), before the GPU can run it; in both fidelities
  double staging_s = 0.0;           // its HBM copies of the buffer around the NCCL call (sharding.hpp)
  // The most one rank sends per second where its communicator is held to few CTAs
  // (nccl_channel.hpp); infinite otherwise. `seconds` already counts it.
  double send_cap_bytes_per_s = std::numeric_limits<double>::infinity();
};

/// A record with its analytic seconds and no host work.
CollectiveRecord make_collective(CollectiveOp op, double bytes, const CommGroup& group, CommScope scope,
                                 const ClusterSpec& cluster, const CommProfile& profile);

/// The record on a communicator held to `ctas` CTAs (NCCL's max_ctas), each channel moving at most
/// what `rates` says for the record's operation (nccl_channel.hpp): a rank sends no faster than
/// nccl_cta_limited_bytes_per_s, so the record takes at least its protocol's latency (and its host
/// and staging time) plus its bytes on the wire at that rate. `ctas` 0 or no rate: the record
/// unchanged.
CollectiveRecord held_to_ctas(CollectiveRecord record, int ctas, const NcclChannelRates& rates,
                              const ClusterSpec& cluster, const CommProfile& profile);

/// The record's traffic under the `flow` fidelity; empty for a group of one rank. All-reduce moves
/// its buffer by the algorithm the lowering picks; all-to-all its buffer spread over the group's
/// ranks; a send its bytes; the other collectives bus factor x bytes per rank around a ring.
Traffic collective_traffic(const CollectiveRecord& record, const ClusterSpec& cluster, const CommProfile& profile);

/// A share of a communication task: scale x (repeat x (first + second)); `second` may be absent.
/// The records belong to the step plan the part was made from.
struct CommPart {
  const CollectiveRecord* first = nullptr;
  const CollectiveRecord* second = nullptr;
  double repeat = 1.0;  // times per layer (or 1)
  double scale = 1.0;   // layers, or a gradient bucket's share
};

/// The parts of one communication task: at most six (tensor-parallel collectives; a context-
/// parallel exchange; ZeRO-3's gathers and reduce-scatters beside a pass, a MoE model's expert
/// shards among them).
struct CommParts {
  std::array<CommPart, 6> parts{};
  std::uint8_t count = 0;

  void add(const CommPart& part) {
    assert(count < parts.size());
    parts[count++] = part;
  }
  std::span<const CommPart> span() const { return {parts.data(), count}; }
};

/// Analytic seconds of a task: its parts' seconds summed in order.
double comm_seconds(std::span<const CommPart> parts);

/// Bytes a rank puts on the bus over a task's parts: bus factor x bytes of each record (nccl-tests'
/// busbw x time), a group of one rank none.
double comm_bus_bytes(std::span<const CommPart> parts);

/// Traffic of consecutive parts of one scope, summed in order.
Traffic comm_traffic(std::span<const CommPart> parts, const ClusterSpec& cluster, const CommProfile& profile);

}  // namespace clustersim::models
