#pragma once
/// Marsaglia's xorshift64 (shifts 13, 7, 17): the small deterministic generator the engine's tests
/// and benchmarks draw their random graphs and sharing problems from, so that every run builds the
/// same ones. Call it for the next 64-bit value; the seed must not be 0.

#include <cstdint>

namespace clustersim::test {

class Xorshift64 {
 public:
  explicit Xorshift64(std::uint64_t seed) : x_(seed) {}
  std::uint64_t operator()() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return x_;
  }

 private:
  std::uint64_t x_;
};

}  // namespace clustersim::test
