#include "topologies/node_domain.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace clustersim::topologies {

namespace {
std::int64_t nic_of_gpu(std::int64_t gpu, const NodeSpec& spec) {
  return gpu * spec.nics_per_node / spec.gpus_per_node;
}
}  // namespace

void validate_node(const NodeSpec& spec, const char* who, bool needs_nics) {
  const std::string prefix = std::string(who) + ": node: ";
  if (spec.gpus_per_node < 1) throw std::invalid_argument(prefix + "gpus_per_node must be >= 1");
  if (spec.nics_per_node < (needs_nics ? 1 : 0) || spec.nics_per_node > spec.gpus_per_node) {
    throw std::invalid_argument(prefix + "nics_per_node = " + std::to_string(spec.nics_per_node) +
                                " must be in [" + (needs_nics ? "1" : "0") + ", gpus_per_node = " +
                                std::to_string(spec.gpus_per_node) + "]");
  }
}

ServerIds add_server(Network& network, const NodeSpec& spec, std::int32_t server, std::int32_t group) {
  const std::string prefix = "n" + std::to_string(server) + ".";
  ServerIds ids;
  ids.first_gpu = static_cast<NodeId>(network.node_count());
  for (std::int64_t g = 0; g < spec.gpus_per_node; ++g) {
    network.add_node(NodeKind::gpu, prefix + "gpu" + std::to_string(g), server, group);
  }
  ids.nvswitch = ids.first_gpu;
  if (spec.gpus_per_node > 1) {
    ids.nvswitch = network.add_node(NodeKind::nvswitch, prefix + "nvswitch", server, group);
    for (std::int64_t g = 0; g < spec.gpus_per_node; ++g) {
      network.add_cable(ids.first_gpu + static_cast<NodeId>(g), ids.nvswitch, spec.nvlink, LinkTier::nvlink);
    }
  }
  ids.first_nic = static_cast<NodeId>(network.node_count());
  for (std::int64_t n = 0; n < spec.nics_per_node; ++n) {
    network.add_node(NodeKind::nic, prefix + "nic" + std::to_string(n), server, group);
  }
  if (spec.nics_per_node > 0) {
    for (std::int64_t g = 0; g < spec.gpus_per_node; ++g) {
      network.add_cable(ids.first_gpu + static_cast<NodeId>(g),
                        ids.first_nic + static_cast<NodeId>(nic_of_gpu(g, spec)), spec.pcie,
                        LinkTier::pcie);
    }
  }
  return ids;
}

Network build_node(const NodeSpec& spec) {
  validate_node(spec, "node", false);
  Network network(TopologyKind::single_node);
  add_server(network, spec, 0);
  network.finalize();
  return network;
}

double server_injection_bytes_per_s(const NodeSpec& spec) {
  double total = 0.0;
  for (std::int64_t n = 0; n < spec.nics_per_node; ++n) {
    std::int64_t gpus = 0;
    for (std::int64_t g = 0; g < spec.gpus_per_node; ++g) gpus += nic_of_gpu(g, spec) == n ? 1 : 0;
    total += std::min(spec.nic.resolved_bytes_per_s(),
                      static_cast<double>(gpus) * spec.pcie.resolved_bytes_per_s());
  }
  return total;
}

double closed_form_bisection_bytes_per_s(const NodeSpec& spec) {
  return static_cast<double>(spec.gpus_per_node / 2) * spec.nvlink.resolved_bytes_per_s();
}

}  // namespace clustersim::topologies
