#include "models/compute/runtime_memory.hpp"

#include <algorithm>
#include <cmath>

namespace clustersim::models {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// NCCL src/init.cc: DEFAULT_BUFFSIZE (1 << 22) for the Simple protocol; DEFAULT_LL128_BUFFSIZE =
// NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x NCCL_STEPS 8 x 8 bytes;
// DEFAULT_LL_BUFFSIZE = NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x NCCL_STEPS 8 x
// 16-byte lines (src/include/device.h): 9.1875 MiB a connection.
constexpr double kSimpleBufferBytes = 4.0 * kMiB;
constexpr double kLl128BufferBytes = 120.0 * 640.0 * 8.0 * 8.0;
constexpr double kLlBufferBytes = 8.0 * 512.0 * 8.0 * 16.0;

// Each GPU receives from its ring predecessor and, in the intra-node tree chain, from its parent
// and its child, on every channel; each connection's FIFO sits with the receiver (NVIDIA/nccl #1450,
// sjeaugey: each channel has its own buffer for ring and tree). Cross-check: a 4-GPU A100 NVLink
// communicator, 24 channels x 3 x 9.1875 MiB = 694 MB, against the 688 MB NVIDIA/nccl #964 measured.
constexpr int kCollectiveConnectionsPerChannel = 3;

// Two channels per NVLink: HGX A100 (12 NVLinks) runs 24 (NVIDIA/nccl-tests #100 logs "Channel
// 23/24"), H800 (8 NVLinks) 16 (NVIDIA/nccl #892: "16 coll channels"); NCCL caps collectives at 32
// channels (MAXCHANNELS in its 2.1x releases).
constexpr double kNvlinkBytesPerSPerLink = 25e9;
constexpr int kChannelsPerNvlink = 2;
constexpr int kMaxChannels = 32;
constexpr int kChannelsWithoutNvlink = 2;

// Point-to-point: NCCL_NCHANNELS_PER_NET_PEER defaults to 2 (NVIDIA/nccl #1424); a pipeline
// stage or ring-attention rank talks to two neighbours.
constexpr int kP2pChannelsPerPeer = 2;
constexpr int kP2pPeers = 2;

// Transformer Engine transformer_engine/pytorch/module/base.py: get_workspace() allocates
// get_num_cublas_streams() = 4 workspaces of get_cublas_workspace_size_bytes(): 33,554,432 B on
// compute capability 9.0 and later, 4,194,304 B before.
constexpr int kCublasStreams = 4;
constexpr double kHopperWorkspaceBytes = 33554432.0;
constexpr double kAmpereWorkspaceBytes = 4194304.0;

}  // namespace

// kCudaContextBytes: pytorch/pytorch #109888 (ptrblck): the first CUDA operation creates a context
// of around 400 MB with CUDA >= 11.7 and lazy module loading, PyTorch's default since 1.13
// (pytorch/pytorch #86509 measured 287 MB with LAZY against 667 MB without).
// kAllocatorFragmentation: the caching allocator's reserved minus allocated bytes at the peak, as
// Megatron-LM's memory report lines show it: 1.4 % (NVIDIA/Megatron-LM #965: 41,291 MB allocated,
// 41,854 MB reserved) and 13 % (NVIDIA/Megatron-LM pull request #5662's sample log: 5,670 MB max allocated, 6,406 MB max
// reserved); 5 % lies between the two. Allocators without fragmentation-aware planning lose more
// under recomputation and virtual pipelines (up to 43 %, Huang et al. 2025, arXiv:2507.16274).

Communicators communicators(const ParallelismSpec& p, bool tied_embeddings, bool is_first_stage,
                            bool is_last_stage) {
  Communicators c;
  c.collective = 1;  // the world: barriers and loss logging
  if (p.tp > 1) ++c.collective;
  if (p.dp * p.cp > 1) {
    ++c.collective;
    const bool hybrid = p.zero >= 3 && p.shard_group > 0 && p.shard_group < p.dp * p.cp;
    if (hybrid) ++c.collective;  // the replica group across shard groups
  }
  if (p.pp > 1 && tied_embeddings && (is_first_stage || is_last_stage)) ++c.collective;
  if (p.pp > 1) ++c.point_to_point;
  if (p.cp > 1) ++c.point_to_point;
  return c;
}

int nccl_channels(const GpuSpec& gpu) {
  const double links = std::floor(gpu.nvlink_bytes_per_s / kNvlinkBytesPerSPerLink);
  if (links < 1.0) return kChannelsWithoutNvlink;
  return std::min(kMaxChannels, kChannelsPerNvlink * static_cast<int>(links));
}

double nccl_connection_bytes() { return kSimpleBufferBytes + kLl128BufferBytes + kLlBufferBytes; }

double nccl_buffer_bytes(const Communicators& comms, const GpuSpec& gpu) {
  const double collective =
      static_cast<double>(nccl_channels(gpu) * kCollectiveConnectionsPerChannel) * nccl_connection_bytes();
  const double p2p = static_cast<double>(kP2pPeers * kP2pChannelsPerPeer) * nccl_connection_bytes();
  return comms.collective * collective + comms.point_to_point * p2p;
}

double workspace_bytes(const GpuSpec& gpu) {
  const bool hopper_or_later = gpu.fp8_flops_per_s > 0.0;  // FP8 tensor cores came with compute capability 9.0
  return kCublasStreams * (hopper_or_later ? kHopperWorkspaceBytes : kAmpereWorkspaceBytes);
}

RuntimeMemory runtime_memory(double tensor_bytes, const Communicators& comms, const GpuSpec& gpu) {
  return {.cuda_context_bytes = kCudaContextBytes,
          .nccl_bytes = nccl_buffer_bytes(comms, gpu),
          .workspace_bytes = workspace_bytes(gpu),
          .fragmentation_bytes = kAllocatorFragmentation * tensor_bytes};
}

}  // namespace clustersim::models
