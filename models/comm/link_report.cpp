#include "models/comm/link_report.hpp"

#include <algorithm>
#include <numeric>

namespace clustersim::models {

std::vector<LinkLoad> busiest_links(const StepGraph& step, const sim::Timeline& timeline, std::size_t count) {
  const std::size_t first = step.first_link, links = step.link_count;
  std::vector<std::uint8_t> kinds(links, 0);
  for (sim::TaskId t = 0; t < step.graph.size(); ++t)
    for (const sim::ResourceId r : step.graph.resources(t))
      if (r >= first && r < first + links) kinds[r - first] |= static_cast<std::uint8_t>(1u << step.graph.label(t).kind);
  std::vector<std::size_t> order(links);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto bytes = [&](std::size_t i) { return timeline.units_served[first + i]; };
  // Busiest by utilisation: bytes over capacity, so a loaded NIC outranks a lightly used NVLink
  // that moved more bytes.
  const auto utilisation = [&](std::size_t i) { return bytes(i) / step.resources[first + i].capacity_per_s; };
  count = std::min(count, links);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return utilisation(a) != utilisation(b) ? utilisation(a) > utilisation(b) : a < b;
                    });
  const double step_s = timeline.makespan.seconds();
  std::vector<LinkLoad> out;
  for (std::size_t k = 0; k < count && bytes(order[k]) > 0.0; ++k) {
    const std::size_t i = order[k];
    const sim::Resource& resource = step.resources[first + i];
    LinkLoad load{.name = resource.name,
                  .bytes = bytes(i),
                  .utilisation = step_s > 0.0 ? bytes(i) / (resource.capacity_per_s * step_s) : 0.0,
                  .busy_fraction = step_s > 0.0 ? timeline.busy_s[first + i] / step_s : 0.0,
                  .kinds = {}};
    for (std::uint8_t kind = 0; kind < 8; ++kind)
      if (kinds[i] & (1u << kind)) load.kinds.push_back(static_cast<TaskKind>(kind));
    out.push_back(std::move(load));
  }
  return out;
}

}  // namespace clustersim::models
