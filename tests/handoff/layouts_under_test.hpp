#pragma once
// The layouts every framework export is tested on: the twelve of scenarios/seed/twelve-layouts.json
// and the top 20 of `clustersim sweep --search` on the default scenario.

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planning/search/layout_search.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_io.hpp"
#include "scenarios/sweep_configs.hpp"

namespace clustersim::handoff::layouts_under_test {

struct NamedLayout {
  std::string name;
  scenarios::Scenario scenario;  // model and cluster
  planning::Layout layout;
};

inline std::vector<NamedLayout> twelve_layouts() {
  const scenarios::Scenario base =
      scenarios::load_scenario_file(std::string(CLUSTERSIM_SOURCE_DIR) + "/scenarios/seed/twelve-layouts.json");
  std::vector<NamedLayout> out;
  for (const scenarios::SweepConfig& config : base.sweep.configs) {
    const scenarios::Scenario s = scenarios::apply_sweep_config(base, config);
    out.push_back({config.name, s, {s.parallelism, s.training}});
  }
  return out;
}

// What the clustersim binary prints on stdout for `arguments`, run in the source folder.
inline std::string clustersim_stdout(const std::string& arguments) {
  const std::string command = "cd '" + std::string(CLUSTERSIM_SOURCE_DIR) + "' && '" + CLUSTERSIM_BINARY + "' " + arguments;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) out.append(buffer, n);
  return out;
}

// The rows of `sweep --search --top 20 --json` (the default scenario), as layouts of it.
inline std::vector<NamedLayout> search_top20() {
  const auto j = nlohmann::json::parse(clustersim_stdout("sweep --search --top 20 --json"));
  const scenarios::Scenario base = scenarios::default_scenario();
  std::vector<NamedLayout> out;
  for (const auto& row : j.at("rows")) {
    if (row.at("status") != "simulated" || out.size() == 20) continue;
    scenarios::Scenario s = base;
    auto& p = s.parallelism;
    p.tp = row.at("tp");
    p.pp = row.at("pp");
    p.dp = row.at("dp");
    p.cp = row.at("cp");
    p.ep = row.at("ep");
    p.etp = row.at("etp");
    p.vp = row.at("vp");
    p.sp = row.at("sp");
    p.zero = row.at("zero");
    s.training.micro_batch = row.at("micro_batch");
    const std::string recompute = row.at("recompute");
    s.training.recompute = recompute == "none" ? models::Recompute::none
                           : recompute == "full" ? models::Recompute::full
                                                 : models::Recompute::selective;
    s.training.schedule = row.at("schedule") == "interleaved" ? models::Schedule::interleaved : models::Schedule::one_f_one_b;
    out.push_back({row.at("name"), s, {s.parallelism, s.training}});
  }
  return out;
}

}  // namespace clustersim::handoff::layouts_under_test
