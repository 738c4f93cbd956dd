#include "models/step/pipeline_schedule.hpp"

#include <algorithm>
#include <cassert>

namespace clustersim::models {

namespace {

// Megatron-LM's mapping of the k-th forward (or backward) unit of a stage to (chunk, micro-batch)
// (get_schedule_table): micro-batches go in groups of N through chunk 0, then the same group
// through chunk 1, and so on; the last group holds what is left, 1 to N micro-batches. Backwards
// visit a group's chunks last to first.
PassRef interleaved_unit(std::int64_t k, bool forward, std::int64_t vp, std::int64_t micro_batches,
                         std::int64_t group) {
  if (vp == 1) return {forward, 0, static_cast<std::int32_t>(k)};  // 1F1B: no divisions per pass
  std::int64_t first = (k / (group * vp)) * group;  // the group's first micro-batch
  std::int64_t size = group;
  if (first + group >= micro_batches) size = micro_batches - first;  // the last group
  const std::int64_t in_group = k - first * vp;
  std::int64_t chunk = in_group / size;
  if (!forward) chunk = vp - 1 - chunk;
  return {forward, static_cast<std::int32_t>(chunk), static_cast<std::int32_t>(first + in_group % size)};
}

std::int64_t group_or_pp(std::int64_t group, std::int64_t pp) { return group > 0 ? group : pp; }

}  // namespace

std::int64_t warmup_units(Schedule schedule, std::int64_t pp, std::int64_t vp, std::int64_t micro_batches,
                          std::int64_t stage, std::int64_t group) {
  const std::int64_t units = micro_batches * vp;
  if (schedule == Schedule::gpipe) return units;
  // 1F1B is interleaved with one chunk; both share the warm-up / steady / drain shape.
  const std::int64_t warmup = schedule == Schedule::interleaved
                                  ? 2 * (pp - stage - 1) + (vp - 1) * group_or_pp(group, pp)
                                  : pp - stage - 1;
  return std::min(warmup, units);
}

std::vector<PassRef> stage_pass_order(Schedule schedule, std::int64_t pp, std::int64_t vp,
                                      std::int64_t micro_batches, std::int64_t stage, std::int64_t runs,
                                      std::int64_t group) {
  if (runs > 1) {
    assert(micro_batches % runs == 0);
    const std::int64_t per_run = micro_batches / runs;
    std::vector<PassRef> order;
    order.reserve(static_cast<std::size_t>(2 * micro_batches * vp));
    for (std::int64_t r = 0; r < runs; ++r) {
      for (PassRef ref : stage_pass_order(schedule, pp, vp, per_run, stage, 1, group)) {
        ref.micro_batch += static_cast<std::int32_t>(r * per_run);
        order.push_back(ref);
      }
    }
    return order;
  }
  const std::int64_t m = micro_batches;
  std::vector<PassRef> order;
  order.reserve(static_cast<std::size_t>(2 * m * vp));
  if (schedule == Schedule::gpipe) {
    for (std::int64_t b = 0; b < m; ++b) order.push_back({true, 0, static_cast<std::int32_t>(b)});
    for (std::int64_t b = 0; b < m; ++b) order.push_back({false, 0, static_cast<std::int32_t>(b)});
    return order;
  }
  const std::int64_t units = m * vp;
  const std::int64_t n = group_or_pp(group, pp);
  const std::int64_t warmup = warmup_units(schedule, pp, vp, m, stage, n);
  std::int64_t next_forward = 0, next_backward = 0;
  auto forward = [&] { order.push_back(interleaved_unit(next_forward++, true, vp, m, n)); };
  auto backward = [&] { order.push_back(interleaved_unit(next_backward++, false, vp, m, n)); };
  for (std::int64_t i = 0; i < warmup; ++i) forward();
  for (std::int64_t i = 0; i < units - warmup; ++i) {
    forward();
    backward();
  }
  while (next_backward < units) backward();
  assert(static_cast<std::int64_t>(order.size()) == 2 * units);
  return order;
}

std::vector<std::int64_t> split_layers(std::int64_t layers, std::int64_t pp, std::int64_t vp) {
  const std::int64_t chunks = pp * vp;
  assert(layers >= chunks);
  const std::int64_t base = layers / chunks;
  const std::int64_t larger = layers % chunks;  // chunks that get base + 1
  std::vector<std::int64_t> split(static_cast<std::size_t>(chunks), larger == 0 ? base : base + 1);
  // Hand the smaller chunks to the ends first: first, last, second, second to last, ...
  std::int64_t smaller = larger == 0 ? 0 : chunks - larger;
  for (std::int64_t i = 0; smaller > 0; ++i) {
    split[static_cast<std::size_t>(i)] = base;
    if (--smaller == 0) break;
    split[static_cast<std::size_t>(chunks - 1 - i)] = base;
    --smaller;
  }
  return split;
}

std::vector<std::int64_t> recorded_split(std::int64_t layers, std::int64_t pp, std::int64_t vp,
                                         std::vector<std::int64_t> split) {
  if (pp * vp <= layers && split == split_layers(layers, pp, vp)) return {};
  return split;
}

std::vector<std::int64_t> chunk_layers(std::int64_t layers, const ParallelismSpec& parallelism) {
  if (!parallelism.layers_per_chunk.empty()) return parallelism.layers_per_chunk;
  return split_layers(layers, parallelism.pp, parallelism.vp);
}

}  // namespace clustersim::models
