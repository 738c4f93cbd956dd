#include "models/comm/collectives.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "models/comm/efa_all_reduce.hpp"

namespace clustersim::models {

namespace {

// What a collective's network steps see on each fabric, and who picks its all-reduce's algorithm:
// the only fabric-dependent facts, as data, so that no cost formula branches on the fabric.
struct FabricLinkClass {
  Fabric fabric;
  topologies::LinkClass link_class;  // its NIC links in the flow fidelity's topology
  double efficiency;     // per-NIC busbw / NIC line rate
  double hop_latency_s;  // per network step of the alpha-beta line
  bool aws_ofi_tuner = false;  // all-reduce algorithms chosen by the AWS OFI plugin (efa_all_reduce.hpp)
};

constexpr std::array kFabricLinkClasses{
    // 46-48 GB/s per 400 Gb/s NDR NIC (NCCL maintainer, nccl-tests #290); 24 of 25 GB/s per HDR
    // NIC (nccl-tests #160). 8 B all-reduce: 13.7 us on one node of 8 x H100 (dgxc-benchmarking),
    // 25 us on 2 nodes (nccl-tests #309): one tree level up and down adds ~11 us.
    FabricLinkClass{.fabric = Fabric::infiniband,
                    .link_class = topologies::LinkClass::infiniband_ndr,
                    .efficiency = 0.94,
                    .hop_latency_s = 5.5e-6},
    // RoCE without DCQCN tuning keeps less bandwidth and adds latency: assumptions, no measurement.
    FabricLinkClass{
        .fabric = Fabric::roce, .link_class = topologies::LinkClass::roce, .efficiency = 0.85, .hop_latency_s = 7e-6},
    // Omni-Path through NCCL's verbs transport without GPUDirect RDMA: the measured rate of its
    // link class (topologies/link_class.hpp: one NIC moved 5.07 GB/s a direction on Jean Zay),
    // taken to hold for every NIC of a node when all carry traffic. Hop latency: InfiniBand's, an
    // assumption (the log has one message size only).
    FabricLinkClass{.fabric = Fabric::omnipath,
                    .link_class = topologies::LinkClass::omnipath,
                    .efficiency = topologies::link_class_info(topologies::LinkClass::omnipath).efficiency,
                    .hop_latency_s = 5.5e-6},
    // AWS EFA (SRD over Ethernet). Its all-to-all logs (calibration/published/h100_*_alltoall_aws-
    // efa.jsonl) fit best at 0.85 of the NICs' line rate (19 % worst with the all-to-all constants of
    // default_comm_profile, 22 % at 0.883), the rate the other collectives take; its all-reduces
    // run the AWS tuner's choices at their own rates (efa_all_reduce.hpp), ring Simple at 0.883. No
    // log tells the step latency: RoCE's assumed 7 us, as another Ethernet RDMA fabric.
    FabricLinkClass{
        .fabric = Fabric::efa,
        .link_class = topologies::LinkClass::roce,
        .efficiency = 0.85,
        .hop_latency_s = 7e-6,
        .aws_ofi_tuner = true},
};

const FabricLinkClass& fabric_link_class(Fabric fabric) {
  const auto* it = std::find_if(kFabricLinkClasses.begin(), kFabricLinkClasses.end(),
                                [&](const FabricLinkClass& c) { return c.fabric == fabric; });
  if (it == kFabricLinkClasses.end()) throw std::logic_error("no link class for this fabric");
  return *it;
}

}  // namespace

double fabric_efficiency(Fabric fabric) { return fabric_link_class(fabric).efficiency; }
topologies::LinkClass fabric_topology_link(Fabric fabric) { return fabric_link_class(fabric).link_class; }
double fabric_hop_latency_s(Fabric fabric) { return fabric_link_class(fabric).hop_latency_s; }
bool fabric_runs_aws_ofi_tuner(Fabric fabric) { return fabric_link_class(fabric).aws_ofi_tuner; }

CommProfile default_comm_profile(const ClusterSpec& cluster) {
  CommProfile p;
  const FabricLinkClass& fabric = fabric_link_class(cluster.fabric);
  // NVLink 3 (A100) reaches 78 % of 300 GB/s with rings; NVLink 4 and later 82 % of 450 GB/s
  // (measurements.md 1.3: stas00 ml-engineering; NCCL maintainers in nccl-tests #212).
  const bool nvlink3 = cluster.gpu.nvlink_bytes_per_s <= 300e9;
  p.nvlink_efficiency = nvlink3 ? 0.78 : 0.82;
  p.network_efficiency = fabric.efficiency;
  // 8 B all-reduce on 8 x H100 takes 13.7 us (dgxc-benchmarking): launch plus 14 NVLink ring steps.
  p.launch_latency_s = 8e-6;
  p.nvlink_hop_latency_s = 0.4e-6;
  p.network_hop_latency_s = fabric.hop_latency_s;
  // NVLS (NVLink SHARP, NVSwitch generation 3 and later): 8 x H100 reach algbw ~275 GB/s of 450
  // (nccl-tests #212, nccl #1455: 258-273); 8 x B200 845.67 GB/s busbw at 16 GiB = algbw 483 of
  // 900 (measurements.md 1.3). NVLink 3 (A100) has none.
  p.nvls_algbw_efficiency = cluster.gpu.nvlink_bytes_per_s >= 900e9   ? 483.0 / 900.0
                            : cluster.gpu.nvlink_bytes_per_s >= 450e9 ? 275.0 / 450.0
                                                                      : 0.0;
  // Across nodes, priced from the node's measured curve (collective_time_s), NCCL's all-reduce is
  // the faster of two protocol families. Six constants, fitted together (least worst error) to
  // nccl-tests #309's 2- and 8-node H100 logs at 1 MiB-16 GiB against the bundled h100-sxm node
  // curve; the worst error is 6.6 %:
  // - the tree family's pipeline (tree_efficiency, tree_coupling_exponent): 8 x 400 Gb/s at 0.94
  //   and 0.93 gives a tree stage of 350 GB/s algbw on 2 nodes and 175 on 8, where the busiest
  //   node moves twice the buffer (tree_network_bytes_per_byte); against NVLS's 275 inside, the
  //   soft minimum with exponent 3 gives 241 and 162 (measured 250 and 163). A plain minimum
  //   cannot serve both: the 2-node run is below both stages' rates, the 8-node run at the tree's;
  // - bulk (Simple): its chunk pipeline fills and drains through each tree level, 38 us per
  //   network step;
  // - low latency (LL/LL128): 40 us, then per network step 9.5 us and the whole buffer at 0.65 of
  //   the node's NIC rate (2 nodes, 2-8 MiB: 113 GB/s over 2 steps; 8 nodes, 1-8 MiB: 36 GB/s
  //   over 6 steps, both measured).
  // NCCL itself models its tree/Simple step as a chunk's latency (tuning.cc: "base lat + 256k/12GB/s
  // (+ 256k/12GB/s for the network)"). RoCE, other GPUs (a ring inside A100 nodes) and other node
  // counts: the same constants, an assumption; B200 nodes with NCCL 2.28 on a tuned NDR fabric
  // (Together's flapping-airplanes, 2-64 nodes) follow them within 6.4 % (cross_node_logs_test).
  p.tree_efficiency = 0.93;
  p.tree_coupling_exponent = 3.0;
  p.network_bulk_hop_latency_s = 38e-6;
  p.ll_base_latency_s = 40e-6;
  p.ll_network_hop_latency_s = 9.5e-6;
  p.ll_network_efficiency = 0.65;
  // All-to-all across nodes, 32 MiB-2 GiB on 2-32 nodes of 8 x H100 (AWS p5, 400 Gb/s EFA per GPU;
  // calibration/published/h100_*_alltoall_aws-efa.jsonl): each log's time exceeds its bulk rate by
  // a cost that grows with the peers off the node; least worst error over all five with the bulk
  // rate at the fabric's efficiency: 340 us per call and 4 us per remote peer (worst 19 %, 32 nodes).
  p.all_to_all_base_latency_s = 340e-6;
  p.all_to_all_peer_latency_s = 4e-6;
  // Send/receive across nodes, 1 MiB-256 MiB on 2 and 4 nodes of 8 x B200 with 8 x 400 Gb/s NDR
  // InfiniBand a node, NCCL 2.29.7 (calibration/published/b200_{2n16g,4n32g}_sendrecv_together.txt):
  // least worst error over both, 3.7 %, at 29.9 us and 45.0 GB/s, 0.90 of the NIC's line rate.
  // Less the line's launch (8 us) and InfiniBand hop (5.5 us): 16.4 us of proxy round trips, the
  // time the logs show at 1-8 KiB (23-34 us in all); 0.958 of the fabric's 0.94 (under the bundled
  // B200 profile's fitted 0.954 the logs' worst error is 5.2 %). Other fabrics and GPUs take the
  // same cost and share: an assumption.
  p.p2p_network_latency_s = 16.4e-6;
  p.p2p_network_share = 0.958;
  p.source =
      "measurements.md 1.1, 1.3, 1.4 and nccl-tests #212, #309 (2- and 8-node logs), nccl #1455; all-to-all "
      "across nodes: aws-gpu-communication-benchmark (2-32 nodes of p5); send/receive across nodes: together-nccl-tests "
      "(2 and 4 nodes of B200); RoCE efficiency and latency are assumptions";
  return p;
}

double bus_factor(CollectiveOp op, std::int64_t ranks) {
  const double n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return (n - 1.0) / n;
    case CollectiveOp::send_recv: return 1.0;
  }
  return 1.0;
}

