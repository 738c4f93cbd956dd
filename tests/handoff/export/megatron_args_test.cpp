#include "handoff/export/megatron_args.hpp"

#include <doctest/doctest.h>

namespace clustersim::handoff {
namespace {

models::TransformerSpec layers(std::int64_t n) {
  return {.name = "m", .layers = n, .hidden = 8192, .ffn_hidden = 28672, .heads = 64, .kv_heads = 8, .vocab = 128256};
}

TEST_CASE("megatron args: an interleaved layout with SP and selective recompute") {
  // 80 layers on 4 stages x 5 chunks: 4 layers per virtual stage.
  const planning::Layout layout{
      .parallelism = {.tp = 8, .pp = 4, .dp = 8, .vp = 5, .sp = true, .zero = 1},
      .training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 1024,
                   .recompute = models::Recompute::selective, .schedule = models::Schedule::interleaved}};
  CHECK(megatron_args(layers(80), layout) ==
        std::vector<std::string>{"--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 4",
                                 "--num-layers-per-virtual-pipeline-stage 4", "--sequence-parallel",
                                 "--micro-batch-size 1", "--global-batch-size 1024", "--seq-length 4096",
                                 "--recompute-activations", "--use-distributed-optimizer", "--overlap-grad-reduce",
                                 "--overlap-param-gather", "--bf16"});
}

TEST_CASE("megatron args: an uneven pipeline, context parallelism, full recompute and FSDP") {
  // Llama 3 405B's 126 layers on 16 stages: 7 on the first and last, 8 elsewhere.
  const planning::Layout layout{
      .parallelism = {.tp = 8, .pp = 16, .dp = 8, .cp = 2, .zero = 3},
      .training = {.seq_len = 8192, .micro_batch = 2, .global_batch = 2048, .recompute = models::Recompute::full}};
  CHECK(megatron_args(layers(126), layout) ==
        std::vector<std::string>{"--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 16",
                                 "--decoder-first-pipeline-num-layers 7", "--decoder-last-pipeline-num-layers 7",
                                 "--context-parallel-size 2", "--micro-batch-size 2", "--global-batch-size 2048",
                                 "--seq-length 8192", "--recompute-granularity full", "--recompute-method uniform",
                                 "--recompute-num-layers 1", "--use-torch-fsdp2", "--bf16"});
}

}  // namespace
}  // namespace clustersim::handoff
