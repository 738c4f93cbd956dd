#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "calibration/collective_fit.hpp"
#include "calibration/nccl_tests_log.hpp"
#include "calibration/profile.hpp"
#include "tests/calibration/calibration_fixtures.hpp"

namespace {

using namespace clustersim::calibration;
using clustersim::models::CollectiveOp;

// All-reduce on 8 ranks: bus factor 2 x 7/8 = 1.75. time_us = alpha + bytes x 1.75 / (busbw x 1e3).
double all_reduce_time(double bytes, double alpha_us, double busbw_gb_per_s) {
  return alpha_us + bytes * 1.75 / (busbw_gb_per_s * 1e3);
}

// Multiplicative noise, uniform in +-amplitude, from mt19937 (its output is fixed by the standard).
std::vector<double> noise(std::size_t n, double amplitude) {
  std::mt19937 generator(20240917);
  std::vector<double> factors;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(generator()) / 4294967296.0;
    factors.push_back(1.0 + amplitude * (2.0 * u - 1.0));
  }
  return factors;
}

TEST_CASE("collective fit: recovers alpha and busbw from noisy samples within 2%") {
  // alpha 20 us, busbw 400 GB/s, 8 B to 8 GiB, +-1% noise: small sizes pin alpha, large ones busbw.
  CollectiveGroup group{.op = CollectiveOp::all_reduce, .ranks = 8, .ranks_per_node = 8, .source = "synthetic"};
  const auto factors = noise(31, 0.01);
  for (int i = 0; i < 31; ++i) {
    const auto bytes = std::int64_t{8} << i;
    group.points.push_back({bytes, all_reduce_time(static_cast<double>(bytes), 20.0, 400.0) * factors[i], i + 1});
  }
  const auto fit = fit_collective(group, {.tolerance = 0.03, .max_segments = 1});
  REQUIRE(fit.model.segments.size() == 1);
  const auto& s = fit.model.segments[0];
  CHECK(s.alpha_us == doctest::Approx(20.0).epsilon(0.02));
  CHECK(s.busbw_gb_per_s == doctest::Approx(400.0).epsilon(0.02));
  CHECK(s.alpha_lo_us < 20.0);
  CHECK(s.alpha_hi_us > 20.0);
  CHECK(s.busbw_lo < 400.0);
  CHECK(s.busbw_hi > 400.0);
  CHECK(s.points == 31);
  CHECK(s.max_relative < 0.02);  // the noise is +-1%
  CHECK(s.r2_log > 0.999);
  CHECK(fit.model.scope() == LinkScope::nvlink);
}

TEST_CASE("collective fit: two protocol regimes become two segments") {
  // Up to 64 KiB: alpha 10 us, 20 GB/s (an LL-like protocol); above: alpha 30 us, 450 GB/s.
  // Each regime is one line, so a 3% tolerance needs exactly two segments, split at 64 KiB.
  CollectiveGroup group{.op = CollectiveOp::all_reduce, .ranks = 8, .ranks_per_node = 8, .source = "synthetic"};
  const auto factors = noise(31, 0.005);
  for (int i = 0; i < 31; ++i) {
    const auto bytes = std::int64_t{8} << i;
    const double t = bytes <= 65536 ? all_reduce_time(static_cast<double>(bytes), 10.0, 20.0)
                                    : all_reduce_time(static_cast<double>(bytes), 30.0, 450.0);
    group.points.push_back({bytes, t * factors[i], i + 1});
  }
  const auto fit = fit_collective(group);
  REQUIRE(fit.model.segments.size() == 2);
  CHECK(fit.model.segments[0].max_bytes == 65536);
  CHECK(fit.model.segments[1].min_bytes == 131072);
  CHECK(fit.model.segments[0].alpha_us == doctest::Approx(10.0).epsilon(0.02));
  CHECK(fit.model.segments[0].busbw_gb_per_s == doctest::Approx(20.0).epsilon(0.02));
  CHECK(fit.model.segments[1].alpha_us == doctest::Approx(30.0).epsilon(0.02));
  CHECK(fit.model.segments[1].busbw_gb_per_s == doctest::Approx(450.0).epsilon(0.02));
  // Predictions between and beyond the samples use the nearer segment.
  CHECK(fit.model.predict_time_us(1e12) == doctest::Approx(all_reduce_time(1e12, 30.0, 450.0)).epsilon(0.02));
  CHECK(fit.model.predict_time_us(100.0) == doctest::Approx(all_reduce_time(100.0, 10.0, 20.0)).epsilon(0.02));
}

