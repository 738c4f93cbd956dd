// Curves measured at some node counts price the node counts between and beyond them.
#include "models/comm/collectives.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

// One segment a curve: alpha + bytes x bus factor / busbw over 1 MiB - 1 GiB.
CollectiveCurve measured(CollectiveOp op, std::int64_t nodes, double alpha_s, double busbw) {
  return {.op = op,
          .ranks = nodes * 8,
          .ranks_per_node = 8,
          .segments = {{.min_bytes = 1 << 20, .max_bytes = 1 << 30, .alpha_s = alpha_s, .busbw_bytes_per_s = busbw}}};
}

double curve_s(const CollectiveCurve& c, double bytes) {
  const double n = static_cast<double>(c.ranks);
  return c.time_s(bytes, 2.0 * (n - 1.0) / n);  // all-reduce's bus factor
}

}  // namespace

TEST_CASE("collective node counts: between two measured node counts the time runs straight in log-log") {
  const ClusterSpec cluster = test::h100_cluster(256);
  CommProfile profile = default_comm_profile(cluster);
  const CollectiveCurve two = measured(CollectiveOp::all_reduce, 2, 300e-6, 350e9);
  const CollectiveCurve eight = measured(CollectiveOp::all_reduce, 8, 700e-6, 250e9);
  profile.curves = {two, eight};
  const double bytes = 64 << 20;
  // Its own layout: the curve.
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 16, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(curve_s(two, bytes)));
  // 4 nodes sit halfway between 2 and 8 in log node count: the geometric mean of the two times.
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 32, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(std::sqrt(curve_s(two, bytes) * curve_s(eight, bytes))));
  // Another collective has no curve: the model alone.
  CommProfile bare = default_comm_profile(cluster);
  CHECK(collective_time_s(CollectiveOp::all_gather, bytes, {.ranks = 32, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(collective_time_s(CollectiveOp::all_gather, bytes, {.ranks = 32, .ranks_per_node = 8}, cluster, bare)));
}

TEST_CASE("collective node counts: beyond the measured node counts the nearest one is scaled by the model's ratio") {
  const ClusterSpec cluster = test::h100_cluster(256);
  const CommProfile bare = default_comm_profile(cluster);
  CommProfile profile = bare;
  const CollectiveCurve eight = measured(CollectiveOp::all_reduce, 8, 700e-6, 250e9);
  const CollectiveCurve two = measured(CollectiveOp::all_reduce, 2, 300e-6, 350e9);
  profile.curves = {eight, two};
  const double bytes = 256 << 20;
  const auto model_s = [&](std::int64_t nodes) {
    return collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = nodes * 8, .ranks_per_node = 8}, cluster, bare);
  };
  // 32 nodes: the 8-node measurement times what the model adds from 8 to 32 nodes.
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 256, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(curve_s(eight, bytes) * model_s(32) / model_s(8)));
  // With only the 8-node curve, 2 nodes scale it down the same way.
  profile.curves = {eight};
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 16, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(curve_s(eight, bytes) * model_s(2) / model_s(8)));
  // Another node shape (4 GPUs a node) is not this layout's measurement.
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 64, .ranks_per_node = 4}, cluster, profile) ==
        doctest::Approx(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 64, .ranks_per_node = 4}, cluster, bare)));
}

TEST_CASE("collective node counts: the basis names what priced the collective") {
  const ClusterSpec cluster = test::h100_cluster(256);
  CommProfile profile = default_comm_profile(cluster);
  profile.curves = {measured(CollectiveOp::all_reduce, 2, 300e-6, 350e9), measured(CollectiveOp::all_reduce, 8, 700e-6, 250e9)};
  const auto basis = [&](CollectiveOp op, std::int64_t nodes) {
    return collective_basis(op, {.ranks = nodes * 8, .ranks_per_node = 8}, cluster, profile);
  };
  CHECK(basis(CollectiveOp::all_reduce, 2) == "the profile's curve of 16 ranks, 8 a node");
  CHECK(basis(CollectiveOp::all_reduce, 4) ==
        "the profile's curves of 2 and 8 nodes, interpolated to 4 in log time against log nodes");
  CHECK(basis(CollectiveOp::all_reduce, 32) == "the profile's curve of 8 nodes, scaled by the model's change from 8 to 32 nodes");
  CHECK(basis(CollectiveOp::all_gather, 4).starts_with("the alpha-beta line"));
}
