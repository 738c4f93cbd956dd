#include "calibration/bench/copy_kernel.hpp"

namespace clustersim::bench {
namespace {

__global__ void copy16(int4* target, const int4* source, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    target[i] = source[i];
  }
}

}  // namespace

cudaError_t copy_on_ctas(void* target, const void* source, std::size_t bytes, unsigned ctas, cudaStream_t stream) {
  if (bytes % 16 != 0 || ctas == 0) return cudaErrorInvalidValue;
  copy16<<<ctas, 512, 0, stream>>>(static_cast<int4*>(target), static_cast<const int4*>(source), bytes / 16);
  return cudaGetLastError();
}

}  // namespace clustersim::bench
