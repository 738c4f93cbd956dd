#include "models/step/step_model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "models/comm/collectives.hpp"
#include "tests/models/model_fixtures.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

using test::llama70b_on_256;

std::string layout_error(const StepInputs& in) {
  try {
    check_layout(in);
  } catch (const LayoutError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("collectives: a ring all-reduce inside one node costs launch + 2(n-1) hops + 2(n-1)/n S / busbw") {
  // 8 H100 on NVLink 4 without NVLS: busbw = 450 GB/s x 0.82 = 369 GB/s. 1 GiB all-reduce in
  // NCCL's Simple protocol: 8 us + 14 x 0.4 us, + 4.8 us + 14 x 2.93 us (Simple over LL), then
  // 1.75 x 1073741824 B / 369e9 B/s: 59.42 us + 5092.2 us = 5151.6 us.
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 8, .gpus_per_node = 8};
  CommProfile profile = default_comm_profile(cluster);
  profile.nvls_algbw_efficiency = 0.0;
  const double t = collective_time_s(CollectiveOp::all_reduce, 1073741824.0, {.ranks = 8, .ranks_per_node = 8},
                                     cluster, profile);
  CHECK(t == doctest::Approx(5151.6e-6).epsilon(0.001).scale(0));  // relative: doctest adds 1 to the scale
}

TEST_CASE("collectives: NVLS beats the ring inside an NVSwitch node, NCCL's tree joins nodes") {
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 16, .gpus_per_node = 8};
  const CommProfile profile = default_comm_profile(cluster);
  // NVLS algbw 275 GB/s: 1 GiB in 13.6 us + 1073741824 / 275e9 s = 3918.1 us (busbw 481 GB/s, as
  // dgxc-benchmarking measures 480).
  CHECK(collective_time_s(CollectiveOp::all_reduce, 1073741824.0, {.ranks = 8, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(13.6e-6 + 1073741824.0 / 275e9).epsilon(1e-9));
  // Two nodes: the tree moves the buffer once through each node's 8 x 50 GB/s x 0.94 = 376 GB/s of
  // NICs at tree efficiency 0.93: 349.68 GB/s, pipelined with NVLS's 275 inside at their soft
  // minimum with exponent 3, (275^-3 + 349.68^-3)^(-1/3) = 240.966 GB/s algbw.
  // Latency: 8 us + 14 x 0.4 us + 2 x 1 level x 5.5 us = 24.6 us.
  CHECK(collective_time_s(CollectiveOp::all_reduce, 1073741824.0, {.ranks = 16, .ranks_per_node = 8}, cluster,
                          profile) == doctest::Approx(24.6e-6 + 1073741824.0 / 240.966e9).epsilon(1e-6));
  // One rank per node (a data-parallel group beside TP 8): nothing to pipeline inside; the tree
  // would move twice the buffer through the busiest node's 47 GB/s NIC at 0.93, busbw 1.875 x 47 x
  // 0.93 / 2 = 41.0 GB/s; the ring's 47 GB/s is faster, and NCCL's tuner takes it.
  const CommGroup rail{.ranks = 16, .ranks_per_node = 1};
  const ClusterSpec big{.gpu = test::h100(), .num_gpus = 128, .gpus_per_node = 8};
  CHECK_FALSE(all_reduce_uses_tree(rail, big, profile));
  CHECK(all_reduce_bus_bandwidth(rail, big, profile) == doctest::Approx(47e9));
  CHECK(all_reduce_uses_tree({.ranks = 16, .ranks_per_node = 8}, cluster, profile));
}

TEST_CASE("collectives: a measured curve gives its own layout's time and shapes larger groups") {
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 16, .gpus_per_node = 8};
  CommProfile profile = default_comm_profile(cluster);
  // One segment: 30 us + bytes x 1.75 / 350 GB/s.
  profile.curves.push_back({.op = CollectiveOp::all_reduce, .ranks = 8, .ranks_per_node = 8,
                            .segments = {{.min_bytes = 1e6, .max_bytes = 1e9, .alpha_s = 30e-6, .busbw_bytes_per_s = 350e9}}});
  const double bytes = 64.0 * 1024 * 1024;
  const double node = 30e-6 + bytes * 1.75 / 350e9;
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, {.ranks = 8, .ranks_per_node = 8}, cluster, profile) ==
        doctest::Approx(node));
  // Two nodes, bulk protocol: the node's time + the extra bandwidth time (the tree family's
  // pipeline, algbw 240.966 GB/s as above, vs NVLS's 275 inside) + 2 network steps x 38 us of
  // pipeline fill: 476 us. The low-latency protocols would take 40 us + 2 x (9.5 us + bytes /
  // (376 GB/s x 0.65)) = 608 us: slower here.
  const CommGroup two_nodes{.ranks = 16, .ranks_per_node = 8};
  CHECK(collective_time_s(CollectiveOp::all_reduce, bytes, two_nodes, cluster, profile) ==
        doctest::Approx(node + bytes / 240.966e9 - bytes / 275e9 + 76e-6).epsilon(1e-6));
  // At 1 MiB they win: 40 us + 2 x (9.5 us + 4.3 us) = 67.6 us, against the bulk protocol's 112 us.
  const double small = 1024.0 * 1024;
  CHECK(collective_time_s(CollectiveOp::all_reduce, small, two_nodes, cluster, profile) ==
        doctest::Approx(40e-6 + 2.0 * (9.5e-6 + small / (376e9 * 0.65))).epsilon(1e-9));
}

