#pragma once
/// Deterministic 64-bit mixing for ECMP choices, Valiant intermediates, sampling and failure
/// injection: the same inputs give the same bits on every platform and run (std::hash and the
/// std:: distributions do not promise that).
/// Source: splitmix64 finalizer (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014), constants as in Vigna's reference code.

#include <cstdint>

namespace clustersim::topologies {

constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Folds values into one hash, order-sensitive.
constexpr std::uint64_t hash_combine(std::uint64_t h, std::uint64_t value) { return mix64(h ^ mix64(value)); }

/// A tiny deterministic generator (splitmix64 sequence).
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}
  constexpr std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) for n > 0; the modulo bias (< n / 2^64) is negligible here.
  constexpr std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

}  // namespace clustersim::topologies
