#pragma once
/// How `clustersim failures` shows a Monte Carlo study of a training run: the run and its
/// checkpoint costs, goodput and time-to-train, interruptions and lost GPU-hours by cause, the
/// checkpoint interval sweep next to Young's and Daly's formulas, and the storage x interval table.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/run/interval_sweep.hpp"
#include "models/run/monte_carlo.hpp"
#include "scenarios/scenario.hpp"
#include "planning/run_setup.hpp"

namespace clustersim::tools {

/// One row of the storage comparison: a target (and the upload behind it) at one interval.
struct StorageOption {
  std::string target;        // "lustre", "local_nvme+nfs"
  double interval_s = 0.0;
  double stall_s = 0.0;
  double commit_after_stall_s = 0.0;
  double restart_s = 0.0;    // after a node loss
  models::RunStatistics stats{};
};

struct FailuresStudy {
  std::int64_t runs = 0;
  std::uint64_t seed = 0;
  planning::PreparedRun run{};
  models::RunStatistics stats{};
  models::IntervalSweep sweep{};
  std::vector<StorageOption> storage{};
};

nlohmann::ordered_json failures_report_json(const scenarios::Scenario& scenario, const FailuresStudy& study);
std::string failures_report_text(const scenarios::Scenario& scenario, const FailuresStudy& study);
/// `failures --report`: goodput against the checkpoint interval with Young's and Daly's optima,
/// lost GPU-hours by cause, the distribution of time-to-train (`wall_s`: each main run's, the
/// horizon for a run given up), then the text report.
std::string failures_report_html(const scenarios::Scenario& scenario, const FailuresStudy& study,
                                 const std::vector<double>& wall_s);

}  // namespace clustersim::tools
