#include "tools/sweep_runner.hpp"

#include <charconv>
#include <map>
#include <string_view>
#include <thread>

#include "scenarios/scenario_error.hpp"
#include "scenarios/sweep_configs.hpp"
#include "tools/command.hpp"
#include "tools/parallel_for.hpp"
#include "tools/step_setup.hpp"

namespace clustersim::tools {
namespace {

std::size_t parse_count(std::string_view text, std::string_view whole) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) {
    throw CliError("--shard: expected I/N with 1 <= I <= N, got \"" + std::string(whole) + "\"");
  }
  return value;
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) throw CliError("--shard: expected I/N, got \"" + std::string(text) + "\"");
  const Shard shard{.index = parse_count(text.substr(0, slash), text), .count = parse_count(text.substr(slash + 1), text)};
  if (shard.count == 0 || shard.index == 0 || shard.index > shard.count) {
    throw CliError("--shard: expected I/N with 1 <= I <= N, got \"" + std::string(text) + "\"");
  }
  return shard;
}

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

std::vector<SweepRow> run_configs(const scenarios::Scenario& base, const std::vector<scenarios::SweepConfig>& configs,
                                  const Shard& shard, unsigned jobs, Progress* progress) {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (shard.contains(i)) indices.push_back(i);
  }
  std::vector<SweepRow> rows(indices.size());
  parallel_for(indices.size(), jobs, [&](std::size_t k) {
    const std::size_t i = indices[k];
    const scenarios::SweepConfig& config = configs[i];
    SweepRow& row = rows[k];
    try {
      const scenarios::Scenario scenario = scenarios::apply_sweep_config(base, config);
      const models::Layout layout{.parallelism = scenario.parallelism, .training = scenario.training};
      const models::StepSimulation sim = models::simulate_step(load_step_inputs(scenario));
      row = row_from_report(i, layout, sim.report, scenario.cluster.gpu);
    } catch (const scenarios::ScenarioError& error) {
      // The layout, not the sweep, is wrong: it becomes a row that says why.
      row = {.index = i, .status = RowStatus::invalid,
             .reason = error.pointer().empty() ? error.rule() : error.pointer() + ": " + error.rule()};
    } catch (const models::LayoutError& error) {
      row = {.index = i, .status = RowStatus::invalid, .reason = error.what()};
    }
    row.name = config.name;
    if (progress) progress->advance();
  });
  return rows;
}

std::size_t search_simulations(const std::vector<models::LayoutCandidate>& candidates, const Shard& shard) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (shard.contains(i) && candidates[i].memory.fits) ++n;
  }
  return n;
}

std::vector<SweepRow> run_search(const models::StepInputs& base, const std::vector<models::LayoutCandidate>& candidates,
                                 const Shard& shard, unsigned jobs, Progress* progress) {
  std::vector<SweepRow> rows;
  std::vector<std::size_t> fitting;  // positions in rows of the layouts to simulate
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!shard.contains(i)) continue;
    const models::LayoutCandidate& c = candidates[i];
    if (c.memory.fits) {
      fitting.push_back(rows.size());
      rows.push_back({.index = i, .layout = c.layout});
    } else {
      rows.push_back(row_too_large(i, c.layout, c.memory, base.cluster.gpu));
    }
  }
  // Cost every layout (cheap), then simulate each distinct plan once.
  std::vector<std::string> keys(fitting.size());
  parallel_for(fitting.size(), jobs, [&](std::size_t k) {
    keys[k] = models::plan_key(models::plan_step(models::with_layout(base, rows[fitting[k]].layout)));
  });
  std::map<std::string_view, std::size_t> first_with_key;
  std::vector<std::size_t> representative(fitting.size());
  std::vector<std::size_t> distinct;
  std::vector<std::size_t> group_size(fitting.size(), 0);
  for (std::size_t k = 0; k < fitting.size(); ++k) {
    const auto [it, inserted] = first_with_key.emplace(keys[k], k);
    representative[k] = it->second;
    ++group_size[it->second];
    if (inserted) distinct.push_back(k);
  }
  std::vector<models::StepReport> reports(fitting.size());
  parallel_for(distinct.size(), jobs, [&](std::size_t d) {
    const std::size_t k = distinct[d];
    reports[k] = models::simulate_step(models::with_layout(base, rows[fitting[k]].layout)).report;
    if (progress) progress->advance(group_size[k]);
  });
  for (std::size_t k = 0; k < fitting.size(); ++k) {
    SweepRow& row = rows[fitting[k]];
    const models::LayoutCandidate& c = candidates[row.index];
    models::StepReport report = reports[representative[k]];
    // Same times as its representative; the memory is the layout's own.
    report.memory_per_stage = models::memory_per_stage(models::with_layout(base, c.layout));
    report.peak_memory_stage = c.memory.stage;
    report.fits_in_memory = c.memory.fits;
    row = row_from_report(row.index, c.layout, report, base.cluster.gpu);
  }
  return rows;
}

}  // namespace clustersim::tools
