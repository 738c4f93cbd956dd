#pragma once
/// What one NCCL channel moves: NCCL runs each channel of a collective or a send/receive as one
/// CTA, so a communicator held to a few CTAs (the `max_ctas` of ncclConfig_t, which Megatron-Core
/// and NeMo set per communicator from `nccl_communicator_config_path`) moves at most that many
/// channels' worth, whatever the links could carry.
///
/// Rates are per direction, bytes per second:
/// - a ring collective's channel receives from its predecessor and sends to its successor in one
///   pass of all its warps (src/device/prims_simple.h recvCopySend and friends): the channel rate;
/// - a send/receive (and the all-to-all NCCL builds from them) splits one CTA's warps between the
///   send and the receive of its peers (src/device/sendrecv.h: nSendWarpPerWork and
///   nRecvWarpPerWork, about half each), so each direction gets half of it.

#include <string_view>

#include "models/comm/collective_curve.hpp"
#include "models/compute/sourced.hpp"

namespace clustersim::models {

/// The most one channel (one CTA) of a ring collective moves per second on the GPU, per
/// direction; 0 where no figure is built in for the GPU.
Sourced<double> nccl_channel_bytes_per_s(std::string_view gpu);

/// The most a rank of a communicator held to `ctas` CTAs sends per second under `op`.
double nccl_cta_limited_bytes_per_s(CollectiveOp op, int ctas, double channel_bytes_per_s);

}  // namespace clustersim::models
