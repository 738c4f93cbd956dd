#pragma once
/// The order in which one pipeline stage runs the forward and backward passes of its micro-batches,
/// and how the model's layers split into the pp x vp chunks those passes run on.
/// GPipe: all forwards, then all backwards. 1F1B (PipeDream-Flush, Narayanan et al. 2021): p-s-1
/// warm-up forwards on stage s, then alternate one forward and one backward, then drain.
/// Interleaved 1F1B (Megatron-LM): v chunks per stage, micro-batches in groups of N (p by
/// default) that pass through chunk 0, then chunk 1, ...; the last group takes what is left;
/// warm-up of 2(p-s-1) + (v-1)N forward units.
/// Limitations: no zero-bubble or DualPipe schedules. Interleaving needs groups of at least p
/// (layout_rules.hpp).
/// Source: Narayanan et al. 2021 (SC21) section 2.2; Megatron-LM core/pipeline_parallel/schedules.py
/// (get_schedule_table, get_pp_rank_microbatches).

#include <cstdint>
#include <vector>

#include "models/spec/parallelism_spec.hpp"

namespace clustersim::models {

struct PassRef {
  bool forward = true;
  std::int32_t chunk = 0;  // virtual chunk on this stage, 0..vp-1
  std::int32_t micro_batch = 0;
};

/// Forward units stage `stage` runs before its first backward (1F1B and interleaved; every unit
/// under GPipe), at most m x vp. `group`: the interleaved schedule's micro-batch group N (0: pp).
std::int64_t warmup_units(Schedule schedule, std::int64_t pp, std::int64_t vp, std::int64_t micro_batches,
                          std::int64_t stage, std::int64_t group = 0);

/// Passes of stage `stage` in execution order: 2 x m x vp entries. With `runs` > 1 the m
/// micro-batches run as that many schedules of m / runs one after the other (m a multiple of runs).
/// `group` as for warmup_units.
std::vector<PassRef> stage_pass_order(Schedule schedule, std::int64_t pp, std::int64_t vp,
                                      std::int64_t micro_batches, std::int64_t stage, std::int64_t runs = 1,
                                      std::int64_t group = 0);

/// Layers of each model chunk, in model order (chunk c of stage s is entry c x pp + s).
/// Even where pp x vp divides the layers; otherwise chunks differ by one layer and the smaller ones
/// go to the two ends of the model (which also carry the embedding and the logits), as Llama 3 405B
/// ran 126 layers on 16 stages: 7 on the first and last, 8 elsewhere.
std::vector<std::int64_t> split_layers(std::int64_t layers, std::int64_t pp, std::int64_t vp);

/// The layout's split: parallelism.layers_per_chunk where the job gives one, else split_layers.
std::vector<std::int64_t> chunk_layers(std::int64_t layers, const ParallelismSpec& parallelism);

/// What parallelism.layers_per_chunk records of a split a configuration gives: the split, unless
/// it is split_layers's own (then empty, the default).
std::vector<std::int64_t> recorded_split(std::int64_t layers, std::int64_t pp, std::int64_t vp,
                                         std::vector<std::int64_t> split);

}  // namespace clustersim::models
