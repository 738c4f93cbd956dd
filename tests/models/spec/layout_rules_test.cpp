#include "models/spec/layout_rules.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <optional>
#include <string>

#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

// Llama 3 70B on 256 H100 as TP8 PP4 DP8 with SP: a layout every rule accepts.
struct Fixture {
  TransformerSpec model = test::llama3_70b();
  ParallelismSpec parallelism{.tp = 8, .pp = 4, .dp = 8, .cp = 1, .vp = 1, .sp = true, .zero = 1};
  TrainingSpec training{.seq_len = 4096, .micro_batch = 1, .global_batch = 1024};
  ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 256, .gpus_per_node = 8};

  std::optional<LayoutViolation> violation() const {
    return layout_violation(model, parallelism, training, cluster);
  }
};

// The violation of the base layout changed by `change`: exactly one rule must break.
LayoutViolation broken(const std::function<void(Fixture&)>& change) {
  Fixture layout;
  change(layout);
  const auto violation = layout.violation();
  REQUIRE(violation.has_value());
  return *violation;
}

TEST_CASE("layout rules: the base layout and Megatron-LM's GQA layouts are valid") {
  CHECK_FALSE(Fixture{}.violation().has_value());
  // kv_heads = 8 on tp = 16, 32, 64: each rank holds one key/value head, shared by tp/8 ranks.
  for (const std::int64_t tp : {16, 32, 64}) {
    Fixture layout;
    layout.parallelism.tp = tp;
    layout.parallelism.dp = 256 / (tp * 4);
    CAPTURE(tp);
    CHECK_FALSE(layout.violation().has_value());
  }
}

