#pragma once
/// From specs to the inputs of one Monte Carlo run (run_simulation.hpp): the run's failure-free
/// length from the token budget and the step time, checkpoint and restart costs
/// (checkpoint_model.hpp), failure and slowdown rates (failure_model.hpp), and the spare pool.
/// Units: seconds, rates per second.
/// Limitations: the step time is an input (from the step model); so is the step time with one
/// failed link, which the caller gets from the network model.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "models/run/checkpoint_model.hpp"
#include "models/spec/cluster_spec.hpp"
#include "models/run/failure_model.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/run/run_simulation.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

/// A run the specs cannot describe: names the field ("checkpoint.interval_minutes") and the rule.
class RunSetupError : public std::invalid_argument {
 public:
  RunSetupError(std::string field, const std::string& rule)
      : std::invalid_argument(field + ": " + rule), field_(std::move(field)), rule_(rule) {}
  const std::string& field() const { return field_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string field_;
  std::string rule_;
};

struct RunSetup {
  TransformerSpec model{};
  ClusterSpec cluster{};
  ParallelismSpec parallelism{};
  TrainingSpec training{};
  FailureSpec failures{};
  CheckpointSpec checkpoint{};
  StorageSpec storage{};
  double step_time_s = 0.0;
  double degraded_step_time_s = 0.0;  // with one scale-out link down; 0: same as step_time_s
  double spot_per_node_s = 0.0;       // spot preemptions per node per second (renting spot)
};

/// Optimizer steps to train on training.tokens: ceil(tokens / (global_batch x seq_len)).
std::int64_t training_steps(const TrainingSpec& training);

/// Throws RunSetupError for an impossible run (interval longer than the run, a checkpoint that
/// cannot be restored after a node loss, a job of zero nodes).
RunInputs make_run_inputs(const RunSetup& setup);

/// The checkpoint costs the run inputs were made from (for reports).
CheckpointCosts run_checkpoint_costs(const RunSetup& setup);

}  // namespace clustersim::models
