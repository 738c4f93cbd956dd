#include "models/comm/efa_all_reduce.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace clustersim::models {
namespace {

// A point of the tuner's plane: log2 of the message size in bytes, log2 of the ranks.
struct Point {
  double size;
  double ranks;
};

Point at(double bytes, double ranks) {
  // The plugin moves a zero coordinate to 1e-6 before its log2.
  return {std::log2(std::max(bytes, 1e-6)), std::log2(std::max(ranks, 1e-6))};
}

// The plugin's region bounds: 100 GiB and 1M ranks.
constexpr double kMaxSize = 100.0 * 1024 * 1024 * 1024;
constexpr double kMaxRanks = 1024.0 * 1024;

// The point where the line through a and b, extended, meets the edge of the plane (the plugin's
// extend_region, with z its far corner).
Point extend(Point a, Point b) {
  const Point z = at(kMaxSize, kMaxRanks);
  if (a.size == b.size) return {a.size, z.ranks};
  if (a.ranks == b.ranks) return {z.size, a.ranks};
  const double m = (a.ranks - b.ranks) / (a.size - b.size);
  const double c = b.ranks - m * b.size;
  const double projected = m * z.size + c;
  return projected < z.ranks ? Point{z.size, projected} : Point{(z.ranks - c) / m, z.ranks};
}

struct Region {
  EfaAllReduceAlgorithm algorithm;
  std::vector<Point> vertices;
};

// aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp @2daf7d30, region_init_internal_p5_p5e, the
// all-reduce regions of communicators with 8 ranks a node, in the plugin's order.
const std::vector<Region>& p5_regions() {
  static const std::vector<Region> regions = [] {
    const Point tree_ll128_end = extend(at(402653184, 2048), at(402653184, 4096));
    const Point nvls_end_1 = extend(at(8053063680, 160), at(9663676416, 192));
    const Point nvls_end_2 = tree_ll128_end;
    const Point ring_simple_end = nvls_end_1;
    using A = EfaAllReduceAlgorithm;
    return std::vector<Region>{
        {A::tree_ll128,
         {at(0, 16), at(31457280, 16), at(37748736, 32), at(117440512, 64), at(301989888, 128), at(301989888, 256),
          at(335544320, 512), at(536870912, 1024), at(402653184, 2048), at(402653184, 4096), tree_ll128_end,
          {at(0, 1).size, tree_ll128_end.ranks}}},
        {A::nvls_tree_simple, {at(31457281, 16), at(kMaxSize, 16), at(31457281, 16)}},
        {A::ring_ll128,
         {at(31457280, 17), at(1073741824, 17), at(2147483648, 64), at(2147483648, 128), at(1342177280, 160),
          at(2147483648, 256), at(1074790400, 256), at(444596224, 160), at(301989888, 128), at(117440512, 64),
          at(37748736, 32)}},
        {A::nvls_tree_simple,
         {at(2147483648, 128), at(6442450944, 128), at(8053063680, 160), at(9663676416, 192), nvls_end_1, nvls_end_2,
          at(402653184, 4096), at(402653184, 2048), at(536870912, 1024), at(335544320, 512), at(301989888, 256),
          at(310378496, 160), at(444596224, 160), at(1074790400, 256), at(2684354560, 256), at(2147483648, 224),
          at(1342177280, 160)}},
        {A::ring_simple,
         {at(1073741824, 17), {ring_simple_end.size, at(1, 17).ranks}, ring_simple_end, at(9663676416, 192),
          at(8053063680, 160), at(2684354560, 64), at(1610612736, 32)}},
    };
  }();
  return regions;
}

// Inside or on the edge, as the plugin's is_inside_region counts a point (>= 0): an even-odd ray
// cast towards larger sizes, with points on an edge taken in.
bool holds(std::span<const Point> polygon, Point p) {
  constexpr double eps = 1e-9;
  bool inside = false;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Point a = polygon[i], b = polygon[(i + 1) % polygon.size()];
    const double cross = (b.size - a.size) * (p.ranks - a.ranks) - (b.ranks - a.ranks) * (p.size - a.size);
    const bool within = p.size >= std::min(a.size, b.size) - eps && p.size <= std::max(a.size, b.size) + eps &&
                        p.ranks >= std::min(a.ranks, b.ranks) - eps && p.ranks <= std::max(a.ranks, b.ranks) + eps;
    if (std::abs(cross) < eps && within) return true;
    if ((a.ranks > p.ranks) != (b.ranks > p.ranks)) {
      const double crossing = a.size + (p.ranks - a.ranks) * (b.size - a.size) / (b.ranks - a.ranks);
      if (p.size < crossing) inside = !inside;
    }
  }
  return inside;
}