TEST_CASE("collectives: a rail-aligned group across nodes is held to one NIC per rank") {
  // 16 ranks, one per node (a DP group with TP 8): 400 Gb/s NICs at 94 % = 47 GB/s busbw.
  // Reduce-scatter of 1 GB: 15/16 x 1e9 / 47e9 = 19.95 ms of bandwidth term, in the Simple
  // protocol: 8 us + 15 x 5.5 us, + 4.8 us + 15 x 6.9 us (Simple over LL) of latency.
  const ClusterSpec cluster{.gpu = test::h100(), .num_gpus = 128, .gpus_per_node = 8};
  const CommProfile profile = default_comm_profile(cluster);
  const CommGroup rail{.ranks = 16, .ranks_per_node = 1};
  CHECK(bus_bandwidth(rail, cluster, profile) == doctest::Approx(47e9));
  const double t = collective_time_s(CollectiveOp::reduce_scatter, 1e9, rail, cluster, profile);
  CHECK(t == doctest::Approx(8e-6 + 15 * 5.5e-6 + 4.8e-6 + 15 * 6.9e-6 + 15.0 / 16.0 * 1e9 / 47e9).epsilon(1e-6));
  ClusterSpec ideal = cluster;
  ideal.ideal_network = true;
  CHECK(collective_time_s(CollectiveOp::reduce_scatter, 1e9, rail, ideal, profile) == 0.0);
}

TEST_CASE("step model: an impossible layout names the field and the rule") {
  StepInputs in = llama70b_on_256();
  in.parallelism.tp = 6;
  in.parallelism.dp = 256 / (6 * 4);  // 10: the product is 240, not 256, but heads fail first
  CHECK(layout_error(in) == "parallelism.tp: 6 does not divide heads=64");
  in = llama70b_on_256();
  in.parallelism.dp = 4;  // 8 x 4 x 4 = 128 GPUs, not 256
  CHECK(layout_error(in) == "parallelism: tp*pp*dp*cp = 8*4*4*1 = 128 must equal cluster.num_gpus=256");
  in = llama70b_on_256();
  in.parallelism.tp = 16;
  in.parallelism.dp = 4;
  CHECK(layout_error(in) == "");  // TP wider than a node, and than the 8 key/value heads: only slow
  in = llama70b_on_256();
  in.training.global_batch = 1020;  // not a multiple of dp x micro_batch = 8
  CHECK(layout_error(in).find("training.global_batch") == 0);
}

TEST_CASE("step model: free communication leaves only compute and the pipeline bubble") {
  StepInputs in = llama70b_on_256();
  const StepSimulation real = simulate_step(in);
  in.cluster.ideal_network = true;
  const StepSimulation ideal = simulate_step(in);
  CHECK(ideal.report.times.exposed_comm_fraction == doctest::Approx(0.0));
  CHECK(ideal.report.times.step_time_s < real.report.times.step_time_s);
  CHECK(real.report.times.exposed_comm_fraction > 0.05);
  // 128 micro-batches on 4 stages: the bubble is about (p-1)/(m+p-1) = 3/131 = 2.3 %, more
  // because the last stage also runs the logits and loss (about 5 % more compute than the others,
  // which wait for it).
  CHECK(ideal.report.times.bubble_fraction > 0.02);
  CHECK(ideal.report.times.bubble_fraction < 0.07);
  // Compute, exposed communication and bubble partition each stage's step.
  for (const StageTimes& s : real.report.times.stages)
    CHECK(s.compute_s + s.exposed_comm_s + s.bubble_s == doctest::Approx(real.report.times.step_time_s));
}

