#include "models/comm/nccl_channel.hpp"

#include <string>

#include "models/spec/gpu_spec.hpp"

namespace clustersim::models {
namespace {

// NCCL's tuner bounds a channel's bandwidth only where it must (src/graph/tuning.cc; its Simple
// rings take the topology search's per-channel speed, an upper bound the search tries rather than
// a measurement); those per-channel ceilings are NVIDIA's own figures for what one CTA moves. A
// ring collective's channel is held to the LL128 ring's (perChMaxRingLL128Bws), taken for its bulk
// protocol too; a send/receive's, which never runs LL128, to the Simple protocol's, whose only
// per-channel figure in the tuning model is the Simple tree's (perChMaxTreeBws, one node).
constexpr std::string_view kRing =
    "NCCL src/graph/tuning.cc perChMaxRingLL128Bws (v2.18-v2.30 for Ampere and Hopper): the most one ring "
    "channel, one CTA, moves per direction in NCCL's tuning model";
constexpr std::string_view kP2p =
    "NCCL src/graph/tuning.cc perChMaxTreeBws, one node (v2.18-v2.30; Blackwell's from v2.28.3): the most one Simple-protocol channel, one CTA, "
    "moves in NCCL's tuning model; send/receive runs LL or Simple, never LL128 (src/enqueue.cc P2P_LL_THRESHOLD)";

Sourced<double> figure(double gb_per_s, std::string_view table, std::string_view arch) {
  return {gb_per_s * 1e9, std::string(table) + ", " + std::string(arch)};
}

}  // namespace

NcclChannelRates nccl_channel_rates(std::string_view gpu) {
  const GpuGeneration generation = gpu_generation(gpu);
  if (generation == GpuGeneration::ampere)
    return {figure(20.0, kRing, "Ampere: 20 GB/s"), figure(24.0, kP2p, "Ampere: 24 GB/s")};
  if (generation == GpuGeneration::hopper)
    return {figure(36.7, kRing, "Hopper: 36.7 GB/s"), figure(38.7, kP2p, "Hopper: 38.7 GB/s")};
  // NVIDIA has revised Blackwell's LL128 figure as it measured: 2 x 36.7 in v2.28.3 (the NCCL of
  // MLPerf v5.1's NeMo containers), 34.5 in v2.29.2, 40 from v2.29.7 on; the current one is taken.
  if (generation == GpuGeneration::blackwell)
    return {figure(40.0, kRing, "Blackwell: 40 GB/s from v2.29.7 (2 x 36.7 in v2.28.3, 34.5 in v2.29.2)"),
            figure(70.0, kP2p, "Blackwell: 70 GB/s")};
  const std::string none = "no NCCL channel rate built in for GPU \"" + std::string(gpu) + "\": CTA limits not modelled";
  return {{0.0, none}, {0.0, none}};
}

double nccl_cta_limited_bytes_per_s(CollectiveOp op, int ctas, const NcclChannelRates& rates) {
  // A send/receive's CTA gives about half its warps to each direction (src/device/sendrecv.h).
  const bool p2p = op == CollectiveOp::send_recv || op == CollectiveOp::all_to_all;
  const double per_cta = p2p ? rates.p2p.value / 2.0 : rates.ring.value;
  return static_cast<double>(ctas) * per_cta;
}

}  // namespace clustersim::models
