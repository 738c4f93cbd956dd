#include "models/run/run_inputs.hpp"

#include <cmath>

#include <fmt/format.h>

namespace clustersim::models {

std::int64_t training_steps(const TrainingSpec& training) {
  const double per_step = static_cast<double>(training.global_batch * training.seq_len);
  return static_cast<std::int64_t>(std::ceil(training.tokens / per_step));
}

CheckpointCosts run_checkpoint_costs(const RunSetup& setup) {
  return checkpoint_costs(setup.model, job_shape(setup.cluster, setup.parallelism), setup.checkpoint,
                          setup.storage);
}

RunInputs make_run_inputs(const RunSetup& setup) {
  const JobShape job = job_shape(setup.cluster, setup.parallelism);
  const CheckpointSpec& ck = setup.checkpoint;
  const FailureSpec& f = setup.failures;
  if (!(setup.step_time_s > 0)) {
    throw RunSetupError("training", fmt::format("step time must be positive, got {} s", setup.step_time_s));
  }
  const std::int64_t steps = training_steps(setup.training);
  RunInputs in;
  in.work_s = static_cast<double>(steps) * setup.step_time_s;

  if (ck.interval_steps > 0) {
    if (ck.interval_steps > steps) {
      throw RunSetupError("checkpoint.interval_steps",
                          fmt::format("{} steps is longer than the whole run ({} steps)", ck.interval_steps, steps));
    }
    in.interval_work_s = static_cast<double>(ck.interval_steps) * setup.step_time_s;
  } else {
    if (ck.interval_s > in.work_s) {
      throw RunSetupError("checkpoint.interval_minutes",
                          fmt::format("{:.6g} min is longer than the failure-free run ({:.6g} min)",
                                      ck.interval_s / 60.0, in.work_s / 60.0));
    }
    // A checkpoint is taken at a step boundary: the interval is a whole number of steps.
    in.interval_work_s = std::max(1.0, std::round(ck.interval_s / setup.step_time_s)) * setup.step_time_s;
  }

  const CheckpointCosts costs = run_checkpoint_costs(setup);
  if (!std::isfinite(costs.load_after_node_loss_s)) {
    throw RunSetupError("checkpoint.second_target",
                        "a checkpoint only on local_nvme is lost with its node; add a second target");
  }
  in.stall_s = costs.stall_s;
  in.commit_after_stall_s = costs.commit_after_stall_s;
  in.load_s = costs.load_s;
  in.load_after_node_loss_s = costs.load_after_node_loss_s;
  in.detect_s = ck.detect_s;
  in.restart_fixed_s = costs.restart_fixed_s;

  in.nodes = job.nodes();
  in.gpus = job.num_gpus;
  in.gpus_per_node = job.gpus_per_node;
  in.replicas = std::max<std::int64_t>(1, setup.parallelism.dp);
  in.spare_nodes = static_cast<std::int64_t>(std::ceil(ck.spare_fraction * static_cast<double>(in.nodes)));
  in.no_spare = ck.no_spare;
  in.repair_s = ck.repair_s;

  const auto index = [](FailureKind kind) { return static_cast<std::size_t>(kind); };
  in.per_node_rate_s[index(FailureKind::gpu)] = f.gpu.rate();
  in.per_node_rate_s[index(FailureKind::host)] = f.host.rate();
  in.per_node_rate_s[index(FailureKind::nic)] = f.nic.rate();
  in.per_node_rate_s[index(FailureKind::link)] = f.link.rate();
  in.per_node_rate_s[index(FailureKind::network_switch)] = f.network_switch.rate();
  in.per_node_rate_s[index(FailureKind::software)] = f.software.rate();
  in.per_node_rate_s[index(FailureKind::spot)] = setup.spot_per_node_s;
  in.rack_rate_s = f.rack_per_rack_s;
  in.nodes_per_rack = std::max<std::int64_t>(1, f.nodes_per_rack);
  in.planned_rate_s = f.planned_per_s;
  in.link_reroute_fraction = f.link_reroute_fraction;
  const double degraded = setup.degraded_step_time_s > 0 ? setup.degraded_step_time_s : setup.step_time_s;
  in.degraded_link_factor = std::min(1.0, setup.step_time_s / degraded);
  in.link_repair_s = f.link_repair_s;
  in.straggler_rate_s = f.straggler_per_node_s;
  in.straggler_factor = 1.0 / (1.0 + f.straggler_slowdown);
  in.straggler_duration_s = f.straggler_duration_s;
  in.thermal_factor = 1.0 / (1.0 + f.thermal_slowdown);
  return in;
}

}  // namespace clustersim::models