TEST_CASE("collective fit: a profile fitted from each real log reproduces its busbw within 5% from 1 MiB") {
  for (const char* name : {"h100_1n8g_allreduce_nccl-tests-290.txt", "h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt",
                           "h100_8n64g_ib400_allreduce_default_nccl-tests-309.txt"}) {
    CAPTURE(name);
    const auto log = read_nccl_tests_log(clustersim::calibration::test::data_path(name));
    CollectiveGroup group{.op = log.op, .ranks = log.ranks, .ranks_per_node = log.gpus_per_node, .source = name};
    for (const auto& row : log.rows) group.points.push_back({row.size_bytes, row.best_time_us(), row.line});
    // Through the profile's JSON, as a run would read it.
    CalibrationProfile profile;
    profile.gpu = "h100-sxm";
    profile.compute = clustersim::models::default_compute_profile("h100-sxm");
    profile.comm = {.nvlink_efficiency = 0.8, .network_efficiency = 0.9, .launch_latency_s = 8e-6,
                    .nvlink_hop_latency_s = 4e-7, .network_hop_latency_s = 5e-6, .source = "test"};
    profile.collectives.push_back(fit_collective(group).model);
    const auto loaded = parse_profile(profile_to_json(profile), "profile.json");
    REQUIRE(loaded.collectives.size() == 1);
    const auto& model = loaded.collectives[0];
    CHECK(model.ranks == log.ranks);
    int checked = 0;
    for (const auto& row : log.rows) {
      if (row.size_bytes < (1 << 20)) continue;
      // The log's own busbw column, the better of its two placements.
      const double measured = std::max(row.out_of_place.busbw_gb_per_s, row.in_place->busbw_gb_per_s);
      CAPTURE(row.size_bytes);
      CHECK(model.predict_busbw_gb_per_s(static_cast<double>(row.size_bytes)) == doctest::Approx(measured).epsilon(0.05));
      ++checked;
    }
    CHECK(checked >= 6);
  }
}

TEST_CASE("collective fit: a segment whose free intercept is negative goes through the origin") {
  // All-to-all on 4 x 8 H100 over AWS EFA, 256 MiB-2 GiB (calibration/published/
  // h100_4n32g_alltoall_aws-efa.jsonl): busbw flat at 53.8-54.3 GB/s, so the free line's intercept
  // is noise around zero and comes out at -35 us, a negative time the profile loader refuses. The
  // segment is then bandwidth alone: alpha 0, busbw within the measured range.
  CollectiveGroup group{.op = CollectiveOp::all_to_all, .ranks = 32, .ranks_per_node = 8, .source = "EFA"};
  const double bus_factor = 31.0 / 32.0;
  const double busbw[] = {54.28, 53.84, 53.75, 54.07};
  for (int i = 0; i < 4; ++i) {
    const auto bytes = std::int64_t{268435456} << i;
    group.points.push_back({bytes, static_cast<double>(bytes) * bus_factor / (busbw[i] * 1e3), i + 1});
  }
  const auto fit = fit_collective(group, {.tolerance = 0.03, .max_segments = 1});
  REQUIRE(fit.model.segments.size() == 1);
  const auto& s = fit.model.segments[0];
  CHECK(s.alpha_us == 0.0);
  CHECK(s.busbw_gb_per_s >= 53.75);
  CHECK(s.busbw_gb_per_s <= 54.28);
  CHECK(s.max_relative < 0.01);
}

TEST_CASE("collective fit: too few sizes is an error naming the group") {
  CollectiveGroup group{.op = CollectiveOp::all_gather, .ranks = 8, .ranks_per_node = 8, .source = "one.jsonl"};
  group.points.push_back({1024, 10.0, 3});
  CHECK_THROWS_WITH_AS(fit_collective(group),
                       "all_gather on 8 ranks (8 per node) from one.jsonl: an alpha-beta fit needs at least two "
                       "different sizes",
                       std::invalid_argument);
}

}  // namespace
