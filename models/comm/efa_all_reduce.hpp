#pragma once
/// All-reduce across nodes on AWS EFA (`cluster.fabric=efa`), as NCCL runs it there: the AWS OFI
/// NCCL plugin's tuner picks the algorithm and protocol from regions of (message size, ranks), and
/// each choice moves data at its own rate with its own fixed costs.
/// - Choice: the tuner's p5/p5e regions for communicators of 8 ranks a node, transcribed from
///   aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp (region_init_internal_p5_p5e, @2daf7d30):
///   polygons in log2(size) x log2(ranks), the first that holds the point wins, as the plugin's
///   is_inside_region walks them. Roughly: tree LL128 up to 36 MiB on 4 nodes, 112 MiB on 8, 288 MiB
///   on 16-32; ring LL128 in the middle; ring Simple from 1.5-2.5 GiB on 4-8 nodes; NVLSTree Simple
///   at 2-8 GiB on 16 nodes and up. On two nodes the plugin leaves the choice to NCCL, whose
///   NVLSTree Simple the 2-node log follows (478 GB/s busbw, past what a ring draws from the NICs).
/// - Time, with R the line rate of the node's NICs the group's ranks use and n ranks on N nodes:
///   - ring Simple and ring LL128: 2 (n-1)/n x S / (R x e) + 2 (N-1) network steps x h;
///   - tree LL128: 2 log2(N) steps x h + S x b / (R x e), where b is the busiest node's tree
///     traffic per buffer byte (collectives.hpp, tree_network_bytes_per_byte: 1 on 2 nodes, 2 from 4);
///   - NVLSTree Simple: S over the lesser of the node's NVLS rate and R x e / b, + 2 log2(N) steps x h.
///   Each choice's e and h are fitted, least worst error, to the AWS p5
///   all-reduce logs of 2-32 nodes (calibration/published/h100_*_allreduce_aws-efa.jsonl: 32 x 100
///   Gb/s EFA a node, 32 MiB-8 GiB), the rings with their 2 (n-N) NVLink steps: worst 1.3 % (ring
///   Simple, at the fabric's step latency, which its 1-8 GiB sizes do not tell), 9.2 % (ring
///   LL128), 7.1 % (tree LL128), 17 % (NVLSTree Simple, whose fixed cost is 0.3 ms on 2 nodes and
///   3.5 ms on 16-32, which one hop latency per tree level does not follow).
/// - `cluster.network_latency_us` moves every choice's step latency by the same amount as it moves
///   the fabric's hop latency.
/// Units: bytes, seconds.
/// Limitations: all-reduce only, and only communicators of 8 ranks a node (the regions of 1 and 2
/// ranks a node are not transcribed and no log measures them): other layouts and collectives take
/// the general model at EFA's bulk rate. The regions are the plugin's of late 2025; older plugins
/// drew them elsewhere. The analytic fidelity only: `flow` routes EFA as a RoCE fabric.
/// Source: aws/aws-ofi-nccl (regions); crazyguitar/aws-gpu-communication-benchmark (the logs).

#include <cstdint>
#include <optional>

#include "models/comm/collectives.hpp"

namespace clustersim::models {

enum class EfaAllReduceAlgorithm { tree_ll128, nvls_tree_simple, ring_ll128, ring_simple };

/// The tuner's choice for an all-reduce of `bytes` over `ranks` at `ranks_per_node` a node;
/// nullopt where the transcribed regions do not cover the layout (not 8 a node, or one node).
std::optional<EfaAllReduceAlgorithm> efa_all_reduce_algorithm(double bytes, std::int64_t ranks,
                                                              std::int64_t ranks_per_node);

/// The time of that choice over `group` on `cluster` (whose fabric is EFA).
double efa_all_reduce_time_s(EfaAllReduceAlgorithm algorithm, double bytes, const CommGroup& group,
                             const ClusterSpec& cluster, const CommProfile& profile);

}  // namespace clustersim::models