// What each choice reaches on EFA, fitted to the AWS p5 all-reduce logs (efa_all_reduce.hpp).
struct ChoiceCost {
  double efficiency;    // of the line rate of the node's NICs the group uses
  double hop_s;         // per network step
};
ChoiceCost cost_of(EfaAllReduceAlgorithm algorithm) {
  switch (algorithm) {
    case EfaAllReduceAlgorithm::tree_ll128: return {.efficiency = 0.405, .hop_s = 67e-6};
    // The plain minimum of its two stages fits best (a soft minimum's exponent runs off to infinity).
    case EfaAllReduceAlgorithm::nvls_tree_simple: return {.efficiency = 0.69, .hop_s = 195e-6};
    case EfaAllReduceAlgorithm::ring_ll128: return {.efficiency = 0.81, .hop_s = 56e-6};
    // Its sizes (1-8 GiB) do not tell the step latency (0-10 us fit alike): the fabric's.
    case EfaAllReduceAlgorithm::ring_simple: return {.efficiency = 0.883, .hop_s = fabric_hop_latency_s(Fabric::efa)};
  }
  return {};
}

}  // namespace

std::optional<EfaAllReduceAlgorithm> efa_all_reduce_algorithm(double bytes, std::int64_t ranks,
                                                              std::int64_t ranks_per_node) {
  if (ranks_per_node != 8 || ranks <= ranks_per_node) return std::nullopt;
  if (ranks <= 2 * ranks_per_node) return EfaAllReduceAlgorithm::nvls_tree_simple;
  const Point p = at(bytes, static_cast<double>(ranks));
  for (const Region& region : p5_regions())
    if (holds(region.vertices, p)) return region.algorithm;
  return std::nullopt;
}

double efa_all_reduce_time_s(EfaAllReduceAlgorithm algorithm, double bytes, const CommGroup& group,
                             const ClusterSpec& cluster, const CommProfile& profile) {
  const double n = static_cast<double>(group.ranks);
  const std::int64_t group_nodes = (group.ranks + group.ranks_per_node - 1) / group.ranks_per_node;
  const double nodes = static_cast<double>(group_nodes);
  const double line_rate = node_nic_line_rate(group, cluster);
  // The scenario's (or profile's) hop latency against EFA's own moves every choice's steps alike.
  const double shift = profile.network_hop_latency_s - fabric_hop_latency_s(Fabric::efa);
  const ChoiceCost c = cost_of(algorithm);
  const double hop = std::max(0.0, c.hop_s + shift);
  const double tree_levels = 2.0 * std::ceil(std::log2(nodes));
  const double tree_rate = line_rate * c.efficiency / tree_network_bytes_per_byte(group_nodes);
  switch (algorithm) {
    case EfaAllReduceAlgorithm::ring_simple:
    case EfaAllReduceAlgorithm::ring_ll128:
      return bus_factor(CollectiveOp::all_reduce, group.ranks) * bytes / (line_rate * c.efficiency) +
             2.0 * (nodes - 1.0) * hop + 2.0 * (n - nodes) * profile.nvlink_hop_latency_s;
    case EfaAllReduceAlgorithm::tree_ll128: return tree_levels * hop + bytes / tree_rate;
    case EfaAllReduceAlgorithm::nvls_tree_simple: {
      const double inside = cluster.gpu.nvlink_bytes_per_s * profile.nvls_algbw_efficiency;
      return bytes / std::min(inside, tree_rate) + tree_levels * hop;
    }
  }
  return 0.0;
}

}  // namespace clustersim::models
