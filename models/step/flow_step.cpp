#include "models/step/flow_step.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace clustersim::models {

FlowStep::FlowStep(const ParallelismSpec& parallelism, const ClusterSpec& cluster, const CommProfile& profile,
                   FlowLowering& lowering)
    : tp_(parallelism.tp),
      pp_(parallelism.pp),
      dp_(parallelism.dp),
      cp_(parallelism.cp),
      cp_a2a_(parallelism.cp_a2a_ranks > 0 ? parallelism.cp_a2a_ranks : 1),
      cp_all_to_all_(parallelism.cp_comm == CpComm::a2a),
      ep_(parallelism.ep),
      etp_(parallelism.etp),
      shard_group_(parallelism.shard_group > 0 ? parallelism.shard_group : parallelism.dp * parallelism.cp),
      cluster_(cluster),
      profile_(profile),
      lowering_(lowering) {
  // Symmetry: a TP group that is exactly one NVLink domain shares its NVLink with nothing else
  // (other traffic leaves the domain over PCIe and NICs), so one replica's rings stand for all.
  tp_replicas_ = tp_ == nvlink_domain(cluster) ? 1 : dp_ * cp_;
  cache_.resize(static_cast<std::size_t>(kScopes * pp_));
}

const FlowStep::UnitTransfers& FlowStep::unit_transfers(CommScope scope, std::int64_t stage) {
  UnitTransfers& out = cache_[static_cast<std::size_t>(static_cast<std::int64_t>(scope) * pp_ + stage)];
  if (out.built) return out;
  out.built = true;
  const FlowNetwork& network = lowering_.network();
  auto group = [&](std::vector<std::int64_t> ranks) {
    append_ring(network, ranks, 1.0, out.ring);
    append_all_reduce(network, ranks, 1.0, FlowAlgorithm::automatic, cluster_, profile_, out.all_reduce);
  };
  const std::int64_t stage_ranks = tp_ * cp_ * dp_;
  const std::int64_t stage_first = rank(stage, 0, 0, 0);
  switch (scope) {
    case CommScope::tp:  // replica r is data-parallel replica r / cp, context rank r % cp
      for (std::int64_t r = 0; r < tp_replicas_; ++r) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t t = 0; t < tp_; ++t) ranks.push_back(rank(stage, r / cp_, r % cp_, t));
        group(std::move(ranks));
      }
      break;
    case CommScope::dp:  // every rank holding the same weights: dp x cp of them, in rank order
      for (std::int64_t t = 0; t < tp_; ++t) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t d = 0; d < dp_; ++d)
          for (std::int64_t c = 0; c < cp_; ++c) ranks.push_back(rank(stage, d, c, t));
        group(std::move(ranks));
      }
      break;
    case CommScope::dp_shard:  // consecutive blocks of shard_group of the dp x cp ranks
    case CommScope::dp_replica:  // the ranks at one position of every block
      for (std::int64_t t = 0; t < tp_; ++t) {
        const std::int64_t ranks_per_weight = dp_ * cp_, groups = ranks_per_weight / shard_group_;
        const bool shard = scope == CommScope::dp_shard;
        for (std::int64_t g = 0; g < (shard ? groups : shard_group_); ++g) {
          std::vector<std::int64_t> ranks;
          for (std::int64_t i = 0; i < (shard ? shard_group_ : groups); ++i) {
            const std::int64_t index = shard ? g * shard_group_ + i : i * shard_group_ + g;  // d * cp + c
            ranks.push_back(rank(stage, index / cp_, index % cp_, t));
          }
          group(std::move(ranks));
        }
      }
      break;
    case CommScope::cp:  // rings for p2p and all_gather, all-to-alls for a2a (Ulysses)
      for (std::int64_t d = 0; d < dp_; ++d)
        for (std::int64_t t = 0; t < tp_; ++t) {
          std::vector<std::int64_t> ranks;
          for (std::int64_t c = 0; c < cp_; ++c) ranks.push_back(rank(stage, d, c, t));
          if (cp_all_to_all_) append_all_to_all(network, ranks, 1.0, out.all_to_all);
          group(std::move(ranks));
        }
      break;
    case CommScope::cp_inner:  // cp_a2a_ consecutive context ranks
    case CommScope::cp_outer:  // the ranks at one position of each of those groups
      for (std::int64_t d = 0; d < dp_; ++d)
        for (std::int64_t t = 0; t < tp_; ++t) {
          const bool inner = scope == CommScope::cp_inner;
          const std::int64_t groups = inner ? cp_ / cp_a2a_ : cp_a2a_, size = inner ? cp_a2a_ : cp_ / cp_a2a_;
          for (std::int64_t g = 0; g < groups; ++g) {
            std::vector<std::int64_t> ranks;
            for (std::int64_t i = 0; i < size; ++i)
              ranks.push_back(rank(stage, d, inner ? g * cp_a2a_ + i : i * cp_a2a_ + g, t));
            if (inner) append_all_to_all(network, ranks, 1.0, out.all_to_all);
            group(std::move(ranks));
          }
        }
      break;
    case CommScope::ep:  // ep ranks of the stage with stride etp, in blocks of ep x etp
      for (std::int64_t block = 0; block < stage_ranks; block += ep_ * etp_)
        for (std::int64_t offset = 0; offset < etp_; ++offset) {
          std::vector<std::int64_t> ranks;
          for (std::int64_t e = 0; e < ep_; ++e) ranks.push_back(stage_first + block + e * etp_ + offset);
          append_all_to_all(network, ranks, 1.0, out.all_to_all);
        }
      break;
    case CommScope::ep_tp:  // etp consecutive ranks split each expert
      for (std::int64_t first = 0; first < stage_ranks; first += etp_) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t i = first; i < first + etp_; ++i) ranks.push_back(stage_first + i);
        group(std::move(ranks));
      }
      break;
    case CommScope::ep_dp:  // the ranks holding the same experts: every (ep x etp)-th of the stage
      for (std::int64_t offset = 0; offset < ep_ * etp_; ++offset) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t i = offset; i < stage_ranks; i += ep_ * etp_) ranks.push_back(stage_first + i);
        group(std::move(ranks));
      }
      break;
    case CommScope::pp_next:
    case CommScope::pp_previous: {
      const std::int64_t peer = scope == CommScope::pp_next ? (stage + 1) % pp_ : (stage + pp_ - 1) % pp_;
      for (std::int64_t d = 0; d < dp_; ++d)
        for (std::int64_t c = 0; c < cp_; ++c)
          for (std::int64_t t = 0; t < tp_; ++t)
            out.ring.push_back({.src = rank(stage, d, c, t), .dst = rank(peer, d, c, t), .bytes = 1.0});
      break;
    }
    case CommScope::pp_ends:  // the same position on the first and the last stage
      for (std::int64_t d = 0; d < dp_; ++d)
        for (std::int64_t c = 0; c < cp_; ++c)
          for (std::int64_t t = 0; t < tp_; ++t) group({rank(0, d, c, t), rank(pp_ - 1, d, c, t)});
      break;
  }
  return out;
}

