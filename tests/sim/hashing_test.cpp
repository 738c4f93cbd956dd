#include <doctest/doctest.h>

#include "sim/hashing.hpp"

using namespace clustersim::sim;

TEST_CASE("hashing: splitmix64 as Vigna's reference code, so routes and draws match on every platform") {
  // Vigna's splitmix64 seeded with 0 first returns 0xe220a8397b1dcdaf; mix64(0) is that output.
  CHECK(mix64(0) == 0xe220a8397b1dcdafULL);
  SplitMix64 random(0);
  CHECK(random.next() == 0xe220a8397b1dcdafULL);
  CHECK(random.next() == 0x6e789e6aa1b965f4ULL);
}

TEST_CASE("hashing: FNV-1a 64 as its published test vectors") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
}
