#pragma once
/// Every parallelism layout of one model on one cluster that the step model accepts, with the ones
/// that cannot fit in GPU memory set apart before anything is simulated (a memory estimate costs
/// microseconds; a simulated step, milliseconds).
/// Enumerated, in this nesting order: tp, cp, pp (dp = GPUs / (tp cp pp)), vp, micro-batch, SP,
/// ZeRO stage, recompute. A layout is listed when models::layout_violation accepts it (kv_heads
/// and tp dividing one another, SP only with tp > 1, micro-batches per step a multiple of pp when
/// interleaved, ...: models/spec/layout_rules.hpp; under the flow fidelity also
/// models::flow_graph_violation), and only meaningful distinct layouts are:
/// - one ZeRO stage (the first listed) where dp x cp = 1, since sharding over one replica changes
///   nothing;
/// - vp = 1 runs 1F1B; vp > 1 runs the interleaved schedule, tried only with pp >= 2 and a whole
///   number of layers per chunk (Megatron-LM's --num-layers-per-virtual-pipeline-stage); pp itself
///   may split the layers unevenly (Llama 3 405B: 126 on 16);
/// - micro-batch sizes divide global_batch / dp.
/// GPipe is not enumerated: it has 1F1B's bubble and holds all m micro-batches' activations.
/// Limitations: tp and cp are not capped at a node (such layouts are valid, just slow); the
/// precision, sequence length and global batch stay those of the base inputs. The simulations, not
/// the enumeration, set a search's speed: each costs about micro-batches x stages x chunks engine
/// tasks, and Llama 3 70B on 256 GPUs has some 27,000 layouts that fit; a search that ranks only
/// its top rows simulates the few hundred that a lower bound cannot rule out (tools/sweep_runner).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/compute/memory.hpp"
#include "models/step/step_model.hpp"

namespace clustersim::planning {

/// Which values the search may take; an empty list means every valid value.
struct SearchSpace {
  std::vector<std::int64_t> tp{};
  std::vector<std::int64_t> cp{};
  std::vector<std::int64_t> pp{};
  std::vector<std::int64_t> vp{};
  std::vector<std::int64_t> micro_batch{};
  std::vector<std::int64_t> ep{};  // expert parallelism (mixture-of-experts models); empty: every valid one
  // Expert tensor parallelism; empty: 1 and the powers of two up to the NVLink domain (an expert
  // split across the network is not worth a layout).
  std::vector<std::int64_t> etp{};
  std::vector<models::Recompute> recompute{models::Recompute::none, models::Recompute::selective, models::Recompute::full};
  std::vector<int> zero{0, 1, 2, 3};
  std::vector<bool> sp{false, true};
  bool sp_follows_tp = false;  // SP exactly when tp > 1 (Megatron-LM's advice), instead of `sp`
};

/// A layout: the base inputs' parallelism and training with the searched fields replaced.
struct Layout {
  models::ParallelismSpec parallelism{};
  models::TrainingSpec training{};
};

/// The peak over the pipeline stages of what one GPU holds, as simulate_step reports it.
struct PeakMemory {
  models::MemoryBreakdown breakdown{};
  std::int64_t stage = 0;
  bool fits = false;
};

/// Memory of a layout without simulating it: the same figures as StepReport::memory_per_stage.
/// The layout must pass models::layout_violation.
PeakMemory peak_memory(const models::StepInputs& in);
/// Every stage's memory per GPU, stage 0 first (StepReport::memory_per_stage).
std::vector<models::MemoryBreakdown> memory_per_stage(const models::StepInputs& in);

/// One valid layout and its memory estimate.
struct LayoutCandidate {
  Layout layout{};
  PeakMemory memory{};
};

/// Enumerates the valid layouts of `base` (model, cluster, sequence length, global batch and
/// precision fixed), in enumeration order, each with its memory estimate: candidates whose
/// memory.fits is false need not be simulated. Each splits its layers evenly (models::split_layers):
/// a job's own split (parallelism.layers_per_chunk) belongs to the pp x vp it was written for.
std::vector<LayoutCandidate> search_layouts(const models::StepInputs& base, const SearchSpace& space = {});

/// The bytes of a step plan: layouts whose plans have equal keys lower to the same task graph and
/// so simulate to the same times (a ZeRO-3 implementation named beside ZeRO-1, for one), which lets a
/// search simulate each distinct plan once.
std::string plan_key(const models::StepPlan& plan);

/// `base` with the layout's parallelism and training.
models::StepInputs with_layout(const models::StepInputs& base, const Layout& layout);

}  // namespace clustersim::planning
