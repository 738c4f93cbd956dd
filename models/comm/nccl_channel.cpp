#include "models/comm/nccl_channel.hpp"

#include <string>

namespace clustersim::models {
namespace {

// NCCL's tuner bounds a ring channel's bandwidth only where it must (src/graph/tuning.cc,
// perChMaxRingLL128Bws; its Simple rings take the topology search's per-channel speed, an upper
// bound the search tries rather than a measurement); those per-channel ceilings are NVIDIA's own
// figures for what one CTA moves, taken here for the bulk protocol too.
constexpr std::string_view kTable =
    "NCCL src/graph/tuning.cc perChMaxRingLL128Bws (v2.18-v2.30 for Ampere and Hopper): the most one ring "
    "channel, one CTA, moves per direction in NCCL's tuning model";

Sourced<double> channel(double gb_per_s, std::string_view arch) {
  return {gb_per_s * 1e9, std::string(kTable) + ", " + std::string(arch)};
}

}  // namespace

Sourced<double> nccl_channel_bytes_per_s(std::string_view gpu) {
  if (gpu == "a100-80gb") return channel(20.0, "Ampere: 20 GB/s");
  if (gpu == "h100-sxm" || gpu == "h200-sxm") return channel(36.7, "Hopper: 36.7 GB/s");
  // NVIDIA has revised Blackwell's figure as it measured: 2 x 36.7 in v2.28.3 (the NCCL of MLPerf
  // v5.1's NeMo containers), 34.5 in v2.29.2, 40 from v2.29.7 on; the current one is taken.
  if (gpu == "b200" || gpu == "gb200")
    return channel(40.0, "Blackwell: 40 GB/s from v2.29.7 (2 x 36.7 in v2.28.3, 34.5 in v2.29.2)");
  return {0.0, "no NCCL channel rate built in for GPU \"" + std::string(gpu) + "\": CTA limits not modelled"};
}

double nccl_cta_limited_bytes_per_s(CollectiveOp op, int ctas, double channel_bytes_per_s) {
  const double all = static_cast<double>(ctas) * channel_bytes_per_s;
  // A send/receive's CTA gives about half its warps to each direction (src/device/sendrecv.h).
  const bool split = op == CollectiveOp::send_recv || op == CollectiveOp::all_to_all;
  return split ? all / 2.0 : all;
}

}  // namespace clustersim::models
