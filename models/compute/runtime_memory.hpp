#pragma once
/// Memory a training process holds on each GPU besides the model's tensors: the CUDA context,
/// NCCL's communication buffers, the cuBLAS workspaces Transformer Engine keeps, and what the
/// PyTorch caching allocator reserves but cannot hand out (fragmentation).
/// Units: bytes.
/// NCCL: every communicator a GPU has joined keeps, per channel, one FIFO per connection it
/// receives on, for each of the three protocols (Simple NCCL_BUFFSIZE 4 MiB, LL128 4.6875 MiB,
/// LL 0.5 MiB: NCCL src/init.cc DEFAULT_BUFFSIZE, DEFAULT_LL128_BUFFSIZE, DEFAULT_LL_BUFFSIZE).
/// A collective communicator receives on three connections per channel (its ring predecessor;
/// its parent and child in the intra-node tree chain); NCCL runs 2 channels per NVLink, at most
/// 32. Point-to-point communicators (pipeline stages, ring attention) keep 2 channels per peer
/// (NCCL_NCHANNELS_PER_NET_PEER) to each of two neighbours.
/// Limitations: NVLink SHARP (NVLS) buffers are left out (NeMo's launcher sets
/// NCCL_NVLS_ENABLE=0 to save their memory); network communicators are counted with the intra-node
/// channel count; CUDA graph pools, Transformer Engine userbuffers (TP overlap) and fp8 weight
/// caches are not counted; the context size is that of CUDA >= 11.7 with lazy module loading
/// (before it, every kernel image was loaded at start: over 1 GB).
/// Sources: per constant in runtime_memory.cpp.

#include <cstdint>

#include "models/spec/gpu_spec.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

struct RuntimeMemory {
  double cuda_context_bytes = 0.0;
  double nccl_bytes = 0.0;
  double workspace_bytes = 0.0;
  double fragmentation_bytes = 0.0;
  double total() const { return cuda_context_bytes + nccl_bytes + workspace_bytes + fragmentation_bytes; }
};

/// NCCL communicators one GPU of a Megatron-style layout initialises: collectives over the world
/// (barriers, logging), the TP group, the data-parallel group (dp x cp ranks; with hybrid
/// sharding, the shard group and the replica group), and the embedding group of the first and last
/// stages when a pipelined model ties its embeddings; point-to-point ones for the pipeline and for
/// context parallelism's ring attention.
struct Communicators {
  int collective = 0;
  int point_to_point = 0;
};
Communicators communicators(const ParallelismSpec& parallelism, bool tied_embeddings, bool is_first_stage,
                            bool is_last_stage);

/// NCCL channels of a collective communicator on this GPU: 2 per NVLink (25 GB/s per direction
/// each on NVLink 3 and 4), at most NCCL's 32; 2 without NVLink.
int nccl_channels(const GpuSpec& gpu);

/// NCCL buffer bytes of one connection: the three protocols' FIFOs.
double nccl_connection_bytes();

/// NCCL buffers of all the GPU's communicators.
double nccl_buffer_bytes(const Communicators& comms, const GpuSpec& gpu);

/// cuBLAS workspaces: Transformer Engine keeps one per cuBLAS stream (4), 32 MiB each on Hopper and
/// later (the GPUs with FP8 tensor cores), 4 MiB before.
double workspace_bytes(const GpuSpec& gpu);

/// The caching allocator's reserved-but-unallocated share, as a fraction of the live tensors at
/// the peak.
inline constexpr double kAllocatorFragmentation = 0.05;

/// CUDA context of a PyTorch process (driver state and the kernels it has loaded).
inline constexpr double kCudaContextBytes = 400e6;

/// The runtime memory of one GPU that holds `tensor_bytes` of tensors at its peak.
RuntimeMemory runtime_memory(double tensor_bytes, const Communicators& comms, const GpuSpec& gpu);

}  // namespace clustersim::models