TEST_CASE("step model: tensor parallelism across nodes is slower and says why") {
  StepInputs in = llama70b_on_256();
  const double inside = simulate_step(in).report.times.step_time_s;
  in.parallelism.tp = 16;
  in.parallelism.dp = 4;
  const StepSimulation across = simulate_step(in);
  CHECK(across.report.times.step_time_s > 1.2 * inside);
  REQUIRE(!across.report.notes.empty());
  CHECK(across.report.notes.front().find("spans 2 NVLink domains") != std::string::npos);
}

TEST_CASE("step model: GPipe matches 1F1B's time with free links but holds all micro-batches") {
  StepInputs in = llama70b_on_256();
  in.cluster.ideal_network = true;
  in.training.global_batch = 128;  // m = 16 micro-batches
  const StepSimulation one_f_one_b = simulate_step(in);
  in.training.schedule = Schedule::gpipe;
  const StepSimulation gpipe = simulate_step(in);
  CHECK(gpipe.report.times.step_time_s == doctest::Approx(one_f_one_b.report.times.step_time_s).epsilon(0.01));
  const auto& a = gpipe.report.memory_per_stage.front();
  const auto& b = one_f_one_b.report.memory_per_stage.front();
  // First stage: GPipe keeps all 16 micro-batches, 1F1B keeps p = 4.
  CHECK(a.activations_bytes == doctest::Approx(4.0 * b.activations_bytes));
}

TEST_CASE("step model: throughput figures follow from the step time") {
  const StepSimulation sim = simulate_step(llama70b_on_256());
  const StepReport& r = sim.report;
  CHECK(r.micro_batches == 128);
  CHECK(r.tokens_per_s == doctest::Approx(1024.0 * 4096.0 / r.times.step_time_s));
  CHECK(r.tokens_per_s_per_gpu == doctest::Approx(r.tokens_per_s / 256.0));
  CHECK(r.mfu == doctest::Approx(r.model_tflops_per_gpu * 1e12 / 989e12));
  CHECK(r.hfu > r.mfu);  // selective recompute redoes the attention forward
  CHECK(r.fits_in_memory);
}

TEST_CASE("step model: FSDP exposes one unit's gather per pass, and without overlap every gather and reduction") {
  // Llama 3 8B on 8 nodes of 8 H100, dp = 64, FSDP2, b = 4, s = 8192, 512 sequences: m = 2
  // micro-batches. One GPU gathers all parameters: 32 layers x 218,112,000 (matmuls + norms) plus
  // the untied embedding and logits matrices, 2 x 128,256 x 4,096 = 1,050,673,152; 8,030,257,152
  // in all, in 34 units (32 blocks, the embedding, the output layer) of the average size, bf16
  // gathered over the 64 data-parallel ranks (8 per node) before each forward and each backward,
  // fp32 reduce-scattered after each backward.
  // Overlapped (prefetch one unit ahead), only the first unit's gather of each pass waits, and
  // the last reduction before the optimizer: 2 m gathers + 1 reduction of a unit; and FSDP2
  // reduce-scatters every micro-batch, so the second micro-batch's first gather shares the NIC
  // with the first one's last reduction, which fair sharing lets it at half rate: one gather
  // more. Without
  // prefetch every gather blocks: 2 m x 34 unit gathers more; without overlapped reductions
  // m x 34 reductions more, less the one that was already exposed.
  StepInputs in = test::fsdp_llama3_8b_on_64_h100();
  // Scheduling alone: the overlapped traffic's cost to the compute (overlap_cost.hpp) is tested
  // on its own.
  in.compute.overlap.sms_held.value = 0.0;
  in.compute.overlap.hbm_bytes_per_bus_byte.value = 0.0;
  const double unit_params = (32.0 * 218112000.0 + 1050673152.0) / 34.0;
  const CommGroup dp{.ranks = 64, .ranks_per_node = 8};
  const double gather_s = collective_time_s(CollectiveOp::all_gather, 2.0 * unit_params, dp, in.cluster, in.comm);
  const double scatter_s = collective_time_s(CollectiveOp::reduce_scatter, 4.0 * unit_params, dp, in.cluster, in.comm);

  const StepSimulation overlapped = simulate_step(in);
  const double exposed_s = 2.0 * 2.0 * gather_s + gather_s + scatter_s;
  CHECK(overlapped.report.times.stages[0].exposed_comm_s == test::relative(exposed_s).epsilon(0.02));

  in.training.overlap_param_gather = false;
  const StepSimulation gathers_block = simulate_step(in);
  CHECK(gathers_block.report.times.step_time_s - overlapped.report.times.step_time_s ==
        doctest::Approx(2.0 * 2.0 * 33.0 * gather_s).epsilon(0.03));

  in.training.overlap_grad_reduce = false;
  const StepSimulation all_block = simulate_step(in);
  const double blocking_s = 2.0 * 34.0 * (2.0 * gather_s + scatter_s);
  CHECK(all_block.report.times.step_time_s - overlapped.report.times.step_time_s ==
        doctest::Approx(blocking_s - exposed_s).epsilon(0.03));
  // Metrics count it as exposed data-parallel communication.
  CHECK(all_block.report.times.stages[0].dp_comm_s == doctest::Approx(blocking_s).epsilon(1e-6));
  CHECK(all_block.report.times.stages[0].exposed_comm_s == doctest::Approx(blocking_s).epsilon(0.01));
}

