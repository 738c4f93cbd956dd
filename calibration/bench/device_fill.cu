#include "calibration/bench/device_fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace clustersim::bench {
namespace {

__device__ float uniform_nonzero(std::uint64_t index, std::uint64_t seed) {
  std::uint64_t z = index + seed * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const float x = static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
  const float floor = 1.0f / 64.0f;
  return fabsf(x) < floor ? copysignf(floor, x) : x;
}

template <class T>
__global__ void fill(T* data, std::size_t count, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = T(uniform_nonzero(i, seed));
  }
}

template <class T>
cudaError_t launch(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  constexpr unsigned threads = 256;
  const std::size_t wanted = (count + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65535 ? (wanted > 0 ? wanted : 1) : 65535);
  fill<T><<<blocks, threads, 0, stream>>>(static_cast<T*>(data), count, seed);
  return cudaGetLastError();
}

}  // namespace

std::size_t element_bytes(Element element) {
  switch (element) {
    case Element::f32: return 4;
    case Element::bf16: return 2;
    case Element::fp8_e4m3: return 1;
  }
  return 4;
}

cudaError_t fill_random(void* data, std::size_t count, Element element, std::uint64_t seed, cudaStream_t stream) {
  switch (element) {
    case Element::f32: return launch<float>(data, count, seed, stream);
    case Element::bf16: return launch<__nv_bfloat16>(data, count, seed, stream);
    case Element::fp8_e4m3: return launch<__nv_fp8_e4m3>(data, count, seed, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace clustersim::bench
