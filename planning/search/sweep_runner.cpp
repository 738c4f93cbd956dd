#include "planning/search/sweep_runner.hpp"

#include <array>
#include <bit>
#include <map>
#include <mutex>
#include <queue>
#include <string_view>
#include <thread>


#include "calibration/step_inputs.hpp"
#include "planning/parallel_for.hpp"
#include "planning/search/step_bound.hpp"
#include "scenarios/layout_pointer.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/sweep_configs.hpp"

namespace clustersim::planning {
namespace {

/// The `keep` best slow ends of the bands simulated so far, each counted once per layout it stands
/// for. A plan whose lower bound, times its slow factor, exceeds the keep-th of them provably ranks
/// after `keep` rows: it can be set aside unsimulated without changing the first `keep` rows.
/// Shared by the simulating threads.
class BestTimes {
 public:
  explicit BestTimes(std::size_t keep) : keep_(keep) {}

  void add(double step_time_s, std::size_t layouts) {
    if (keep_ == 0) return;
    const std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < layouts; ++i) {
      if (times_.size() < keep_) {
        times_.push(step_time_s);
      } else if (step_time_s < times_.top()) {
        times_.pop();
        times_.push(step_time_s);
      } else {
        break;
      }
    }
  }

  /// True when a step of at least `bound_s` must rank after `keep` simulated rows. The margin
  /// covers the rounding of the bound's sum; ties are not excluded, since they rank by index.
  bool excludes(double bound_s) const {
    if (keep_ == 0) return false;
    const std::lock_guard lock(mutex_);
    return times_.size() == keep_ && bound_excludes(bound_s, times_.top());
  }

 private:
  const std::size_t keep_;
  mutable std::mutex mutex_;
  std::priority_queue<double> times_;  // the largest of the kept times on top
};

}  // namespace

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

std::vector<SweepRow> run_configs(const scenarios::Scenario& base, const std::vector<scenarios::SweepConfig>& configs,
                                  const PredictionBands& bands, const Shard& shard, unsigned jobs,
                                  const ProgressFn& progress) {
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
      const planning::Layout layout{.parallelism = scenario.parallelism, .training = scenario.training};
      const models::StepSimulation sim = models::simulate_step(calibration::step_inputs(scenario));
      row = row_from_report(i, layout, sim.report, scenario.cluster.gpu);
      row.band = bands.band(row.step_time_s, layout);
    } catch (const scenarios::ScenarioError& error) {
      // The layout, not the sweep, is wrong: it becomes a row that says why.
      row = {.index = i, .status = RowStatus::invalid,
             .reason = error.pointer().empty() ? error.rule() : error.pointer() + ": " + error.rule()};
    } catch (const models::LayoutError& error) {
      row = {.index = i, .status = RowStatus::invalid,
             .reason = scenarios::json_pointer(error.field()) + ": " + error.rule()};
    }
    row.name = config.name;
    if (progress) progress(1);
  });
  return rows;
}

std::size_t search_simulations(const std::vector<planning::LayoutCandidate>& candidates, const Shard& shard) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (shard.contains(i) && candidates[i].memory.fits) ++n;
  }
  return n;
}

std::vector<SweepRow> run_search(const models::StepInputs& base, const std::vector<planning::LayoutCandidate>& candidates,
                                 const PredictionBands& bands, const Shard& shard, unsigned jobs,
                                 const ProgressFn& progress, std::size_t keep_top) {
  std::vector<SweepRow> rows;
  std::vector<std::size_t> fitting;  // positions in rows of the layouts to simulate
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!shard.contains(i)) continue;
    const planning::LayoutCandidate& c = candidates[i];
    if (c.memory.fits) {
      fitting.push_back(rows.size());
      rows.push_back({.index = i, .layout = c.layout});
    } else {
      rows.push_back(row_too_large(i, c.layout, c.memory, base.cluster.gpu));
    }
  }
  // Under the flow fidelity the bound counts compute alone: its traffic runs at its own pace.
  // Cost every layout (cheap), then simulate each distinct plan once. Layouts of one key share
  // their times; the key holds the slow factor too, so that they share their bands' ends.
  std::vector<std::string> keys(fitting.size());
  std::vector<double> bounds(fitting.size());
  std::vector<double> slow_factors(fitting.size());
  parallel_for(fitting.size(), jobs, [&](std::size_t k) {
    const planning::Layout& layout = rows[fitting[k]].layout;
    const models::StepPlan plan = models::plan_step(base, layout.parallelism, layout.training);
    slow_factors[k] = bands.slow_factor(layout);
    keys[k] = planning::plan_key(plan);
    const auto factor_bits = std::bit_cast<std::array<char, sizeof(double)>>(slow_factors[k]);
    keys[k].append(factor_bits.begin(), factor_bits.end());
    bounds[k] = keep_top > 0 ? planning::step_time_lower_bound_s(plan, base.fidelity) : 0.0;
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
  // Most promising first, so that the best times, and with them the cut, are known early.
  if (keep_top > 0) {
    std::stable_sort(distinct.begin(), distinct.end(), [&](std::size_t a, std::size_t b) {
      return bounds[a] * slow_factors[a] < bounds[b] * slow_factors[b];
    });
  }
  BestTimes best(keep_top);
  std::vector<models::StepReport> reports(fitting.size());
  std::vector<char> pruned(fitting.size(), 0);
  parallel_for(distinct.size(), jobs, [&](std::size_t d) {
    const std::size_t k = distinct[d];
    if (best.excludes(bounds[k] * slow_factors[k])) {
      pruned[k] = 1;
    } else {
      reports[k] = models::step_report(planning::with_layout(base, rows[fitting[k]].layout));
      check_bound_holds(bounds[k], reports[k].times.step_time_s, layout_label(rows[fitting[k]].layout));
      best.add(reports[k].times.step_time_s * slow_factors[k], group_size[k]);
    }
    if (progress) progress(group_size[k]);
  });
  for (std::size_t k = 0; k < fitting.size(); ++k) {
    SweepRow& row = rows[fitting[k]];
    const planning::LayoutCandidate& c = candidates[row.index];
    if (pruned[representative[k]]) {
      row = row_pruned(row.index, c.layout, c.memory, bounds[representative[k]], base.cluster.gpu);
      // Shown nowhere but in the rank: the slow end of the bound is all it needs.
      row.band.slow_s = row.step_time_s * slow_factors[k];
      continue;
    }
    models::StepReport report = reports[representative[k]];
    // Same times as its representative; the memory is the layout's own.
    report.memory_per_stage = planning::memory_per_stage(planning::with_layout(base, c.layout));
    report.peak_memory_stage = c.memory.stage;
    report.fits_in_memory = c.memory.fits;
    row = row_from_report(row.index, c.layout, report, base.cluster.gpu);
    row.band = bands.band(row.step_time_s, c.layout);
  }
  return rows;
}

}  // namespace clustersim::planning
