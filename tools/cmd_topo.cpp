// `clustersim topo`: the scenario's network as a graph: switches, links and cables per tier,
// bisection bandwidth by max-flow next to the closed form, diameter and mean hop count; with
// --fail-links, the same after failing random cables; with --dot, a Graphviz drawing.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/comm/cluster_topology.hpp"
#include "models/comm/flow_network.hpp"
#include "models/step/step_model.hpp"
#include "scenarios/layout_pointer.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"
#include "topologies/analysis.hpp"
#include "topologies/link_failures.hpp"
#include "topologies/topology.hpp"

namespace clustersim::tools {

namespace {

using topologies::LinkTier;
using topologies::NodeKind;

std::string dot_graph(const topologies::Network& network) {
  std::string out = "graph clustersim {\n  node [shape=box, fontsize=9];\n";
  for (topologies::NodeId id = 0; id < network.node_count(); ++id) {
    const auto& node = network.node(id);
    const char* shape = node.kind == NodeKind::gpu ? "ellipse" : node.kind == NodeKind::nic ? "point" : "box";
    out += fmt::format("  n{} [label=\"{}\", shape={}];\n", id, node.name, shape);
  }
  for (topologies::LinkId id = 0; id < network.link_count(); ++id) {
    const auto& link = network.link(id);
    // One edge per cable: skip the reverse direction.
    if (link.reverse != topologies::no_link && link.reverse < id) continue;
    out += fmt::format("  n{} -- n{} [tooltip=\"{}\"{}];\n", link.from, link.to, topologies::to_string(link.tier),
                       network.link_failed(id) ? ", color=red, style=dashed" : "");
  }
  return out + "}\n";
}

nlohmann::ordered_json counts_json(const topologies::NetworkCounts& counts) {
  nlohmann::ordered_json nodes, cables;
  for (std::size_t k = 0; k < topologies::node_kind_count; ++k)
    if (counts.nodes[k] > 0) nodes[std::string(topologies::to_string(static_cast<NodeKind>(k)))] = counts.nodes[k];
  for (std::size_t t = 0; t < topologies::link_tier_count; ++t)
    if (counts.cables[t] > 0) cables[std::string(topologies::to_string(static_cast<LinkTier>(t)))] = counts.cables[t];
  return {{"nodes", nodes}, {"switches", counts.switches}, {"cables", cables}};
}

}  // namespace

int cmd_topo(std::span<const std::string> args, std::ostream& out) {
  ScenarioArgs scenario_args;
  CommandOptions options;
  scenario_args.add_to(options);
  std::string dot_path;
  std::size_t fail_links = 0;
  std::uint64_t seed = 1;
  constexpr IntRange fail_links_range{.min = 0, .max = 1000000};
  constexpr IntRange seed_range{};
  options.visible.add_options()
      ("dot", path_option("dot", &dot_path)->value_name("FILE"), "write the network as a Graphviz DOT file")
      ("fail-links", integer_option("fail-links", &fail_links, fail_links_range)->value_name("N"),
       with_rule("fail N random inter-node cables first", fail_links_range.rule()).c_str())
      ("seed", integer_option("seed", &seed, seed_range)->value_name("S"),
       with_rule("seed of the failed cables' choice (default 1)", seed_range.rule()).c_str());
  const CommandHelp help{
      .name = "topo",
      .usage = "[SCENARIO] [--set path=value ...] [--fail-links N] [--seed S] [--dot FILE]",
      .description = "Build the scenario's network and describe it: switches and cables per tier, bisection\n"
                     "bandwidth by max-flow on the graph next to the closed form, diameter and mean hops.",
      .arguments = ScenarioArgs::argument_help,
  };
  if (!parse_command_line(args, help, options, out)) return 0;

  const scenarios::Scenario scenario = scenario_args.load();
  topologies::TopologySpec spec;
  topologies::Network network;
  try {
    spec = models::topology_spec(scenario.cluster);
    network = topologies::build_network(spec);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("{}: {}", scenario.name, e.what()));
  }
  const double closed_form = topologies::closed_form_bisection_bytes_per_s(spec);
  const double intact = topologies::bisection_bytes_per_s(network);
  std::vector<topologies::LinkId> failed;
  if (fail_links > 0) {
    try {
      failed = topologies::fail_random_links(network, topologies::inter_node_tier(network), fail_links, seed);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("--fail-links: {}", e.what()));
    }
  } else {
    // The scenario's own failures (cluster.failed_links, cluster.failed_link_names), as `run` sees them.
    try {
      failed = models::fail_cluster_links(network, scenario.cluster);
    } catch (const models::LayoutError& e) {
      throw std::runtime_error(
          fmt::format("{}: {}: {}", scenario.name, scenarios::json_pointer(e.field()), e.rule()));
    }
  }
  const double bisection = failed.empty() ? intact : topologies::bisection_bytes_per_s(network);
  const topologies::HopStats hops = topologies::hop_stats(network, {.seed = seed});
  const topologies::NetworkCounts counts = topologies::count_elements(network);
  if (!dot_path.empty()) write_file_atomically(dot_path, dot_graph(network));

  const auto gpus = static_cast<double>(network.gpus().size());
  if (options.output.json) {
    nlohmann::ordered_json j;
    j["scenario"] = scenario.name;
    j["topology"] = std::string(topologies::to_string(network.kind()));
    j["gpus"] = network.gpus().size();
    j["counts"] = counts_json(counts);
    j["bisection_bytes_per_s"] = bisection;
    j["bisection_intact_bytes_per_s"] = intact;
    j["closed_form_bisection_bytes_per_s"] = closed_form;
    j["failed_links"] = failed.size();
    j["diameter_hops"] = hops.diameter;
    j["mean_hops"] = hops.mean_hops;
    j["hops_sampled"] = hops.sampled;
    out << j.dump(2) << '\n';
    return 0;
  }
  out << fmt::format("{}: {} network of {} GPUs ({})\n", scenario.name, topologies::to_string(network.kind()),
                     network.gpus().size(), models::node_layout_text(scenario.cluster));
  out << "\n  element     count\n";
  for (std::size_t k = 0; k < topologies::node_kind_count; ++k)
    if (counts.nodes[k] > 0)
      out << fmt::format("  {:<10} {:>6}\n", topologies::to_string(static_cast<NodeKind>(k)), counts.nodes[k]);
  out << "\n  cables by tier\n";
  for (std::size_t t = 0; t < topologies::link_tier_count; ++t)
    if (counts.cables[t] > 0)
      out << fmt::format("  {:<10} {:>6}\n", topologies::to_string(static_cast<LinkTier>(t)), counts.cables[t]);
  out << fmt::format("\n  bisection (max-flow)   {:9.2f} TB/s  ({:.1f} GB/s per GPU)\n", intact / 1e12,
                     intact / gpus * 2.0 / 1e9);
  out << fmt::format("  bisection (closed form){:9.2f} TB/s\n", closed_form / 1e12);
  if (!failed.empty()) {
    std::string names;
    for (const topologies::LinkId id : failed)
      names += fmt::format("{}{}->{}", names.empty() ? "" : ", ", network.node(network.link(id).from).name,
                           network.node(network.link(id).to).name);
    out << fmt::format("  with {} failed cable(s) ({}): {:.2f} TB/s, {:.1f} % of intact\n", failed.size(), names,
                       bisection / 1e12, 100.0 * bisection / intact);
  }
  out << fmt::format("  diameter {} hops, mean {:.2f} hops between GPUs{}\n", hops.diameter, hops.mean_hops,
                     hops.sampled ? fmt::format(" (sampled from {} sources)", hops.sources) : "");
  return 0;
}

}  // namespace clustersim::tools