namespace {

std::int64_t node_count(const CommGroup& group) {
  return (group.ranks + group.ranks_per_node - 1) / group.ranks_per_node;
}

// What the group's ranks on one node can push through their NICs, per direction.
double node_network_bytes_per_s(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  return node_nic_line_rate(group, cluster) * profile.network_efficiency;
}

// Algorithm bandwidth (buffer bytes per second) of an all-reduce inside one node of `per_node`
// ranks: a ring, or NVLS where the switch can reduce, whichever is faster.
double node_all_reduce_algbw(std::int64_t per_node, const ClusterSpec& cluster, const CommProfile& profile) {
  const double ring = cluster.gpu.nvlink_bytes_per_s * profile.nvlink_efficiency / bus_factor(CollectiveOp::all_reduce, per_node);
  const double nvls = cluster.gpu.nvlink_bytes_per_s * profile.nvls_algbw_efficiency;
  return per_node > 1 ? std::max(ring, nvls) : std::numeric_limits<double>::infinity();
}

// Time of the bandwidth term alone (no latency) of `op` over `group`.
double bandwidth_time_s(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                        const CommProfile& profile) {
  if (op == CollectiveOp::all_reduce) return bus_factor(op, group.ranks) * bytes / all_reduce_bus_bandwidth(group, cluster, profile);
  if (op == CollectiveOp::all_to_all && node_count(group) > 1) {
    // Each rank sends S/n to every other rank: (k-1)/n of its buffer over NVLink to the k-1 on its
    // node, (n-k)/n over its own share of the NICs to the rest. No ring spreads that over the
    // node's NICs, so a rank's NIC, not the node's, bounds it.
    const double n = static_cast<double>(group.ranks), k = static_cast<double>(group.ranks_per_node);
    const CommGroup one_rank{.ranks = group.ranks, .ranks_per_node = 1};
    const double remote = (n - k) / n * bytes / node_network_bytes_per_s(one_rank, cluster, profile);
    const double local = (k - 1.0) / n * bytes / (cluster.gpu.nvlink_bytes_per_s * profile.nvlink_efficiency);
    return std::max(remote, local);
  }
  return bus_factor(op, group.ranks) * bytes / bus_bandwidth(group, cluster, profile);
}

// Which measured curves across nodes a pricing reads: those whose algorithms the AWS OFI plugin's
// tuner chose, or those NCCL's own tuner chose (models::CollectiveCurve::aws_ofi_tuner). Curves
// inside one node have no network to tune and are read by both.
struct TunerOf {
  bool aws_ofi = false;
  bool reads(const CollectiveCurve& curve) const {
    return curve.ranks <= curve.ranks_per_node || curve.aws_ofi_tuner == aws_ofi;
  }
};

TunerOf tuner_of(const ClusterSpec& cluster) { return {.aws_ofi = fabric_runs_aws_ofi_tuner(cluster.fabric)}; }

// The mean time of the profile's curves of one layout (two sources of one layout count alike);
// nullopt when there is none.
std::optional<double> curve_time_s(const CommProfile& profile, TunerOf tuner, CollectiveOp op, std::int64_t ranks,
                                   std::int64_t ranks_per_node, double bytes) {
  double sum = 0.0;
  int count = 0;
  for (const auto& curve : profile.curves) {
    if (curve.op != op || curve.ranks != ranks || curve.ranks_per_node != ranks_per_node || !tuner.reads(curve)) {
      continue;
    }
    sum += curve.time_s(bytes, bus_factor(op, ranks));
    ++count;
  }
  return count > 0 ? std::optional(sum / count) : std::nullopt;
}

}  // namespace

