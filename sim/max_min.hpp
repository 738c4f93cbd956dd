#pragma once
/// Weighted max-min fair sharing of link capacities by progressive filling.
/// Every unfrozen flow grows at `weight` x a common fill level; a link that saturates freezes the
/// flows crossing it, a flow that reaches its cap freezes alone; repeat until all are frozen.
/// The result is the unique weighted max-min fair allocation (Bertsekas & Gallager, Data Networks,
/// section 6.5.2). Knows nothing of networks: a "link" is any shared capacity.
/// The fill level sweeps from one saturation to the next through a heap of the levels at which each
/// link would saturate: O((links + flow-link incidences) x log links) per solve.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sim/indexed_heap.hpp"

namespace clustersim::sim {

class MaxMinSolver {
 public:
  /// Forgets all links and flows, keeping the buffers for the next problem.
  void clear();
  /// Adds a link of `capacity` (> 0) and returns its index.
  std::uint32_t add_link(double capacity);
  /// Adds a flow over `links` (indices from add_link) and returns its index. `weight` > 0 is its
  /// share; `cap` bounds its total rate. A flow over no links gets its cap.
  std::uint32_t add_flow(std::span<const std::uint32_t> links, double weight = 1.0,
                         double cap = std::numeric_limits<double>::infinity());

  /// Solves and returns one rate per flow, in add_flow order.
  const std::vector<double>& solve();

  std::size_t link_count() const { return capacity_.size(); }
  std::size_t flow_count() const { return weight_.size(); }

 private:
  // Links.
  std::vector<double> capacity_;
  std::vector<double> remaining_;       // capacity not yet given to frozen or growing flows
  std::vector<double> active_weight_;   // sum of weights of unfrozen flows crossing the link
  std::vector<std::uint32_t> active_count_;  // how many unfrozen flows cross the link
  std::vector<std::uint32_t> link_flow_begin_;  // CSR of flows per link, built by solve()
  std::vector<std::uint32_t> link_flows_;
  // Flows.
  std::vector<double> weight_;
  std::vector<double> cap_;
  std::vector<std::uint32_t> flow_link_begin_{0};
  std::vector<std::uint32_t> flow_links_;
  std::vector<double> rate_;
  std::vector<char> frozen_;
  std::vector<std::uint32_t> active_flow_scratch_;
  std::vector<char> saturated_;         // by link: its flows are frozen, its level settled
  std::vector<std::uint32_t> capped_;   // flows with a finite cap, by the level at which it binds
  IndexedHeap<double> saturation_;      // links with growing flows, by the level they saturate at
};

}  // namespace clustersim::sim
