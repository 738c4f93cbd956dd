#pragma once
/// The validation family of a layout: the published runs whose errors say how far to trust its
/// predicted step time. A family is a GPU generation (A100; Hopper: H100 and H200; Blackwell: B200
/// and GB200; any other GPU is a generation of its own), a precision (bf16, fp8) and a sharding:
/// ZeRO 0-2 (with or without TP and PP, the Megatron-style runs), or ZeRO-3 together with the
/// framework that runs it (parallelism.sharding: DeepSpeed ZeRO-3 as in 2021, FSDP1, FSDP2,
/// Megatron-FSDP), since those frameworks gather and reduce so differently that one's errors say
/// nothing of another's; and whether the model is a mixture of experts, whose token dispatch and
/// grouped GEMMs no dense run validates.
/// Limitations: the families are coarse on purpose (a few dozen published runs in all); the model
/// size, the GPU count and the network are not dimensions, so a family's spread includes them.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "models/spec/parallelism_spec.hpp"

namespace clustersim::planning {

struct ValidationFamily {
  std::string generation{};  // "A100", "Hopper", "Blackwell", else the GPU preset's name
  models::Precision precision = models::Precision::bf16;
  bool zero3 = false;
  models::ShardingFramework framework = models::ShardingFramework::fsdp2;  // meaningful with zero3
  bool moe = false;  // a mixture-of-experts model

  friend auto operator<=>(const ValidationFamily&, const ValidationFamily&) = default;
};

/// The spread of a family's published runs: with r = measured / predicted per run,
/// lo = min(0, min r - 1) and hi = max(0, max r - 1) (the prediction itself always inside).
struct RunSpread {
  double lo = 0.0;
  double hi = 0.0;
  std::int64_t runs = 0;

  void add(double measured_s, double predicted_s) {
    const double r = measured_s / predicted_s - 1.0;
    lo = r < lo ? r : lo;
    hi = r > hi ? r : hi;
    ++runs;
  }
};

/// The family of a layout on the GPU preset `gpu`, of a mixture-of-experts model or not.
ValidationFamily validation_family(std::string_view gpu, const models::ParallelismSpec& parallelism,
                                   const models::TrainingSpec& training, bool mixture_of_experts);

/// "A100", "Hopper (H100, H200)", "Blackwell (B200, GB200)", or the GPU's name.
std::string generation_text(std::string_view generation);
/// "ZeRO 0-2" or "ZeRO-3 fsdp2".
std::string sharding_text(const ValidationFamily& family);
/// "Hopper bf16 ZeRO 0-2", "A100 bf16 ZeRO-3 deepspeed_zero3_2021", "Hopper bf16 ZeRO 0-2 MoE":
/// unique per family.
std::string family_label(const ValidationFamily& family);

}  // namespace clustersim::planning
