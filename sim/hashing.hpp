#pragma once
/// Deterministic hashing for the whole project, so that the same inputs give the same bits on
/// every platform and run (std::hash and the std:: distributions do not promise that):
/// - mix64 and SplitMix64: ECMP choices, Valiant intermediates, sampling, failure injection and the
///   seeding of the Monte Carlo generator;
/// - fnv1a64: fingerprints of inputs (calibration profiles, sweep shards).
/// Sources: splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014), constants as in Vigna's reference code; FNV-1a 64-bit (Fowler, Noll, Vo; the
/// offset basis and prime of the IETF draft draft-eastlake-fnv).

#include <cstdint>
#include <string_view>

namespace clustersim::sim {

/// splitmix64's increment: 2^64 / golden ratio.
inline constexpr std::uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ULL;

/// The splitmix64 output for the state before `x` is advanced: mix64(s) is the first value of a
/// SplitMix64 seeded with s.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += kSplitMixGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Folds values into one hash, order-sensitive.
constexpr std::uint64_t hash_combine(std::uint64_t h, std::uint64_t value) { return mix64(h ^ mix64(value)); }

/// A tiny deterministic generator (the splitmix64 sequence).
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}
  constexpr std::uint64_t next() {
    const std::uint64_t x = state_;
    state_ += kSplitMixGamma;
    return mix64(x);
  }
  /// Uniform in [0, n) for n > 0; the modulo bias (< n / 2^64) is negligible here.
  constexpr std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

/// FNV-1a, 64 bits, of `bytes`.
constexpr std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ULL;  // offset basis
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;  // FNV prime
  }
  return hash;
}

}  // namespace clustersim::sim