double node_nic_line_rate(const CommGroup& group, const ClusterSpec& cluster) {
  const double nic_per_gpu = cluster.nic_bytes_per_s * static_cast<double>(cluster.nics_per_node) /
                             static_cast<double>(cluster.gpus_per_node);
  return static_cast<double>(group.ranks_per_node) * nic_per_gpu;
}

double pipeline_rate(double a, double b, double exponent) {
  if (!(exponent > 0.0)) return std::min(a, b);
  // In GB/s, so that the powers stay in range.
  return 1e9 * std::pow(std::pow(a / 1e9, -exponent) + std::pow(b / 1e9, -exponent), -1.0 / exponent);
}

double bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  const double nvlink = cluster.gpu.nvlink_bytes_per_s * profile.nvlink_efficiency;
  if (node_count(group) <= 1) return nvlink;
  return std::min(nvlink, node_network_bytes_per_s(group, cluster, profile));
}

namespace {

// NCCL's tree family across nodes pipelines two stages: the node's all-reduce inside, and a
// double binary tree between nodes (tree_network_bytes_per_byte). Their rates as algorithm
// bandwidths (buffer bytes per second).
struct TreeStages {
  double inside = 0.0;
  double between = 0.0;
};

TreeStages tree_stages(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  return {.inside = node_all_reduce_algbw(std::min(group.ranks_per_node, group.ranks), cluster, profile),
          .between = node_network_bytes_per_s(group, cluster, profile) * profile.tree_efficiency /
                     tree_network_bytes_per_byte(node_count(group))};
}

double tree_pipeline_algbw(const TreeStages& s, const CommProfile& profile) {
  return pipeline_rate(s.inside, s.between, profile.tree_coupling_exponent);
}

double tree_bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  return bus_factor(CollectiveOp::all_reduce, group.ranks) * tree_pipeline_algbw(tree_stages(group, cluster, profile), profile);
}

}  // namespace