TEST_CASE("step model: DeepSpeed all-gathers the updated parameters inside its optimizer step, Megatron-Core "
          "beside the next forward") {
  // Llama 3 8B, ZeRO-1 over 64 H100, eight micro-batches a step. Megatron-Core's distributed
  // optimizer under --overlap-param-gather gathers the next step's bf16 parameters while this
  // step computes; without it the gather follows the optimizer, a closed-form all-gather of the
  // 8,030,261,248 parameters' 2 bytes over the 64 ranks later. DeepSpeed's optimizers gather
  // inside their step whatever the key says.
  StepInputs in = test::fsdp_llama3_8b_on_64_h100();
  in.parallelism.zero = 1;
  in.training.micro_batch = 1;
  in.training.global_batch = 512;
  // Scheduling alone: what overlapped traffic costs the compute is overlap_cost's.
  in.compute.overlap.sms_held.value = 0.0;
  in.compute.overlap.hbm_bytes_per_bus_byte.value = 0.0;
  const double params = 32.0 * 218112000.0 + 1050673152.0;
  const CommGroup dp{.ranks = 64, .ranks_per_node = 8};
  const double gather_s = collective_time_s(CollectiveOp::all_gather, 2.0 * params, dp, in.cluster, in.comm);
  const auto step_s = [&](Framework framework, bool overlap) {
    StepInputs s = in;
    s.training.framework = framework;
    s.training.overlap_param_gather = overlap;
    return simulate_step(s).report.times.step_time_s;
  };
  CHECK(step_s(Framework::megatron_core, false) - step_s(Framework::megatron_core, true) ==
        doctest::Approx(gather_s).epsilon(0.01));
  CHECK(step_s(Framework::megatron_deepspeed, true) == step_s(Framework::megatron_deepspeed, false));
  CHECK(step_s(Framework::megatron_lm, true) == step_s(Framework::megatron_lm, false));
}

TEST_CASE("step model: DP communication is the time its buckets ran, not the sum of their spans") {
  // The built-in default layout: Llama 3 70B on 256 H100, TP 8 x PP 4 x DP 8, ZeRO-1. A middle
  // stage holds 20 layers of 855,654,400 parameters / 8 tensor ranks: 4,278,272,000 bf16 bytes,
  // whose fp32 gradients (twice the bytes) are reduce-scattered in 20 per-layer buckets that
  // share the stage's port during the last backward, and all-gathered once under the next step. The buckets run one after another in
  // effect, so the union of their intervals is the closed form RS + AG of the stage's bytes, while
  // the sum of their spans (each stretched by the others sharing the port) is several times that.
  StepInputs in;
  in.model = test::llama3_70b();
  in.parallelism = {.tp = 8, .pp = 4, .dp = 8, .sp = true, .zero = 1};
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 1024};
  in.cluster = {.gpu = test::h100(), .num_gpus = 256, .gpus_per_node = 8};
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  const double bytes = 2.0 * 20.0 * 855654400.0 / 8.0;
  const CommGroup dp{.ranks = 8, .ranks_per_node = 1};
  const double closed_form = collective_time_s(CollectiveOp::reduce_scatter, 2.0 * bytes, dp, in.cluster, in.comm) +
                             collective_time_s(CollectiveOp::all_gather, bytes, dp, in.cluster, in.comm);
  const StepSimulation sim = simulate_step(in);
  for (const std::size_t stage : {1u, 2u}) {
    // The pipeline sends share the port too and stretch a bucket now and then: within 1 %.
    CHECK(sim.report.times.stages[stage].dp_comm_s == doctest::Approx(closed_form).epsilon(0.01));
  }
}

