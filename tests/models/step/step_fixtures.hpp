#pragma once
// Step inputs shared by the step-model tests.

#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models::test {

// Llama 3 8B under FSDP2 on 8 nodes of 8 H100: dp = 64, ZeRO-3, b = 4, s = 8192, 512 sequences
// (m = 2 micro-batches), the built-in constants.
inline StepInputs fsdp_llama3_8b_on_64_h100() {
  StepInputs in;
  in.model = llama3_8b();
  in.parallelism = {.tp = 1, .pp = 1, .dp = 64, .zero = 3};
  in.training = {.seq_len = 8192, .micro_batch = 4, .global_batch = 512};
  in.cluster = {.gpu = h100(), .num_gpus = 64, .gpus_per_node = 8};
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  return in;
}

}  // namespace clustersim::models::test
