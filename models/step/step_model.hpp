#pragma once
/// One training step from specs to figures: cost the layout (transformer_costs, compute_time,
/// collectives), lower it to a task graph (step_builder), run it on the engine and measure it
/// (step_metrics), and account memory per GPU (memory).
/// Communication: `analytic` (one alpha-beta delay per collective, no contention between groups)
/// or `flow` (flow_step.hpp: the traffic of every group as flows on the cluster network).
/// Limitations: dense transformers only (no MoE / expert parallelism); one pipeline's compute
/// stands for all DP replicas.

#include <cstdint>
#include <string>
#include <vector>

#include "models/spec/cluster_spec.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/comm/collectives.hpp"
#include "models/compute/compute_profile.hpp"
#include "models/compute/host_launch.hpp"
#include "models/compute/memory.hpp"
#include "models/step/step_builder.hpp"
#include "models/step/step_metrics.hpp"
#include "models/spec/transformer_spec.hpp"
#include "sim/timeline.hpp"

namespace clustersim::models {

/// How communication is simulated (DESIGN.md, "Two communication fidelities").
enum class CommFidelity { analytic, flow };

struct StepInputs {
  TransformerSpec model;
  ParallelismSpec parallelism;
  TrainingSpec training;
  ClusterSpec cluster;
  ComputeProfile compute;
  CommProfile comm;
  CommFidelity fidelity = CommFidelity::analytic;
  // The CPU's cost of issuing kernels, by issuing style (host_launch.hpp).
  HostIssueCosts host_issue = builtin_host_issue_costs();
  // A step that is only measured (step_report) takes its figures from its steady state simulated
  // once where that is proven exact (periodic_step.hpp); false simulates every pass: the same
  // figures, bit for bit, more slowly.
  bool steady_state_shortcut = true;
};

/// Throws LayoutError for the first rule of layout_rules.hpp the inputs break.
void check_layout(const StepInputs& in);

StepPlan plan_step(const StepInputs& in);
/// The same for another layout of the same model and cluster (`in`'s parallelism and training
/// ignored): a search plans many layouts without copying the inputs' profiles for each.
StepPlan plan_step(const StepInputs& in, const ParallelismSpec& parallelism, const TrainingSpec& training);

struct StepReport {
  StepTimes times;
  std::int64_t micro_batches = 0;
  std::vector<std::int64_t> layers_per_chunk;  // model order: chunk c of stage s is c x pp + s
  double tokens_per_s = 0.0;
  double tokens_per_s_per_gpu = 0.0;
  double model_tflops_per_gpu = 0.0;
  double mfu = 0.0;
  double hfu = 0.0;
  std::vector<MemoryBreakdown> memory_per_stage;
  std::int64_t peak_memory_stage = 0;
  bool fits_in_memory = false;
  std::vector<std::string> notes;  // what a user should know about this layout (slow TP, ...)
  std::vector<std::string> failed_links;  // flow fidelity: the failed cables, one direction each
};

struct StepSimulation {
  StepGraph step;
  sim::Timeline timeline;
  StepReport report;
};

StepSimulation simulate_step(const StepInputs& in);
/// simulate_step's report alone: the same figures, bit for bit, from a graph built without the
/// trace's records and freed with its timeline (searches and plans simulate thousands of steps
/// and keep only their reports).
StepReport step_report(const StepInputs& in);

}  // namespace clustersim::models