TEST_CASE("layout rules: one rule at a time, each naming its field") {
  // hidden = 8200 is not 64 heads of a whole width.
  auto v = broken([](Fixture& l) { l.model.hidden = 8200; });
  CHECK(v.field == LayoutField::model_hidden);
  CHECK(v.rule == "must be divisible by heads=64 (or set model.head_dim), got 8200");

  v = broken([](Fixture& l) { l.model.kv_heads = 6; });
  CHECK(v.field == LayoutField::model_kv_heads);
  CHECK(v.rule == "must divide heads=64, got 6");

  // tp = 6: 6 x 4 x dp cannot be 256 either, but the heads rule is checked first.
  v = broken([](Fixture& l) { l.parallelism.tp = 6; });
  CHECK(v.field == LayoutField::parallelism_tp);
  CHECK(v.rule == "6 does not divide heads=64");

  // 96 heads in 8 groups on tp = 12: 12 divides 96, but neither 12 nor 8 divides the other.
  v = broken([](Fixture& l) {
    l.model.heads = 96;
    l.model.hidden = 96 * 128;
    l.parallelism.tp = 12;
  });
  CHECK(v.field == LayoutField::parallelism_tp);
  CHECK(v.rule == "12 and kv_heads=8 must divide one another");

  v = broken([](Fixture& l) { l.cluster.num_gpus = 260; });
  CHECK(v.field == LayoutField::cluster_num_gpus);
  CHECK(v.rule == "must be a multiple of gpus_per_node=8, got 260");

  v = broken([](Fixture& l) { l.parallelism.dp = 4; });
  CHECK(v.field == LayoutField::parallelism);
  CHECK(v.rule == "tp*pp*dp*cp = 8*4*4*1 = 128 must equal cluster.num_gpus=256");

  // 8 layers cannot fill 4 stages of 3 chunks.
  v = broken([](Fixture& l) {
    l.model.layers = 8;
    l.parallelism.vp = 3;
    l.training.schedule = Schedule::interleaved;
  });
  CHECK(v.field == LayoutField::parallelism_pp);
  CHECK(v.rule == "pp*vp = 4*3 = 12 exceeds layers=8: every pipeline chunk needs a layer (parallelism.layers_per_chunk may leave the first and the last chunk without one)");

  v = broken([](Fixture& l) { l.parallelism.vp = 2; });
  CHECK(v.field == LayoutField::parallelism_vp);
  CHECK(v.rule == "vp=2 needs training.schedule \"interleaved\"");

  v = broken([](Fixture& l) { l.training.schedule = Schedule::interleaved; });
  CHECK(v.field == LayoutField::training_schedule);
  CHECK(v.rule == "\"interleaved\" needs parallelism.vp > 1");

  // 1000 sequences over dp x micro_batch = 8 x 2 = 16.
  v = broken([](Fixture& l) {
    l.training.global_batch = 1000;
    l.training.micro_batch = 2;
  });
  CHECK(v.field == LayoutField::training_global_batch);
  CHECK(v.rule == "must be divisible by dp*micro_batch = 8*2 = 16, got 1000");

  // Interleaved with 48 / (8 x 1) = 6 micro-batches per step on 4 stages.
  v = broken([](Fixture& l) {
    l.training.global_batch = 48;
    l.parallelism.vp = 2;
    l.training.schedule = Schedule::interleaved;
  });
  CHECK(v.field == LayoutField::training_global_batch);
  CHECK(v.rule == "the interleaved schedule needs the micro-batches of each pipeline run, "
                  "global_batch/(dp*micro_batch*pipeline_runs) = 6, to be a multiple of pp=4");

  // Pipeline runs split the step's micro-batches evenly, and under interleaving each run's too.
  v = broken([](Fixture& l) {
    l.training.global_batch = 48;
    l.training.pipeline_runs = 4;
  });
  CHECK(v.field == LayoutField::training_pipeline_runs);
  CHECK(v.rule == "must divide the micro-batches per step, global_batch/(dp*micro_batch) = 6, got 4");
  v = broken([](Fixture& l) {
    l.training.global_batch = 96;
    l.training.pipeline_runs = 2;
    l.parallelism.vp = 2;
    l.training.schedule = Schedule::interleaved;
  });
  CHECK(v.field == LayoutField::training_global_batch);
  CHECK(v.rule == "the interleaved schedule needs the micro-batches of each pipeline run, "
                  "global_batch/(dp*micro_batch*pipeline_runs) = 6, to be a multiple of pp=4");

  // Megatron-Core's micro-batch groups (schedules.py): from pp to the run's micro-batches, leaving no
  // last group smaller than pp; only with interleaving. 1024 / 8 = 128 micro-batches on 4 stages.
  v = broken([](Fixture& l) { l.parallelism.microbatch_group = 8; });
  CHECK(v.field == LayoutField::parallelism_microbatch_group);
  CHECK(v.rule == "groups the micro-batches of the interleaved schedule: it needs parallelism.vp > 1");
  const auto interleaved_with_group = [](std::int64_t group) {
    return [group](Fixture& l) {
      l.parallelism.vp = 2;
      l.training.schedule = Schedule::interleaved;
      l.parallelism.microbatch_group = group;
    };
  };
  v = broken(interleaved_with_group(3));
  CHECK(v.field == LayoutField::parallelism_microbatch_group);
  CHECK(v.rule == "must be in [pp, micro-batches of a pipeline run] = [4, 128], got 3");
  v = broken(interleaved_with_group(129));
  CHECK(v.rule == "must be in [pp, micro-batches of a pipeline run] = [4, 128], got 129");
  v = broken(interleaved_with_group(42));  // 128 = 3 x 42 + 2: a last group of 2 < pp
  CHECK(v.field == LayoutField::parallelism_microbatch_group);
  CHECK(v.rule == "the interleaved schedule needs the micro-batches of each pipeline run, "
                  "global_batch/(dp*micro_batch*pipeline_runs) = 128, to be a multiple of microbatch_group=42 or to "
                  "leave a last group of at least pp=4 (it leaves 2)");
  // Valid: 4 (the default), 30 (a last group of 8), 64 and 128 (one group, breadth-first); 5 leaves 3.
  for (const std::int64_t group : {4, 5, 30, 64, 128}) {
    Fixture l;
    interleaved_with_group(group)(l);
    CAPTURE(group);
    CHECK(l.violation().has_value() == (group == 5));
  }

  // Ulysses splits the heads: 64 query heads over tp x cp = 16 ranks divide, 8 key/value heads do not.
  v = broken([](Fixture& l) {
    l.parallelism = {.tp = 8, .pp = 4, .dp = 4, .cp = 2, .cp_comm = CpComm::a2a, .vp = 1, .sp = true, .zero = 1};
  });
  CHECK(v.field == LayoutField::parallelism_cp_comm);
  CHECK(v.rule == "a2a splits the key/value heads over tp*cp = 16 ranks: kv_heads=8 is not a multiple");
  // Hierarchical: the all-to-all inside groups of 2 of the 4 CP ranks, the ring across the 2 groups.
  v = broken([](Fixture& l) {
    l.parallelism = {.tp = 8, .pp = 2, .dp = 4, .cp = 4, .cp_comm = CpComm::a2a_p2p, .cp_a2a_ranks = 4,
                     .vp = 1, .sp = true, .zero = 1};
  });
  CHECK(v.field == LayoutField::parallelism_cp_a2a_ranks);
  CHECK(v.rule == "a2a+p2p needs all-to-all groups of 2 to cp/2 ranks that divide cp=4, got 4");
  v = broken([](Fixture& l) {
    l.parallelism = {.tp = 8, .pp = 2, .dp = 4, .cp = 4, .cp_comm = CpComm::a2a_p2p, .cp_a2a_ranks = 2,
                     .vp = 1, .sp = true, .zero = 1};
  });
  CHECK(v.rule == "a2a+p2p splits the key/value heads over tp*cp_a2a_ranks = 16 ranks: kv_heads=8 is not a multiple");
  v = broken([](Fixture& l) { l.parallelism.cp_a2a_ranks = 2; });
  CHECK(v.rule == "sizes the all-to-all groups of cp_comm a2a+p2p: 0 otherwise");
  {
    Fixture l;  // TP 4 x CP 4 in all-to-all groups of 2: 8 key/value heads over 8 ranks
    l.parallelism = {.tp = 4, .pp = 2, .dp = 8, .cp = 4, .cp_comm = CpComm::a2a_p2p, .cp_a2a_ranks = 2,
                     .vp = 1, .sp = true, .zero = 1};
    CHECK_FALSE(l.violation().has_value());
  }
  {
    Fixture l;  // TP 4 x CP 2: 8 key/value heads split over 8 ranks
    l.parallelism = {.tp = 4, .pp = 4, .dp = 8, .cp = 2, .cp_comm = CpComm::a2a, .vp = 1, .sp = true, .zero = 1};
    CHECK_FALSE(l.violation().has_value());
  }

  v = broken([](Fixture& l) {
    l.parallelism = {.tp = 8, .pp = 4, .dp = 4, .cp = 2, .vp = 1, .sp = false, .zero = 1};
    l.training.seq_len = 4095;
  });
  CHECK(v.field == LayoutField::training_seq_len);
  CHECK(v.rule == "must be divisible by cp=2, got 4095");

  v = broken([](Fixture& l) {
    l.parallelism = {.tp = 1, .pp = 4, .dp = 64, .cp = 1, .vp = 1, .sp = true, .zero = 1};
  });
  CHECK(v.field == LayoutField::parallelism_sp);
  CHECK(v.rule == "sequence parallelism splits activations over the TP group: it needs parallelism.tp > 1");

  // 4100 tokens split over cp = 1 but not over tp x cp = 8.
  v = broken([](Fixture& l) { l.training.seq_len = 4100; });
  CHECK(v.field == LayoutField::training_seq_len);
  CHECK(v.rule == "must be divisible by tp*cp = 8 with sequence parallelism, got 4100");

  v = broken([](Fixture& l) {
    l.parallelism.sp = false;
    l.parallelism.tp_comm_overlap = true;
  });
  CHECK(v.field == LayoutField::parallelism_tp_comm_overlap);
  CHECK(v.rule == "overlapping tensor-parallel communication with the GEMMs needs sequence parallelism "
                  "(parallelism.sp = true)");

  v = broken([](Fixture& l) {
    l.parallelism.zero = 3;
    l.parallelism.shard_group = 3;  // 8 data-parallel ranks
  });
  CHECK(v.field == LayoutField::parallelism_shard_group);
  CHECK(v.rule == "must divide the dp*cp = 8 data-parallel ranks (0: shard over all of them), got 3");

  v = broken([](Fixture& l) { l.parallelism.shard_group = 4; });  // ZeRO-1
  CHECK(v.field == LayoutField::parallelism_shard_group);
  CHECK(v.rule == "hybrid sharding shards parameters: it needs parallelism.zero = 3");

  v = broken([](Fixture& l) {
    l.cluster.gpu = test::a100();
    l.training.precision = Precision::fp8;
  });
  CHECK(v.field == LayoutField::training_precision);
  CHECK(v.rule == "fp8 needs a GPU with FP8 tensor cores; a100-80gb has fp8_tflops=0");

  v = broken([](Fixture& l) {
    l.training.precision = Precision::fp8;
    l.training.fp8_recipe = Fp8Recipe::mxfp8;
  });
  CHECK(v.field == LayoutField::training_fp8_recipe);
  CHECK(v.rule.starts_with("mxfp8 needs a Blackwell GPU (b200, gb200, b300, gb300)"));

  v = broken([](Fixture& l) {
    l.cluster.gpu = test::a100();
    l.training.attention = AttentionKernel::flash3;
  });
  CHECK(v.field == LayoutField::training_attention);
  CHECK(v.rule == "flash3 (FlashAttention-3) runs on Hopper only (h100, h200); a100-80gb is not one (use cudnn or flash2)");
  Fixture hopper;  // the fixture's H100
  hopper.training.attention = AttentionKernel::flash3;
  CHECK_FALSE(hopper.violation().has_value());
}

