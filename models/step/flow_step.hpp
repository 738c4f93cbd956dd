#pragma once
/// The `flow` fidelity's lowering of a training step's communication tasks (step_builder.hpp) to
/// flows on the cluster network, so that tensor-, pipeline- and data-parallel traffic of different
/// groups share links by max-min fairness.
/// Symmetry: one pipeline's compute stands for every data-parallel replica (step_plan.hpp), but
/// - data-parallel traffic runs for every group: a stage's gradient reduction is the rings of all
///   its tp data-parallel groups (every replica takes part in each);
/// - pipeline sends run for every replica and tensor rank (each rank to its peer on the next or
///   previous stage), since they cross the fabric beside the data-parallel rings;
/// - tensor-parallel rings run for every replica, except when the group is exactly one node: then
///   every replica's rings are identical and touch only their own node's NVLink, which no other
///   traffic uses, so replica 0's stand for all;
/// - context-parallel rings (ring attention's K/V blocks) run for every replica and tensor rank;
///   ZeRO-3 gathers and reduce-scatters are data-parallel traffic, over the dp x cp ranks that
///   hold the same weights or, with hybrid sharding, inside each shard group of consecutive ranks
///   of them, the shards' all-reduces between the groups' ranks of the same position;
/// - a mixture-of-experts model's token dispatch and combine run for every expert-parallel group
///   (ep ranks of the stage with stride etp, as Megatron-Core places them), each rank sending its
///   share to every other rank of its group at once; with expert tensor parallelism each expert's
///   etp consecutive ranks gather and reduce-scatter the routed rows around a ring; the expert
///   gradients reduce over every (ep x etp)-th rank of the stage, which hold the same experts.
/// Each group's traffic follows its ranks' real routes (rank order: TP, CP, DP, PP innermost
/// first, as parallelism_spec.hpp), so oversubscribed and failed links slow the groups they carry
/// and the step waits for the slowest, as synchronous training does.
/// Limitations: one pipeline's compute paces every replica, so a replica slowed by its links holds
/// the others back only where they wait for its traffic.

#include <cstdint>
#include <span>
#include <vector>

#include "models/comm/flow_collectives.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/step/step_builder.hpp"

namespace clustersim::models {

class FlowStep {
 public:
  FlowStep(const ParallelismSpec& parallelism, const ClusterSpec& cluster, const CommProfile& profile,
           FlowLowering& lowering);

  /// One communication task's collectives (step_builder.hpp's CommLowering): each run of parts of
  /// one scope as the traffic they sum to, the runs chained in order; empty traffic left out.
  FlowSpan lower(sim::TaskGraph& graph, std::span<const CommPart> parts, sim::TaskLabel label);
  /// The traffic of one scope's groups on the label's stage.
  FlowSpan lower(sim::TaskGraph& graph, CommScope scope, const Traffic& traffic, sim::TaskLabel label);

 private:
  std::int64_t rank(std::int64_t stage, std::int64_t replica, std::int64_t cp_rank, std::int64_t tp_rank) const {
    return ((stage * dp_ + replica) * cp_ + cp_rank) * tp_ + tp_rank;
  }
  /// The transfers of one scope and stage for one byte of ring traffic per rank, for an
  /// all-reduce of one byte and for an all-to-all of one byte per rank, built once and scaled per
  /// call.
  struct UnitTransfers {
    bool built = false;
    std::vector<Transfer> ring, all_reduce, all_to_all;
  };
  const UnitTransfers& unit_transfers(CommScope scope, std::int64_t stage);

  static constexpr std::int64_t kScopes = 13;  // CommScope's values
  std::int64_t tp_, pp_, dp_, cp_;
  std::int64_t cp_a2a_;  // a2a+p2p: the context ranks of an all-to-all group (1 otherwise)
  bool cp_all_to_all_;   // cp_comm a2a: the CP groups run all-to-alls (else rings only)
  std::int64_t ep_, etp_;  // an expert-parallel group, and the ranks splitting each expert (parallelism_spec.hpp)
  std::int64_t shard_group_;  // ranks of one ZeRO-3 shard group (dp x cp without hybrid sharding)
  std::int64_t tp_replicas_ = 1;  // replicas whose tensor-parallel rings are lowered
  const ClusterSpec& cluster_;
  const CommProfile& profile_;
  FlowLowering& lowering_;
  std::vector<UnitTransfers> cache_;  // by scope x pp + stage
};

}  // namespace clustersim::models