double tree_network_bytes_per_byte(std::int64_t nodes) {
  if (nodes <= 1) return 0.0;
  return nodes == 2 ? 1.0 : nodes == 3 ? 1.5 : 2.0;
}

double tree_network_share(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  const TreeStages stages = tree_stages(group, cluster, profile);
  return tree_pipeline_algbw(stages, profile) / stages.between;
}

bool all_reduce_uses_tree(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  if (node_count(group) <= 1) return false;
  // Where nodes reduce in the switch, NCCL runs NVLSTree across nodes (the maintainers on
  // nccl-tests #309; its 8-node log reaches 320 GB/s, below a ring's bound): several ranks per
  // node on an NVLS GPU take the tree. Otherwise NCCL's tuner takes the faster of the two.
  if (profile.nvls_algbw_efficiency > 0.0 && std::min(group.ranks_per_node, group.ranks) > 1) return true;
  return tree_bus_bandwidth(group, cluster, profile) >= bus_bandwidth(group, cluster, profile);
}

double all_reduce_bus_bandwidth(const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  if (node_count(group) <= 1) {
    return bus_factor(CollectiveOp::all_reduce, group.ranks) * node_all_reduce_algbw(group.ranks, cluster, profile);
  }
  return all_reduce_uses_tree(group, cluster, profile) ? tree_bus_bandwidth(group, cluster, profile)
                                                       : bus_bandwidth(group, cluster, profile);
}