TEST_CASE("step model: a pass's compute and its tensor-parallel collectives are one task, reported apart") {
  // Under the analytic fidelity each pass is one compute_then_tp task, the TP collectives Megatron's
  // layers run beside the backward's GEMMs (the regathers and input-gradient reduce-scatters)
  // included, except the last backward of a chunk, whose gradient buckets follow its layers. The
  // reports still see the parts: per stage, the tensor-parallel time is m x (forward + backward
  // collectives, beside the compute or after it) of the plan and the compute time m x (forward +
  // backward) + the last backward's slow-down by the gradient buckets beside it + the optimizer
  // step, to a nanosecond a pass.
  const StepInputs in = llama70b_on_256();
  const StepPlan plan = plan_step(in);
  const StepSimulation sim = simulate_step(in);
  const auto m = static_cast<double>(plan.micro_batches);
  std::size_t fused = 0, separate_tp = 0;
  for (clustersim::sim::TaskId t = 0; t < sim.step.graph.size(); ++t) {
    const auto kind = static_cast<TaskKind>(sim.step.graph.label(t).kind);
    fused += kind == TaskKind::compute_then_tp ? 1 : 0;
    separate_tp += kind == TaskKind::tp_comm ? 1 : 0;
  }
  // 4 stages x 128 micro-batches x 2 passes, less each stage's last backward, whose TP collectives
  // are two tasks: beside its compute and after it.
  CHECK(fused == 4 * 128 * 2 - 4);
  CHECK(separate_tp == 4 * 2);
  REQUIRE(sim.report.times.stages.size() == plan.stages.size());
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const ChunkCosts& c = plan.stages[s].chunks.front();
    REQUIRE(c.tp_forward_s > 0.0);
    const StageTimes& st = sim.report.times.stages[s];
    const double tolerance = 2.0 * m * 2e-9;
    REQUIRE(c.tp_hidden_backward_s > 0.0);
    CHECK(std::abs(st.tp_comm_s - m * (c.tp_forward_s + c.tp_backward_s + c.tp_hidden_backward_s)) < tolerance);
    // The chunk's last backward is the stage's last pass: only its own buckets have compute beside.
    REQUIRE(c.grad_bucket_interference_last_s > 0.0);
    CHECK(std::abs(st.compute_s - (m * (c.forward_s + c.backward_s) + c.grad_bucket_interference_last_s +
                                   plan.stages[s].optimizer_s)) < tolerance);
  }
}

TEST_CASE("step model: gradient buckets larger than a layer leave more of the reduction after the backward") {
  // Llama 3 70B, TP 8 x DP 32 on 256 H100, one micro-batch: each data-parallel rank sits on its own
  // node, so the ZeRO-1 reduce-scatter of 8.75B fp32 gradients crosses one NIC and outlasts the
  // backward it overlaps.
  StepInputs in = llama70b_on_256();
  in.parallelism = {.tp = 8, .pp = 1, .dp = 32, .cp = 1, .vp = 1, .sp = true, .zero = 1};
  in.training.global_batch = 32;
  const auto step_s = [&](bool overlap, std::int64_t bucket) {
    StepInputs s = in;
    s.training.overlap_grad_reduce = overlap;
    s.training.grad_bucket_params = bucket;
    return simulate_step(s).report.times.step_time_s;
  };
  const auto buckets = [&](std::int64_t bucket) {
    StepInputs s = in;
    s.training.grad_bucket_params = bucket;
    return plan_step(s).stages[0].chunks[0].grad_buckets;
  };
  // A bucket per layer by default; never finer than a layer, never fewer than one.
  CHECK(buckets(0) == 80);
  CHECK(buckets(1) == 80);
  CHECK(buckets(1'000'000'000'000) == 1);
  CHECK(buckets(5'000'000'000) == 2);  // 8.75B parameters a rank, plus its embedding and output shards
  const double per_layer = step_s(true, 0), two = step_s(true, 5'000'000'000), one = step_s(true, 1'000'000'000'000);
  const double blocking = step_s(false, 0);
  CHECK(per_layer < two);
  CHECK(two < one);
  // One bucket is reduced once the backward's compute is done: what no overlap does, less the
  // backward's tensor-parallel collectives on NVLink, which the network reduction runs beside.
  const double tp_backward_s = plan_step(in).stages[0].chunks[0].tp_backward_s;
  CHECK(tp_backward_s > 0.0);
  CHECK(blocking - one == doctest::Approx(tp_backward_s).epsilon(0.01));
  // Nothing computes beside the one bucket: the backward is the stage's last pass.
  StepInputs one_bucket = in;
  one_bucket.training.grad_bucket_params = 1'000'000'000'000;
  CHECK(plan_step(one_bucket).stages[0].chunks[0].grad_bucket_interference_last_s == 0.0);
}
