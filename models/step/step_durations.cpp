#include "models/step/step_durations.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>

#include "sim/time.hpp"

namespace clustersim::models {

namespace {

// The engine rounds every event up by under a nanosecond; a margin of 1 % covers any graph.
constexpr double kLimitS = 0.99 * sim::Time::max_seconds;

struct ChunkDuration {
  double ChunkCosts::*member;
  std::string_view what;  // "the forward pass", completed by " of stage s"
  bool compute;
  bool per_micro_batch;
};

constexpr std::array kChunkDurations{
    ChunkDuration{&ChunkCosts::forward_s, "the forward pass", true, true},
    ChunkDuration{&ChunkCosts::backward_s, "the backward pass", true, true},
    ChunkDuration{&ChunkCosts::tp_forward_s, "the tensor-parallel communication of the forward pass", false, true},
    ChunkDuration{&ChunkCosts::tp_backward_s, "the tensor-parallel communication of the backward pass", false, true},
    ChunkDuration{&ChunkCosts::tp_hidden_forward_s, "the overlapped tensor-parallel communication of the forward pass",
                  false, true},
    ChunkDuration{&ChunkCosts::tp_hidden_backward_s,
                  "the overlapped tensor-parallel communication of the backward pass", false, true},
    ChunkDuration{&ChunkCosts::dp_before_forward_s, "the ZeRO-3 parameter gather before the forward pass", false, true},
    ChunkDuration{&ChunkCosts::dp_before_backward_s, "the ZeRO-3 parameter gather before the backward pass", false,
                  true},
    ChunkDuration{&ChunkCosts::dp_beside_forward_s, "the ZeRO-3 traffic beside the forward pass", false, true},
    ChunkDuration{&ChunkCosts::dp_beside_backward_s, "the ZeRO-3 traffic beside the backward pass", false, true},
    ChunkDuration{&ChunkCosts::dp_after_backward_s, "the ZeRO-3 gradient reduction after the backward pass", false,
                  true},
    ChunkDuration{&ChunkCosts::dp_tail_backward_s, "the last ZeRO-3 gradient reduction of the backward pass", false,
                  true},
    ChunkDuration{&ChunkCosts::cp_forward_s, "the context-parallel communication of the forward pass", false, true},
    ChunkDuration{&ChunkCosts::cp_backward_s, "the context-parallel communication of the backward pass", false, true},
    ChunkDuration{&ChunkCosts::cp_before_forward_s, "the context-parallel exchange before the forward's attention",
                  false, true},
    ChunkDuration{&ChunkCosts::cp_before_backward_s, "the context-parallel exchange before the backward's attention",
                  false, true},
    ChunkDuration{&ChunkCosts::cp_after_forward_s, "the context-parallel exchange after the forward's attention",
                  false, true},
    ChunkDuration{&ChunkCosts::cp_after_backward_s, "the context-parallel exchange after the backward's attention",
                  false, true},
    ChunkDuration{&ChunkCosts::grad_reduce_s, "the data-parallel gradient reduction", false, false},
    ChunkDuration{&ChunkCosts::grad_bucket_interference_s,
                  "the slow-down of the last backward pass by the gradient buckets reduced beside it", true, false},
    ChunkDuration{&ChunkCosts::grad_bucket_interference_last_s,
                  "the slow-down of the stage's last pass by the gradient buckets reduced beside it", true, false},
    ChunkDuration{&ChunkCosts::param_gather_s, "the distributed optimizer's parameter gather", false, false},
};

[[noreturn]] void refuse(const std::string& quantity, double seconds, const StepInputs& in, bool compute,
                         bool communication) {
  throw StepTimeError(fmt::format(
      "step time out of range: {} takes {:.4g} s, more than simulated time holds (2^63 ns, 292 years); it "
      "follows from {}",
      quantity, seconds, step_duration_inputs(in, compute, communication)));
}

// `quantity()` names it; only called for the message, as a step checks hundreds of durations.
template <class Quantity>
void check_one(double seconds, Quantity quantity, const StepInputs& in, bool compute) {
  if (!(seconds >= 0.0 && seconds < kLimitS)) [[unlikely]] refuse(quantity(), seconds, in, compute, !compute);
}

}  // namespace

std::string step_duration_inputs(const StepInputs& in, bool compute, bool communication) {
  const GpuSpec& gpu = in.cluster.gpu;
  const TrainingSpec& t = in.training;
  std::string text;
  const auto add = [&text](std::string item) { text.append(text.empty() ? "" : ", ").append(item); };
  if (compute) {
    if (t.precision == Precision::nvfp4)
      add(fmt::format("cluster.gpu.fp4_tflops = {:g} TFLOP/s", gpu.fp4_flops_per_s / 1e12));
    else if (t.precision == Precision::fp8)
      add(fmt::format("cluster.gpu.fp8_tflops = {:g} TFLOP/s", gpu.fp8_flops_per_s / 1e12));
    else
      add(fmt::format("cluster.gpu.bf16_tflops = {:g} TFLOP/s", gpu.bf16_flops_per_s / 1e12));
    add(fmt::format("cluster.gpu.hbm_tb_per_s = {:g} TB/s", gpu.hbm_bytes_per_s / 1e12));
  }
  if (communication) {
    add(fmt::format("cluster.nic_gbit_per_s = {:g} Gbit/s", in.cluster.nic_bytes_per_s * 8.0 / 1e9));
    add(fmt::format("cluster.nics_per_node = {}", in.cluster.nics_per_node));
    add(fmt::format("cluster.gpu.nvlink_gb_per_s = {:g} GB/s", gpu.nvlink_bytes_per_s / 1e9));
  }
  add(fmt::format("model.layers = {}, model.hidden = {}", in.model.layers, in.model.hidden));
  add(fmt::format("training.seq_len = {}, training.micro_batch = {}", t.seq_len, t.micro_batch));
  if (compute && communication) {
    add(fmt::format("training.global_batch = {} ({} micro-batches a step)", t.global_batch,
                    micro_batches_per_step(in.parallelism, t)));
    add(fmt::format("parallelism.pp = {}", in.parallelism.pp));
  }
  return text;
}

void check_step_durations(const StepPlan& plan, const StepInputs& in) {
  const auto m = static_cast<double>(plan.micro_batches);
  const bool several_chunks = in.parallelism.vp > 1;
  double step_work_s = 0.0;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const StagePlan& stage = plan.stages[s];
    for (std::size_t c = 0; c < stage.chunks.size(); ++c) {
      const ChunkCosts& chunk = stage.chunks[c];
      for (const ChunkDuration& d : kChunkDurations) {
        const double seconds = chunk.*d.member;
        check_one(
            seconds,
            [&] {
              return fmt::format("{} of stage {}{}{}", d.what, s, several_chunks ? fmt::format(", chunk {}", c) : "",
                                 d.per_micro_batch ? " (one micro-batch)" : "");
            },
            in, d.compute);
        step_work_s += d.per_micro_batch ? m * seconds : seconds;
      }
    }
    const auto named = [s](std::string_view what) { return [s, what] { return fmt::format(fmt::runtime(what), s); }; };
    check_one(stage.send_forward_s, named("the activations' send of stage {} (one micro-batch)"), in, false);
    check_one(stage.send_backward_s, named("the gradients' send of stage {} (one micro-batch)"), in, false);
    check_one(stage.optimizer_s, named("the optimizer step of stage {}"), in, true);
    check_one(stage.deferred_wgrad_s, named("the deferred output-layer weight gradients of stage {}"), in, true);
    step_work_s += m * (stage.send_forward_s + stage.send_backward_s) + stage.optimizer_s + stage.deferred_wgrad_s;
  }
  if (!(step_work_s < kLimitS)) refuse("the step's work in all (every pass, transfer and optimizer step of every stage)",
                                       step_work_s, in, true, true);
}

}  // namespace clustersim::models