FlowSpan FlowStep::lower(sim::TaskGraph& graph, CommScope scope, const Traffic& traffic, sim::TaskLabel label) {
  const UnitTransfers& unit = unit_transfers(scope, label.stage);
  std::vector<Transfer> transfers;
  if (traffic.ring_bytes > 0.0)
    for (Transfer t : unit.ring) {
      t.bytes *= traffic.ring_bytes;
      transfers.push_back(t);
    }
  if (traffic.all_reduce_bytes > 0.0)
    for (Transfer t : unit.all_reduce) {
      t.bytes *= traffic.all_reduce_bytes;
      transfers.push_back(t);
    }
  if (traffic.all_to_all_bytes > 0.0)
    for (Transfer t : unit.all_to_all) {
      t.bytes *= traffic.all_to_all_bytes;
      transfers.push_back(t);
    }
  if (std::isfinite(traffic.send_cap_bytes_per_s)) {
    // A rank's flows share its cap in proportion to their bytes, so they end together as the
    // analytic time has them.
    std::map<std::int64_t, double> sent;
    for (const Transfer& t : transfers) sent[t.src] += t.bytes;
    for (Transfer& t : transfers)
      t.cap_bytes_per_s = std::min(t.cap_bytes_per_s, traffic.send_cap_bytes_per_s * t.bytes / sent[t.src]);
  }
  return lowering_.add(graph, std::move(transfers), traffic.latency_s, label);
}

FlowSpan FlowStep::lower(sim::TaskGraph& graph, std::span<const CommPart> parts, sim::TaskLabel label) {
  constexpr sim::TaskId none = ~sim::TaskId{0};
  FlowSpan span{none, none};
  for (std::size_t begin = 0; begin < parts.size();) {
    const CommScope scope = parts[begin].first->scope;
    std::size_t end = begin + 1;
    while (end < parts.size() && parts[end].first->scope == scope) ++end;
    const Traffic traffic = comm_traffic(parts.subspan(begin, end - begin), cluster_, profile_);
    begin = end;
    if (traffic.empty()) continue;
    const FlowSpan part = lower(graph, scope, traffic, label);
    if (span.first == none)
      span.first = part.first;
    else
      graph.add_dependency(span.last, part.first);
    span.last = part.last;
  }
  return span;
}

}  // namespace clustersim::models
