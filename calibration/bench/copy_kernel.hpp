#pragma once
/// A device-to-device copy on a chosen number of CTAs: the memory-bound kernel overlap_bench
/// times (on the whole GPU), and a stand-in for a communication kernel that holds a known number
/// of SMs (one CTA of 512 threads per SM, as NCCL's kernels are resident one CTA per channel).
/// Limitations: 16-byte loads and stores; bytes must be a multiple of 16.
/// Source: written here.

#include <cstddef>

#include <cuda_runtime_api.h>

namespace clustersim::bench {

/// Copies `bytes` from `source` to `target` (device memory) with `ctas` CTAs on `stream`; returns
/// the launch status.
cudaError_t copy_on_ctas(void* target, const void* source, std::size_t bytes, unsigned ctas, cudaStream_t stream);

}  // namespace clustersim::bench