LatencySteps latency_steps(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster,
                           const CommProfile& profile) {
  const std::int64_t per_node = std::min(group.ranks_per_node, group.ranks);
  const std::int64_t nodes = (group.ranks + per_node - 1) / per_node;
  // Send/receive, and all-to-all (a send and a receive per peer, all at once): one hop deep.
  if (op == CollectiveOp::send_recv || op == CollectiveOp::all_to_all) {
    return nodes > 1 ? LatencySteps{0.0, 1.0} : LatencySteps{1.0, 0.0};
  }
  // NCCL's tuner (src/graph/tuning.cc) counts a ring over n ranks on N nodes as n - 1 hops, N - 1
  // of them across the network and n - N over NVLink, twice for all-reduce (reduce-scatter, then
  // all-gather); its tree as 2 (per node - 1) NVLink hops and 2 log2(N) network ones.
  const CommGroup effective{.ranks = group.ranks, .ranks_per_node = per_node};
  if (op == CollectiveOp::all_reduce && nodes > 1 && all_reduce_uses_tree(effective, cluster, profile)) {
    return {.nvlink = 2.0 * static_cast<double>(per_node - 1),
            .network = 2.0 * std::ceil(std::log2(static_cast<double>(nodes)))};
  }
  const double passes = op == CollectiveOp::all_reduce ? 2.0 : 1.0;
  return {.nvlink = passes * static_cast<double>(group.ranks - nodes), .network = passes * static_cast<double>(nodes - 1)};
}

