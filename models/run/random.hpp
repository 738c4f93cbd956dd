#pragma once
/// Deterministic random numbers for Monte Carlo runs: xoshiro256** seeded through splitmix64, with
/// its own uniform and exponential draws, so a seed gives the same runs with every compiler and
/// standard library (the std:: distributions do not promise that).
/// Units: exponential draws are in the reciprocal unit of the rate passed.
/// Source: Blackman and Vigna, "Scrambled linear pseudorandom number generators" (ACM TOMS 2021),
/// reference code at prng.di.unimi.it; splitmix64 from Steele, Lea and Flood (OOPSLA 2014).

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/hashing.hpp"

namespace clustersim::models {

/// The seed of run `index` of a Monte Carlo experiment seeded with `seed`: independent of how runs
/// are spread over threads, so results do not depend on the thread count.
constexpr std::uint64_t run_seed(std::uint64_t seed, std::uint64_t index) {
  return sim::mix64(seed ^ (0xd1b54a32d192ed03ULL * (index + 1)));
}

class Random {
 public:
  explicit constexpr Random(std::uint64_t seed) {
    sim::SplitMix64 expand(seed);  // the recommended way to expand one seed into xoshiro's state
    for (auto& word : s_) word = expand.next();
  }

  constexpr std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in (0, 1]: the top 53 bits, shifted by one ulp so that log() never sees 0.
  double uniform_open0() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }

  /// Exponential with the given rate (mean 1 / rate); infinity for rate 0.
  double exponential(double rate) {
    if (!(rate > 0)) return std::numeric_limits<double>::infinity();
    return -std::log(uniform_open0()) / rate;
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::array<std::uint64_t, 4> s_{};
};

}  // namespace clustersim::models