TEST_CASE("GPU generation: a preset's architecture by its name, a variant of a die included") {
  static_assert(gpu_generation("a100-80gb") == GpuGeneration::ampere);
  CHECK(gpu_generation("h100-sxm") == GpuGeneration::hopper);
  CHECK(gpu_generation("h100-96gb-500w") == GpuGeneration::hopper);
  CHECK(gpu_generation("h200-sxm") == GpuGeneration::hopper);
  for (const char* name : {"b200", "gb200", "gb300"}) CHECK(gpu_generation(name) == GpuGeneration::blackwell);
  CHECK(gpu_generation("") == GpuGeneration::unknown);
  CHECK(gpu_generation("mi300x") == GpuGeneration::unknown);
}

TEST_CASE("layout rules: mxfp8 runs on Blackwell, and the recipe is ignored without fp8") {
  Fixture bf16;
  bf16.training.fp8_recipe = Fp8Recipe::mxfp8;  // precision bf16: the recipe is not read
  CHECK_FALSE(bf16.violation().has_value());
  for (const char* name : {"b200", "gb200", "gb300"}) {
    Fixture blackwell;
    blackwell.cluster.gpu.name = name;
    blackwell.training.precision = Precision::fp8;
    blackwell.training.fp8_recipe = Fp8Recipe::mxfp8;
    CHECK_FALSE(blackwell.violation().has_value());
  }
}

