#include "scenarios/measured_step.hpp"

#include <fmt/format.h>

#include "models/compute/flops.hpp"

namespace clustersim::scenarios {

std::string_view basis_name(MeasuredBasis basis) {
  switch (basis) {
    case MeasuredBasis::step_time: return "step_time";
    case MeasuredBasis::tokens_per_s: return "tokens_per_s";
    case MeasuredBasis::tflops: return "tflops";
    case MeasuredBasis::mfu: return "mfu";
  }
  return "?";
}

std::vector<MeasuredStep> measured_steps(const PublishedFigures& figures, const Scenario& s,
                                         FlopCount tflops_count) {
  std::vector<MeasuredStep> out;
  const auto gpus = static_cast<double>(s.cluster.num_gpus);
  const double tokens = static_cast<double>(s.training.global_batch * s.training.seq_len);
  const double model_flops = models::model_flops_per_step(s.model, s.training);
  if (figures.step_time_s) {
    out.push_back({*figures.step_time_s, MeasuredBasis::step_time, "published step time"});
  }
  if (const auto tps = figures.tokens_per_s_per_gpu) {
    out.push_back({tokens / (*tps * gpus), MeasuredBasis::tokens_per_s,
                   fmt::format("{} x {} tokens / ({} tokens/s/GPU x {} GPUs)", s.training.global_batch,
                               s.training.seq_len, *tps, s.cluster.num_gpus)});
  }
  if (const auto tflops = figures.tflops_per_gpu) {
    const bool hardware = tflops_count == FlopCount::hardware_full_recompute;
    // The source's count, whatever the run recomputed: eq. 3 always includes the fourth pass.
    models::TrainingSpec counted = s.training;
    counted.recompute = models::Recompute::full;
    const double flops = hardware ? models::hardware_flops_per_step(s.model, counted) : model_flops;
    out.push_back({flops / (*tflops * 1e12 * gpus), MeasuredBasis::tflops,
                   fmt::format("{:.4g} {} FLOPs / ({} TFLOP/s/GPU x {} GPUs)", flops,
                               hardware ? "hardware (full-recompute)" : "model", *tflops,
                               s.cluster.num_gpus)});
  }
  if (const auto mfu = figures.mfu) {
    const double peak = s.cluster.gpu.bf16_flops_per_s;
    out.push_back({model_flops / (*mfu * peak * gpus), MeasuredBasis::mfu,
                   fmt::format("{:.4g} model FLOPs / ({} MFU x {:g} TFLOP/s bf16 peak x {} GPUs)",
                               model_flops, *mfu, peak / 1e12, s.cluster.num_gpus)});
  }
  return out;
}

}  // namespace clustersim::scenarios