namespace {

// On EFA the AWS plugin's tuner picks an all-reduce's algorithm (efa_all_reduce.hpp) where its
// regions are drawn: NVLS nodes (p5) with all 8 ranks of each node in the group.
bool runs_efa_tuner(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  const std::int64_t per_node = std::min(group.ranks_per_node, group.ranks);
  return op == CollectiveOp::all_reduce && fabric_runs_aws_ofi_tuner(cluster.fabric) &&
         profile.nvls_algbw_efficiency > 0.0 && per_node == 8 && group.ranks > per_node;
}

// The time without a curve of the group's own layout: across nodes the node's measured curve
// extended by the model, else the alpha-beta line of NCCL's best ring protocol.
double modelled_time_s(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                       const CommProfile& profile) {
  const std::int64_t per_node = std::min(group.ranks_per_node, group.ranks);
  const std::int64_t nodes = (group.ranks + per_node - 1) / per_node;
  const CommGroup effective{.ranks = group.ranks, .ranks_per_node = per_node};
  if (runs_efa_tuner(op, effective, cluster, profile)) {
    if (const auto choice = efa_all_reduce_algorithm(bytes, group.ranks, per_node))
      return efa_all_reduce_time_s(*choice, bytes, effective, cluster, profile);
  }
  const LatencySteps steps = latency_steps(op, effective, cluster, profile);
  if (nodes > 1) {
    if (const auto node = curve_time_s(profile, tuner_of(cluster), op, per_node, per_node, bytes)) {
      // Bulk protocol: the node's measured time, the group's extra bandwidth time, and the chunk
      // pipeline's fill and drain through each network step.
      const CommGroup one_node{.ranks = per_node, .ranks_per_node = per_node};
      const double extra_bandwidth = std::max(0.0, bandwidth_time_s(op, bytes, effective, cluster, profile) -
                                                       bandwidth_time_s(op, bytes, one_node, cluster, profile));
      const double bulk = *node + extra_bandwidth + steps.network * profile.network_bulk_hop_latency_s;
      if (op != CollectiveOp::all_reduce || profile.ll_network_efficiency <= 0.0 ||
          !all_reduce_uses_tree(effective, cluster, profile)) {
        return bulk;
      }
      // Low-latency protocols: the whole buffer through each network step in turn.
      const double step_rate = node_network_bytes_per_s(effective, cluster, profile) * profile.ll_network_efficiency;
      const double low = profile.ll_base_latency_s + steps.network * (profile.ll_network_hop_latency_s + bytes / step_rate);
      return std::min(bulk, low);
    }
  }
  return collective_protocol(op, bytes, group, cluster, profile).seconds;
}

// The multi-node layout the profile measured nearest to `nodes` nodes of `per_node` ranks, on
// one side: the most nodes below (below = true) or the fewest above; 0 when there is none.
std::int64_t measured_nodes(const CommProfile& profile, TunerOf tuner, CollectiveOp op, std::int64_t per_node,
                            std::int64_t nodes, bool below) {
  std::int64_t best = 0;
  for (const auto& curve : profile.curves) {
    if (curve.op != op || curve.ranks_per_node != per_node || curve.ranks % per_node != 0 || !tuner.reads(curve)) {
      continue;
    }
    const std::int64_t n = curve.ranks / per_node;
    if (n < 2 || n == nodes) continue;
    if (below ? (n < nodes && n > best) : (n > nodes && (best == 0 || n < best))) best = n;
  }
  return best;
}

bool has_curve(const CommProfile& profile, TunerOf tuner, CollectiveOp op, std::int64_t ranks,
               std::int64_t ranks_per_node) {
  return std::any_of(profile.curves.begin(), profile.curves.end(), [&](const CollectiveCurve& c) {
    return c.op == op && c.ranks == ranks && c.ranks_per_node == ranks_per_node && tuner.reads(c);
  });
}

// What prices a group, in collective_time_s's order of precedence (collectives.hpp).
enum class Basis { none, own_curve, between_node_counts, nearest_node_count, node_curve, line };

struct Pricing {
  TunerOf tuner{};  // whose curves across nodes it reads
  Basis basis = Basis::none;
  std::int64_t per_node = 1;
  std::int64_t nodes = 1;
  std::int64_t lo = 0;  // measured node counts either side (between), or the nearest in lo
  std::int64_t hi = 0;
};

Pricing pricing(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile,
                TunerOf tuner) {
  Pricing p{.tuner = tuner};
  if (group.ranks <= 1 || cluster.ideal_network) return p;
  p.per_node = std::min(group.ranks_per_node, group.ranks);
  p.nodes = (group.ranks + p.per_node - 1) / p.per_node;
  if (has_curve(profile, tuner, op, group.ranks, p.per_node)) {
    p.basis = Basis::own_curve;
    return p;
  }
  if (p.nodes > 1 && group.ranks % p.per_node == 0) {
    p.lo = measured_nodes(profile, tuner, op, p.per_node, p.nodes, true);
    p.hi = measured_nodes(profile, tuner, op, p.per_node, p.nodes, false);
    if (p.lo > 0 && p.hi > 0) {
      p.basis = Basis::between_node_counts;
      return p;
    }
    if (p.lo > 0 || p.hi > 0) {
      p.lo = std::max(p.lo, p.hi);
      p.basis = Basis::nearest_node_count;
      return p;
    }
  }
  p.basis = p.nodes > 1 && has_curve(profile, tuner, op, p.per_node, p.per_node) ? Basis::node_curve : Basis::line;
  return p;
}

bool from_measured_layouts(Basis basis) {
  return basis == Basis::own_curve || basis == Basis::between_node_counts || basis == Basis::nearest_node_count;
}

// Under NCCL's own tuner, curves measured under the AWS OFI plugin's (AWS EFA) bound the time: the
// algorithm that tuner ran at each size is one NCCL can run here, and NCCL's tuner takes it or one
// its model finds faster. That tuner's own choices (its small sizes' fixed costs) do not carry: on
// EFA only its curves price.
std::optional<Pricing> bounding_pricing(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster,
                                        const CommProfile& profile) {
  if (tuner_of(cluster).aws_ofi) return std::nullopt;
  const Pricing p = pricing(op, group, cluster, profile, TunerOf{.aws_ofi = true});
  return from_measured_layouts(p.basis) ? std::optional(p) : std::nullopt;
}

double priced_time_s(const Pricing& p, CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                     const CommProfile& profile) {
  const auto measured_s = [&](std::int64_t nodes) {
    return *curve_time_s(profile, p.tuner, op, nodes * p.per_node, p.per_node, bytes);
  };
  switch (p.basis) {
    case Basis::none: return 0.0;
    case Basis::own_curve: return *curve_time_s(profile, p.tuner, op, group.ranks, p.per_node, bytes);
    case Basis::between_node_counts: {
      // The measurements hold the level; between two measured node counts the time runs straight
      // in log time against log node count.
      const double t_lo = measured_s(p.lo);
      const double t_hi = measured_s(p.hi);
      const double f = std::log(static_cast<double>(p.nodes) / static_cast<double>(p.lo)) /
                       std::log(static_cast<double>(p.hi) / static_cast<double>(p.lo));
      return std::exp(std::log(t_lo) + f * (std::log(t_hi) - std::log(t_lo)));
    }
    case Basis::nearest_node_count: {
      // Beyond them the nearest measured time, scaled by the model's change with the node count.
      const CommGroup at_nearest{.ranks = p.lo * p.per_node, .ranks_per_node = p.per_node};
      return measured_s(p.lo) * modelled_time_s(op, bytes, group, cluster, profile) /
             modelled_time_s(op, bytes, at_nearest, cluster, profile);
    }
    case Basis::node_curve:
    case Basis::line: break;
  }
  return modelled_time_s(op, bytes, group, cluster, profile);
}

std::string basis_text(const Pricing& p, const CommGroup& group) {
  switch (p.basis) {
    case Basis::none: return "no communication";
    case Basis::own_curve: return fmt::format("the profile's curve of {} ranks, {} a node", group.ranks, p.per_node);
    case Basis::between_node_counts:
      return fmt::format("the profile's curves of {} and {} nodes, interpolated to {} in log time against log nodes",
                         p.lo, p.hi, p.nodes);
    case Basis::nearest_node_count:
      return fmt::format("the profile's curve of {} nodes, scaled by the model's change from {} to {} nodes", p.lo,
                         p.lo, p.nodes);
    case Basis::node_curve:
      return fmt::format("the profile's one-node curve ({} ranks), extended across {} nodes by the model", p.per_node,
                         p.nodes);
    case Basis::line: break;
  }
  return "the alpha-beta line (NCCL's protocols priced by the profile's efficiencies and latencies)";
}

}  // namespace