TEST_CASE("layout rules: fp8 parameter gathers need fp8, a sharded optimizer, and not DeepSpeed's ZeRO-3") {
  Fixture fp8;
  fp8.training.precision = Precision::fp8;
  fp8.training.fp8_param_gather = true;
  CHECK_FALSE(fp8.violation().has_value());
  const auto bf16 = broken([](Fixture& f) { f.training.fp8_param_gather = true; });
  CHECK(bf16.field == LayoutField::training_fp8_param_gather);
  CHECK(bf16.rule == "fp8 parameter gathers need training.precision = fp8");
  const auto zero0 = broken([](Fixture& f) {
    f.training.precision = Precision::fp8;
    f.training.fp8_param_gather = true;
    f.parallelism.zero = 0;
  });
  CHECK(zero0.field == LayoutField::training_fp8_param_gather);
  CHECK(zero0.rule.find("parallelism.zero >= 1") != std::string::npos);
  const auto deepspeed = broken([](Fixture& f) {
    f.training.precision = Precision::fp8;
    f.training.fp8_param_gather = true;
    f.parallelism.zero = 3;
    f.parallelism.sharding = ShardingFramework::deepspeed_zero3_2021;
  });
  CHECK(deepspeed.field == LayoutField::training_fp8_param_gather);
  CHECK(deepspeed.rule.find("DeepSpeed ZeRO-3 (2021) gathers 16-bit parameters") == 0);
}

