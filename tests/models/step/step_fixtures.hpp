#pragma once
// Step inputs shared by the step-model tests.

#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models::test {

// The default layout of clustersim: Llama 3 70B on 32 nodes of 8 H100, TP 8, PP 4, DP 8, SP, 1F1B.
inline StepInputs llama70b_on_256() {
  StepInputs in;
  in.model = llama3_70b();
  in.parallelism = {.tp = 8, .pp = 4, .dp = 8, .cp = 1, .vp = 1, .sp = true, .zero = 1};
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 1024};
  in.cluster = {.gpu = h100(), .num_gpus = 256, .gpus_per_node = 8};
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  return in;
}

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
