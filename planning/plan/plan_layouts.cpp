#include "planning/plan/plan_layouts.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace clustersim::planning {

std::vector<Layout> plan_layouts(const models::StepInputs& base) {
  SearchSpace space;
  for (std::int64_t tp = 1; tp <= models::nvlink_domain(base.cluster); tp *= 2) space.tp.push_back(tp);
  space.cp = {1};
  space.micro_batch = {1, 2};
  space.zero = {1, 3};
  space.recompute = {models::Recompute::selective, models::Recompute::full};
  space.sp_follows_tp = true;
  const auto candidates = search_layouts(base, space);
  const auto key = [](const Layout& l) {
    return std::tuple{l.parallelism.tp, l.parallelism.pp, l.parallelism.vp, l.training.micro_batch};
  };
  // 0: ZeRO-1 + selective, 1: ZeRO-1 + full, 2: ZeRO-3 + selective, 3: ZeRO-3 + full.
  const auto rank = [](const Layout& l) {
    return (l.parallelism.zero >= 3 ? 2 : 0) + (l.training.recompute == models::Recompute::full ? 1 : 0);
  };
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, int> best_rank;
  for (const auto& c : candidates) {
    if (!c.memory.fits) continue;
    const auto [it, inserted] = best_rank.emplace(key(c.layout), rank(c.layout));
    if (!inserted) it->second = std::min(it->second, rank(c.layout));
  }
  std::vector<Layout> kept;
  for (const auto& c : candidates) {
    if (c.memory.fits && best_rank.at(key(c.layout)) == rank(c.layout)) kept.push_back(c.layout);
  }
  return kept;
}

}  // namespace clustersim::planning
