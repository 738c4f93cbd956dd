#include "planning/validation/validation_family.hpp"

#include <fmt/format.h>

#include "models/spec/gpu_spec.hpp"

namespace clustersim::planning {

ValidationFamily validation_family(std::string_view gpu, const models::ParallelismSpec& parallelism,
                                   const models::TrainingSpec& training, bool mixture_of_experts) {
  std::string generation(gpu);
  switch (models::gpu_generation(gpu)) {
    case models::GpuGeneration::ampere: generation = "A100"; break;
    case models::GpuGeneration::hopper: generation = "Hopper"; break;
    case models::GpuGeneration::blackwell: generation = "Blackwell"; break;
    case models::GpuGeneration::unknown: break;
  }
  const bool zero3 = parallelism.zero >= 3;
  return {.generation = std::move(generation),
          .precision = training.precision,
          .zero3 = zero3,
          .framework = zero3 ? parallelism.sharding : models::ShardingFramework::fsdp2,
          .moe = mixture_of_experts};
}

std::string generation_text(std::string_view generation) {
  if (generation == "Hopper") return "Hopper (H100, H200)";
  if (generation == "Blackwell") return "Blackwell (B200, GB200, GB300)";
  return std::string(generation);
}

std::string sharding_text(const ValidationFamily& family) {
  return family.zero3 ? fmt::format("ZeRO-3 {}", models::sharding_name(family.framework)) : std::string("ZeRO 0-2");
}

std::string family_label(const ValidationFamily& family) {
  return fmt::format("{} {} {}{}", family.generation, models::precision_name(family.precision),
                     sharding_text(family), family.moe ? " MoE" : "");
}

}  // namespace clustersim::planning