std::string collective_basis(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster,
                             const CommProfile& profile) {
  const Pricing p = pricing(op, group, cluster, profile, tuner_of(cluster));
  if ((p.basis == Basis::node_curve || p.basis == Basis::line) && runs_efa_tuner(op, group, cluster, profile))
    return "EFA: the AWS OFI plugin's regions pick each size's algorithm, at its rate fitted to AWS p5 logs";
  const std::string own = basis_text(p, group);
  if (const auto bound = bounding_pricing(op, group, cluster, profile)) {
    return fmt::format("{}, or where faster {} measured under the AWS OFI tuner", own, basis_text(*bound, group));
  }
  return own;
}

double collective_time_s(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                         const CommProfile& profile) {
  if (bytes <= 0.0) return 0.0;
  const double t = priced_time_s(pricing(op, group, cluster, profile, tuner_of(cluster)), op, bytes, group, cluster,
                                 profile);
  if (const auto bound = bounding_pricing(op, group, cluster, profile))
    return std::min(t, priced_time_s(*bound, op, bytes, group, cluster, profile));
  return t;
}

namespace {

// NCCL's ring protocols (collectives.hpp): what each adds to the low-latency line, from the
// differences of NCCL v2.8.4's src/graph/tuning.cc ring constants, and the bandwidth it keeps.
struct RingProtocolCost {
  double base_s;
  double nvlink_hop_s;
  double network_hop_s;
  double bandwidth_fraction;  // 0: LL's (a quarter or a third, by collective and node count)
};

constexpr std::array kRingProtocols{
    RingProtocolCost{.base_s = 0.0, .nvlink_hop_s = 0.0, .network_hop_s = 0.0, .bandwidth_fraction = 0.0},  // LL
    RingProtocolCost{.base_s = 6.4e-6, .nvlink_hop_s = 1.43e-6, .network_hop_s = 1.3e-6, .bandwidth_fraction = 0.92},
    RingProtocolCost{.base_s = 4.8e-6, .nvlink_hop_s = 2.93e-6, .network_hop_s = 6.9e-6, .bandwidth_fraction = 1.0},
};

bool runs_as_ring(CollectiveOp op, const CommGroup& group, const ClusterSpec& cluster, const CommProfile& profile) {
  if (op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter) return true;
  if (op != CollectiveOp::all_reduce) return false;
  if (node_count(group) > 1) return !all_reduce_uses_tree(group, cluster, profile);
  const double ring = cluster.gpu.nvlink_bytes_per_s * profile.nvlink_efficiency;
  return ring / bus_factor(op, group.ranks) >= cluster.gpu.nvlink_bytes_per_s * profile.nvls_algbw_efficiency;
}

}  // namespace

