#pragma once
/// The step time a published run measured, from whichever figure its source gives, in order of
/// preference (the most direct first):
/// - step_time: the published step (iteration) time;
/// - tokens_per_s: global_batch x seq_len / (tokens/s per GPU x GPUs);
/// - tflops: FLOPs per step / (TFLOP/s per GPU x 1e12 x GPUs), with the FLOPs counted the way the
///   source counts them (model FLOPs, or hardware FLOPs with a recomputed forward, flops.hpp);
/// - mfu: model FLOPs per step / (MFU x dense BF16 peak x GPUs); the sources of measurements.md
///   section 0 quote MFU against the BF16 peak.
/// Units: seconds, tokens/s, TFLOP/s, fractions.
/// Limitations: a derived step time inherits the source's FLOP formula; where it differs from
/// flops.hpp (e.g. causal attention counted as half), the derived time is off by that ratio.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/validation_sources.hpp"

namespace clustersim::scenarios {

enum class MeasuredBasis { step_time, tokens_per_s, tflops, mfu };
std::string_view basis_name(MeasuredBasis basis);  // "step_time", "tokens_per_s", "tflops", "mfu"

struct MeasuredStep {
  double step_time_s = 0.0;
  MeasuredBasis basis = MeasuredBasis::step_time;
  std::string derivation{};  // how step_time_s follows from the published figure
};

/// What a source published about one run; absent figures are nullopt.
struct PublishedFigures {
  std::optional<double> step_time_s{};
  std::optional<double> tokens_per_s_per_gpu{};
  std::optional<double> tflops_per_gpu{};
  std::optional<double> mfu{};
};

/// One step time per published figure, most direct first; empty if none was published.
std::vector<MeasuredStep> measured_steps(const PublishedFigures& figures, const Scenario& scenario,
                                         FlopCount tflops_count);

}  // namespace clustersim::scenarios
