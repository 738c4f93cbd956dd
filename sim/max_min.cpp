#include "sim/max_min.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace clustersim::sim {

void MaxMinSolver::clear() {
  capacity_.clear();
  weight_.clear();
  cap_.clear();
  flow_link_begin_.assign(1, 0);
  flow_links_.clear();
}

std::uint32_t MaxMinSolver::add_link(double capacity) {
  assert(capacity > 0.0);
  capacity_.push_back(capacity);
  return static_cast<std::uint32_t>(capacity_.size() - 1);
}

std::uint32_t MaxMinSolver::add_flow(std::span<const std::uint32_t> links, double weight, double cap) {
  assert(weight > 0.0 && cap >= 0.0);
  for (std::uint32_t link : links) {
    assert(link < capacity_.size());
    flow_links_.push_back(link);
  }
  flow_link_begin_.push_back(static_cast<std::uint32_t>(flow_links_.size()));
  weight_.push_back(weight);
  cap_.push_back(cap);
  return static_cast<std::uint32_t>(weight_.size() - 1);
}

const std::vector<double>& MaxMinSolver::solve() {
  const std::size_t links = capacity_.size();
  const std::size_t flows = weight_.size();
  rate_.assign(flows, 0.0);
  frozen_.assign(flows, 0);
  remaining_.assign(capacity_.begin(), capacity_.end());
  active_weight_.assign(links, 0.0);
  active_count_.assign(links, 0);

  // CSR of the flows crossing each link.
  link_flow_begin_.assign(links + 1, 0);
  for (std::uint32_t link : flow_links_) ++link_flow_begin_[link + 1];
  for (std::size_t l = 0; l < links; ++l) link_flow_begin_[l + 1] += link_flow_begin_[l];
  link_flows_.resize(flow_links_.size());
  {
    std::vector<std::uint32_t>& fill = active_flow_scratch_;
    fill.assign(link_flow_begin_.begin(), link_flow_begin_.end() - 1);
    for (std::uint32_t f = 0; f < flows; ++f)
      for (std::uint32_t i = flow_link_begin_[f]; i < flow_link_begin_[f + 1]; ++i)
        link_flows_[fill[flow_links_[i]]++] = f;
  }

  // Progressive filling as a sweep over the fill level F (rate per unit weight of the flows not yet
  // frozen): link l saturates at F = remaining_l / active_weight_l, flow f reaches its cap at
  // F = cap_f / weight_f. Taking these in increasing order from a heap, and updating only the links
  // of each flow that freezes, costs O((links + incidences) log links) instead of a pass over every
  // link and flow per bottleneck level.
  saturation_.reset(links);
  saturated_.assign(links, 0);
  capped_.clear();
  std::size_t unfrozen = flows;
  for (std::uint32_t f = 0; f < flows; ++f) {
    if (flow_link_begin_[f] == flow_link_begin_[f + 1]) {  // crosses nothing: only its cap binds
      rate_[f] = cap_[f];
      frozen_[f] = 1;
      --unfrozen;
      continue;
    }
    for (std::uint32_t i = flow_link_begin_[f]; i < flow_link_begin_[f + 1]; ++i) {
      active_weight_[flow_links_[i]] += weight_[f];
      ++active_count_[flow_links_[i]];
    }
    if (std::isfinite(cap_[f])) capped_.push_back(f);
  }
  std::sort(capped_.begin(), capped_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double la = cap_[a] / weight_[a], lb = cap_[b] / weight_[b];
    return la != lb ? la < lb : a < b;
  });
  for (std::uint32_t l = 0; l < links; ++l)
    if (active_count_[l] > 0) saturation_.set(l, remaining_[l] / active_weight_[l]);

  double level = 0.0;
  auto freeze = [&](std::uint32_t f, double rate) {
    rate_[f] = rate;
    frozen_[f] = 1;
    --unfrozen;
    for (std::uint32_t i = flow_link_begin_[f]; i < flow_link_begin_[f + 1]; ++i) {
      const std::uint32_t l = flow_links_[i];
      remaining_[l] -= rate;
      active_weight_[l] -= weight_[f];
      if (--active_count_[l] == 0 || saturated_[l]) {
        saturation_.erase(l);
        continue;
      }
      // Never below the current level: rounding must not take the sweep backwards.
      saturation_.set(l, std::max(level, remaining_[l] / active_weight_[l]));
    }
  };

  std::size_t next_cap = 0;
  while (unfrozen > 0) {
    while (next_cap < capped_.size() && frozen_[capped_[next_cap]]) ++next_cap;
    const double cap_level = next_cap < capped_.size() ? cap_[capped_[next_cap]] / weight_[capped_[next_cap]]
                                                       : std::numeric_limits<double>::infinity();
    if (!saturation_.empty() && saturation_.top_key() <= cap_level) {
      // The link saturates: every flow still growing on it stops at the current level.
      const std::uint32_t l = saturation_.top_id();
      level = std::max(level, saturation_.top_key());
      saturation_.pop();
      saturated_[l] = 1;
      for (std::uint32_t i = link_flow_begin_[l]; i < link_flow_begin_[l + 1]; ++i)
        if (!frozen_[link_flows_[i]]) freeze(link_flows_[i], weight_[link_flows_[i]] * level);
    } else {
      assert(next_cap < capped_.size());
      const std::uint32_t f = capped_[next_cap];
      level = std::max(level, cap_level);
      freeze(f, cap_[f]);
    }
  }
  return rate_;
}

}  // namespace clustersim::sim
