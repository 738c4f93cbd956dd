#pragma once
/// Filling device buffers with random, non-zero values, on the GPU (a host-side fill of a few GiB
/// would take longer than the benchmark). Values are uniform in [-1, 1] with |x| >= 1/64, so they
/// stay non-zero after rounding to fp8 e4m3 (smallest normal 2^-6): GEMMs then do real work and
/// no zero-skipping shortcut can flatter them.
/// Limitations: a counter-based hash (splitmix64), not a statistical-quality generator.
/// Source: splitmix64 from Steele, Lea & Flood, "Fast splittable pseudorandom number generators"
/// (OOPSLA 2014).

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace clustersim::bench {

enum class Element { f32, bf16, fp8_e4m3 };

std::size_t element_bytes(Element element);

/// Fills `count` elements at `data` (device memory) on `stream`; returns the launch status.
cudaError_t fill_random(void* data, std::size_t count, Element element, std::uint64_t seed, cudaStream_t stream);

}  // namespace clustersim::bench
