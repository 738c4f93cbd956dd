#include <doctest/doctest.h>

#include <cmath>

#include "models/comm/collective_curve.hpp"

using namespace clustersim::models;

namespace {

// Two measured ranges with a gap, as calibrate fits the A100 log of ml-engineering (1-8 MiB, then
// 64-256 MiB): the lower segment's short line climbs to a bulk rate no A100 reaches.
CollectiveCurve gapped_curve() {
  return {.op = CollectiveOp::all_reduce,
          .ranks = 8,
          .ranks_per_node = 8,
          .segments = {{.min_bytes = 1 << 20, .max_bytes = 8 << 20, .alpha_s = 100e-6, .busbw_bytes_per_s = 400e9},
                       {.min_bytes = 64 << 20, .max_bytes = 256 << 20, .alpha_s = 100e-6, .busbw_bytes_per_s = 200e9}}};
}

}  // namespace

TEST_CASE("collective curve: inside a measured range the segment's line holds, beyond all of them the nearest extrapolates") {
  const CollectiveCurve c = gapped_curve();
  const double f = 1.75;
  CHECK(c.time_s(4 << 20, f) == doctest::Approx(100e-6 + (4 << 20) * f / 400e9));
  CHECK(c.time_s(128 << 20, f) == doctest::Approx(100e-6 + (128 << 20) * f / 200e9));
  CHECK(c.time_s(1024, f) == doctest::Approx(100e-6 + 1024 * f / 400e9));
  CHECK(c.time_s(1 << 30, f) == doctest::Approx(100e-6 + (1 << 30) * f / 200e9));
}

TEST_CASE("collective curve: between two measured ranges the time runs straight in log-log from one to the other") {
  const CollectiveCurve c = gapped_curve();
  const double f = 1.75;
  const double t8 = 100e-6 + (8 << 20) * f / 400e9;    // the lower range's last size
  const double t64 = 100e-6 + (64 << 20) * f / 200e9;  // the upper range's first
  // 8 -> 16 -> 32 -> 64 MiB are equal steps in log size: a third of the way each.
  CHECK(c.time_s(16 << 20, f) == doctest::Approx(t8 * std::cbrt(t64 / t8)));
  CHECK(c.time_s(32 << 20, f) == doctest::Approx(t8 * std::cbrt(t64 / t8) * std::cbrt(t64 / t8)));
  // The nearest segment alone would price 16 MiB at the lower line's 400 GB/s, above both
  // neighbours' measured busbw; the interpolation keeps the busbw between theirs and rising.
  double last_busbw = 0.0;
  for (double bytes = 8 << 20; bytes <= (64 << 20); bytes *= 1.25) {
    const double busbw = bytes * f / c.time_s(bytes, f);
    CHECK(busbw >= last_busbw);
    CHECK(busbw <= (64 << 20) * f / t64 + 1e-6);
    last_busbw = busbw;
  }
}
