#include "models/comm/flow_network.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/comm/cluster_topology.hpp"
#include "models/spec/layout_rules.hpp"
#include "topologies/link_failures.hpp"
#include "topologies/link_resources.hpp"
#include "topologies/topology.hpp"

namespace clustersim::models {

namespace {

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    std::string name = list.substr(begin, end - begin);
    const auto first = name.find_first_not_of(' ');
    const auto last = name.find_last_not_of(' ');
    if (first != std::string::npos) names.push_back(name.substr(first, last - first + 1));
    begin = end + 1;
  }
  return names;
}

}  // namespace

std::vector<topologies::LinkId> fail_cluster_links(topologies::Network& network, const ClusterSpec& cluster) {
  std::vector<topologies::LinkId> failed;
  if (cluster.failed_links > 0) {
    try {
      failed = topologies::fail_random_links(network, topologies::inter_node_tier(network),
                                             static_cast<std::size_t>(cluster.failed_links), cluster.failed_links_seed);
    } catch (const std::invalid_argument& e) {
      throw LayoutError(LayoutField::cluster_failed_links, e.what());
    }
  }
  const std::vector<std::string> names = split_names(cluster.failed_link_names);
  if (names.empty()) return failed;
  const std::vector<sim::Resource> all = topologies::link_resources(network);
  for (const std::string& name : names) {
    topologies::LinkId found = topologies::no_link;
    for (topologies::LinkId id = 0; id < all.size() && found == topologies::no_link; ++id)
      if (all[id].name == name) found = id;
    if (found == topologies::no_link)
      throw LayoutError(LayoutField::cluster_failed_link_names,
                        fmt::format("no link '{}' in the {} network (names are 'from->to' as `clustersim run --links` "
                                    "prints them, e.g. '{}')",
                                    name, topologies::to_string(network.kind()),
                                    all.empty() ? std::string("?") : all.back().name));
    network.fail_cable(found);
    failed.push_back(found);
  }
  return failed;
}

FlowNetwork::FlowNetwork(const ClusterSpec& cluster, const CommProfile& profile) : profile_(profile) {
  try {
    network_ = std::make_unique<topologies::Network>(topologies::build_network(topology_spec(cluster)));
  } catch (const std::invalid_argument& e) {
    throw LayoutError(LayoutField::cluster_topology, fmt::format("the flow fidelity needs the network built, and it cannot be: {}",
                                                      e.what()));
  }
  failed_ = fail_cluster_links(*network_, cluster);
  router_ = std::make_unique<topologies::Router>(*network_);
  // Each GPU's place on its server, in the order the topology created the server's GPUs (the
  // order their NICs take the rails in).
  std::map<std::int32_t, std::vector<std::pair<topologies::NodeId, std::int64_t>>> by_server;
  const std::size_t ranks = network_->gpus().size();
  for (std::size_t r = 0; r < ranks; ++r) {
    const topologies::NodeId gpu = network_->gpu_of_rank(r);
    by_server[network_->node(gpu).server].push_back({gpu, static_cast<std::int64_t>(r)});
  }
  place_of_rank_.assign(ranks, 0);
  for (auto& [server, gpus] : by_server) {
    std::sort(gpus.begin(), gpus.end());
    for (std::size_t place = 0; place < gpus.size(); ++place) {
      place_of_rank_[static_cast<std::size_t>(gpus[place].second)] = static_cast<std::int32_t>(place);
      rank_at_[{server, static_cast<std::int32_t>(place)}] = gpus[place].second;
    }
  }
}

std::vector<sim::Resource> FlowNetwork::resources() const {
  std::vector<sim::Resource> out = topologies::link_resources(*network_);
  for (topologies::LinkId id = 0; id < out.size(); ++id) {
    const topologies::Link& l = network_->link(id);
    double efficiency = profile_.network_efficiency;
    if (l.tier == topologies::LinkTier::nvlink) efficiency = profile_.nvlink_efficiency;
    if (l.tier == topologies::LinkTier::pcie) efficiency = l.efficiency();
    out[id].capacity_per_s = l.bytes_per_s * efficiency;
  }
  return out;
}

std::span<const topologies::LinkId> FlowNetwork::route(std::int64_t src_rank, std::int64_t dst_rank,
                                                       std::uint32_t flow) {
  try {
    return router_->route_ranks(static_cast<std::size_t>(src_rank), static_cast<std::size_t>(dst_rank), flow);
  } catch (const topologies::RoutingError& e) {
    throw LayoutError(LayoutField::cluster_failed_links, fmt::format("the failed links disconnect ranks {} and {}: {}", src_rank,
                                                          dst_rank, e.what()));
  }
}

std::int32_t FlowNetwork::server_of(std::int64_t rank) const {
  return network_->node(network_->gpu_of_rank(static_cast<std::size_t>(rank))).server;
}

std::optional<std::int64_t> FlowNetwork::pxn_relay(std::int64_t src_rank, std::int64_t dst_rank) const {
  const std::int32_t server = server_of(src_rank);
  const std::int32_t place = place_of_rank_.at(static_cast<std::size_t>(dst_rank));
  if (server == server_of(dst_rank) || place == place_of_rank_.at(static_cast<std::size_t>(src_rank))) return std::nullopt;
  const auto it = rank_at_.find({server, place});
  if (it == rank_at_.end()) return std::nullopt;
  return it->second;
}

}  // namespace clustersim::models