Protocol collective_protocol(CollectiveOp op, double bytes, const CommGroup& group, const ClusterSpec& cluster,
                             const CommProfile& profile) {
  if (group.ranks <= 1 || cluster.ideal_network) return {};
  const std::int64_t per_node = std::min(group.ranks_per_node, group.ranks);
  const std::int64_t nodes = (group.ranks + per_node - 1) / per_node;
  const CommGroup effective{.ranks = group.ranks, .ranks_per_node = per_node};
  const LatencySteps steps = latency_steps(op, effective, cluster, profile);
  double line = profile.launch_latency_s + steps.nvlink * profile.nvlink_hop_latency_s +
                steps.network * profile.network_hop_latency_s;
  if (op == CollectiveOp::all_to_all && nodes > 1) {
    // A send and a receive per peer: a fixed cost per call and one per peer on another node.
    line += profile.all_to_all_base_latency_s +
            static_cast<double>(group.ranks - per_node) * profile.all_to_all_peer_latency_s;
  }
  const double bandwidth_s = bytes > 0.0 ? bandwidth_time_s(op, bytes, effective, cluster, profile) : 0.0;
  if (op == CollectiveOp::send_recv && nodes > 1 && profile.p2p_network_share > 0.0) {
    // Through the network proxy (CommProfile::p2p_network_latency_s).
    line += profile.p2p_network_latency_s;
    return {.latency_s = line,
            .bandwidth_fraction = profile.p2p_network_share,
            .seconds = line + bandwidth_s / profile.p2p_network_share};
  }
  if (!runs_as_ring(op, effective, cluster, profile) || !(bytes > 0.0))
    return {.latency_s = line, .seconds = line + bandwidth_s};
  const double ll_fraction = nodes > 1 || op == CollectiveOp::all_reduce ? 0.25 : 1.0 / 3.0;
  Protocol best{.seconds = std::numeric_limits<double>::infinity()};
  for (const RingProtocolCost& p : kRingProtocols) {
    Protocol candidate{.latency_s = line + p.base_s + steps.nvlink * p.nvlink_hop_s + steps.network * p.network_hop_s,
                       .bandwidth_fraction = p.bandwidth_fraction > 0.0 ? p.bandwidth_fraction : ll_fraction};
    candidate.seconds = candidate.latency_s + bandwidth_s / candidate.bandwidth_fraction;
    if (candidate.seconds < best.seconds) best = candidate;
  }
  return best;
}

}  // namespace clustersim::models