TEST_CASE("layout rules: keys a layout built in code may leave out of range") {
  CHECK(broken([](Fixture& l) { l.model.heads = 0; }).field == LayoutField::model_heads);
  CHECK(broken([](Fixture& l) { l.model.kv_heads = 0; }).field == LayoutField::model_kv_heads);
  CHECK(broken([](Fixture& l) { l.parallelism.cp = 0; }).field == LayoutField::parallelism);
  CHECK(broken([](Fixture& l) { l.parallelism.zero = 4; }).rule == "4 is not a ZeRO stage (0-3)");
  CHECK(broken([](Fixture& l) { l.training.micro_batch = 0; }).field == LayoutField::training_micro_batch);
  CHECK(broken([](Fixture& l) { l.cluster.gpus_per_node = 0; }).field == LayoutField::cluster_gpus_per_node);
}

TEST_CASE("layout rules: dp derived from the GPU count, or the rule it breaks") {
  ParallelismSpec p{.tp = 8, .pp = 4, .dp = 1, .cp = 2};
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 256, .gpus_per_node = 8};
  CHECK_FALSE(derive_dp(p, cluster).has_value());
  CHECK(p.dp == 4);  // 256 / (8 x 4 x 2)
  p = {.tp = 8, .pp = 3, .dp = 1, .cp = 1};
  const auto violation = derive_dp(p, cluster);
  REQUIRE(violation.has_value());
  CHECK(violation->field == LayoutField::parallelism_dp);
  CHECK(violation->rule == "cannot derive dp: num_gpus=256 is not divisible by tp*pp*cp = 8*3*1 = 24");
  CHECK(p.dp == 1);  // left as it was
}

TEST_CASE("layout rules: LayoutError carries the field and the rule, and says both") {
  const LayoutError error(LayoutField::parallelism_tp, "6 does not divide heads=64");
  CHECK(error.field() == LayoutField::parallelism_tp);
  CHECK(error.rule() == "6 does not divide heads=64");
  CHECK(std::string(error.what()) == "parallelism.tp: 6 does not divide heads=64");
}

}  // namespace
}  // namespace clustersim::models

namespace clustersim::models {
namespace {

TEST_CASE("layout rules: nvfp4 needs FP4 tensor cores and runs its backward in FP4") {
  const LayoutViolation on_h100 = broken([](Fixture& f) { f.training.precision = Precision::nvfp4; });
  CHECK(on_h100.field == LayoutField::training_precision);
  CHECK(on_h100.rule.find("fp4_tflops=0") != std::string::npos);
  const auto on_gb200 = [](Fixture& f) {
    f.cluster = test::gb200_cluster(256, 64);
    f.training.precision = Precision::nvfp4;
  };
  Fixture valid;
  on_gb200(valid);
  CHECK_FALSE(valid.violation().has_value());
  const LayoutViolation bf16_backward = broken([&](Fixture& f) {
    on_gb200(f);
    f.training.fp8_backward = false;
  });
  CHECK(bf16_backward.field == LayoutField::training_fp8_backward);
}

}  // namespace
}  // namespace clustersim::models

namespace clustersim::models {
namespace {

TEST_CASE("layout rules: FP8 attention needs a low-precision recipe, cuDNN's kernel and Hopper or Blackwell") {
  const auto fp8_attention = [](Fixture& f) {
    f.training.precision = Precision::fp8;
    f.training.fp8_attention = true;
  };
  Fixture valid;
  fp8_attention(valid);
  CHECK_FALSE(valid.violation().has_value());
  CHECK(broken([](Fixture& f) { f.training.fp8_attention = true; }).field == LayoutField::training_fp8_attention);
  CHECK(broken([&](Fixture& f) {
          fp8_attention(f);
          f.training.attention = AttentionKernel::flash2;
        }).field == LayoutField::training_fp8_attention);
}

}  // namespace
}  // namespace clustersim::models
