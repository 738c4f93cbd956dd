#pragma once
/// What one NCCL channel moves: NCCL runs each channel of a collective or a send/receive as one
/// CTA, so a communicator held to a few CTAs (the `max_ctas` of ncclConfig_t, which Megatron-Core
/// and NeMo set per communicator from `nccl_communicator_config_path`) moves at most that many
/// channels' worth, whatever the links could carry.
///
/// Rates are per direction, bytes per second:
/// - a ring collective's channel receives from its predecessor and sends to its successor in one
///   pass of all its warps (src/device/prims_simple.h recvCopySend and friends): the ring channel's
///   rate, NCCL's ceiling for an LL128 ring channel;
/// - a send/receive (and the all-to-all NCCL builds from them) runs LL up to 16 KiB a channel and
///   Simple above it, never LL128 (src/enqueue.cc: P2P_LL_THRESHOLD), so its channel is held to
///   the Simple protocol's ceiling, and it splits one CTA's warps between the send and the receive
///   of its peers (src/device/sendrecv.h: nSendWarpPerWork and nRecvWarpPerWork, about half each),
///   so each direction gets half of that.

#include <string_view>

#include "models/comm/collective_curve.hpp"
#include "models/compute/sourced.hpp"

namespace clustersim::models {

/// The most one channel (one CTA) moves per second on the GPU, per direction, by what it runs;
/// 0 where no figure is built in for the GPU.
struct NcclChannelRates {
  Sourced<double> ring;  // a ring collective's channel
  Sourced<double> p2p;   // a send/receive's channel, both directions together (Simple)
};
NcclChannelRates nccl_channel_rates(std::string_view gpu);

/// The most a rank of a communicator held to `ctas` CTAs sends per second under `op`.
double nccl_cta_limited_bytes_per_s(CollectiveOp op, int ctas, const NcclChannelRates& rates);

}  // namespace clustersim::models
