#include "sim/max_min.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

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
  }

  auto freeze = [&](std::uint32_t f) {
    frozen_[f] = 1;
    --unfrozen;
    for (std::uint32_t i = flow_link_begin_[f]; i < flow_link_begin_[f + 1]; ++i) {
      active_weight_[flow_links_[i]] -= weight_[f];
      --active_count_[flow_links_[i]];
    }
  };

  while (unfrozen > 0) {
    // The fill-level increment at which the next link saturates or the next flow hits its cap.
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < links; ++l)
      if (active_count_[l] > 0) step = std::min(step, remaining_[l] / active_weight_[l]);
    for (std::uint32_t f = 0; f < flows; ++f)
      if (!frozen_[f]) step = std::min(step, (cap_[f] - rate_[f]) / weight_[f]);
    assert(std::isfinite(step) && step >= 0.0);

    for (std::uint32_t f = 0; f < flows; ++f)
      if (!frozen_[f]) rate_[f] += weight_[f] * step;
    for (std::size_t l = 0; l < links; ++l)
      if (active_count_[l] > 0) remaining_[l] -= active_weight_[l] * step;

    // Freeze flows on saturated links and flows at their caps. A relative tolerance absorbs the
    // rounding of the subtraction above.
    for (std::size_t l = 0; l < links; ++l) {
      if (active_count_[l] == 0 || remaining_[l] > 1e-12 * capacity_[l]) continue;
      remaining_[l] = 0.0;
      for (std::uint32_t i = link_flow_begin_[l]; i < link_flow_begin_[l + 1]; ++i)
        if (!frozen_[link_flows_[i]]) freeze(link_flows_[i]);
    }
    for (std::uint32_t f = 0; f < flows; ++f)
      if (!frozen_[f] && rate_[f] >= cap_[f] * (1.0 - 1e-12)) {
        rate_[f] = cap_[f];
        freeze(f);
      }
  }
  return rate_;
}

}  // namespace clustersim::sim
