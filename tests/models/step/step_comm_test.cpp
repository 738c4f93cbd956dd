#include "models/step/step_comm.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>

#include "models/comm/flow_collectives.hpp"
#include "models/compute/compute_time.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/step/flow_step.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

// Llama 3 8B on 2 nodes of 4 H100 (4 NICs each): TP 2, PP 2, DP 2, sequence parallel, ZeRO-1.
// Rank order TP, CP, DP, PP: stage 0 is node 0 (ranks 0-3), stage 1 node 1; every TP and DP group
// is two ranks of one node, every pipeline send crosses the network.
StepInputs small_layout() {
  StepInputs in;
  in.model = test::llama3_8b();
  in.parallelism = {.tp = 2, .pp = 2, .dp = 2, .cp = 1, .vp = 1, .sp = true, .zero = 1};
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 8};
  in.cluster = {.gpu = test::h100(), .num_gpus = 8, .gpus_per_node = 4, .nic_bytes_per_s = 50e9, .nics_per_node = 4};
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  return in;
}

// The context-parallel ring of the tests below: TP 2 x CP 4, one sequence, on one node of 8 H100,
// so that every hop is on NVLink.
StepInputs cp_ring_on_one_node() {
  StepInputs in = small_layout();
  in.parallelism = {.tp = 2, .pp = 1, .dp = 1, .cp = 4, .vp = 1, .sp = true, .zero = 1};
  in.training.global_batch = 1;
  in.cluster.gpus_per_node = 8;
  in.cluster.nics_per_node = 8;
  return in;
}

void check_record(const CollectiveRecord& r, CollectiveOp op, double bytes, CommGroup group, CommScope scope,
                  const StepInputs& in) {
  CHECK(r.op == op);
  CHECK(r.bytes == bytes);
  CHECK(r.group.ranks == group.ranks);
  CHECK(r.group.ranks_per_node == group.ranks_per_node);
  CHECK(r.scope == scope);
  CHECK(r.seconds == collective_time_s(op, bytes, group, in.cluster, in.comm));
}

/// A middle chunk's GEMM seconds of one pass, by hand: the layer's ops of kind gemm, 16 layers.
double chunk_gemm_s(const StepInputs& in, bool forward) {
  const LayerCosts layer = layer_costs(in.model, in.parallelism, in.training);
  double seconds = 0.0;
  for (const OpCost& op : forward ? layer.forward : layer.backward)
    if (op.kind == OpKind::gemm) seconds += op_time_s(op, in.cluster.gpu, in.compute, in.training.precision);
  return 16.0 * seconds;
}

/// Seconds of the layer's backward op `name` by hand.
double named_op_s(const StepInputs& in, std::string_view name) {
  const LayerCosts layer = layer_costs(in.model, in.parallelism, in.training);
  for (const OpCost& op : layer.backward)
    if (op.name == name) return op_time_s(op, in.cluster.gpu, in.compute, in.training.precision);
  FAIL("no op " << name);
  return 0.0;
}

/// Seconds exposed of a collective of c seconds split into n chunks pipelined with g seconds of
/// GEMM: the first chunk, and whatever of the rest the other n - 1 GEMM chunks do not cover.
double pipelined_exposed(double c, double g, double n) { return std::max(c / n, c - g * (n - 1.0) / n); }

/// What the flow fidelity sends for one communication task, lowered alone: bytes over all flows
/// and the latency its start task pays.
struct Sent {
  double bytes = 0.0;
  std::int64_t latency_ns = 0;
};

Sent lower_task_alone(const StepInputs& in, const CommParts& parts, std::int32_t stage) {
  FlowNetwork network(in.cluster, in.comm);
  FlowLowering lowering(network, 0);
  FlowStep flow(in.parallelism, in.cluster, in.comm, lowering);
  clustersim::sim::TaskGraph graph;
  const FlowSpan span = flow.lower(graph, parts.span(), {.stage = stage});
  Sent sent{.latency_ns = graph.latency(span.first).ns()};
  for (clustersim::sim::TaskId t = 0; t < graph.size(); ++t) sent.bytes += graph.work(t) * graph.weight(t);
  return sent;
}

/// The first stage's memory of `in` with `training.*flag` set to `value`.
MemoryBreakdown first_stage_memory(StepInputs in, bool TrainingSpec::*flag, bool value) {
  in.training.*flag = value;
  return step_report(in).memory_per_stage[0];
}

/// Each of `layouts` breaks the layout rules at `field`.
void check_refused(std::initializer_list<StepInputs> layouts, LayoutField field) {
  for (const StepInputs& bad : layouts) {
    const auto v = layout_violation(bad.model, bad.parallelism, bad.training, bad.cluster);
    REQUIRE(v);
    CHECK(v->field == field);
  }
}

// The activation of one micro-batch: b x s/cp x h x 2 bytes = 4096 x 4096 x 2.
constexpr double kActivation = 33554432.0;
// A chunk's parameters per tensor rank: 16 layers x (218,103,808 matrix + 8,192 norm weights) / 2,
// plus one of the untied embeddings (128,256 x 4,096) / 2 = 1,744,896,000 + 262,668,288.
constexpr double kChunkParameterBytes = 2.0 * (1744896000.0 + 262668288.0);

}  // namespace

TEST_CASE("step comm: torchtitan's op-level checkpointing gathers the attention and MLP inputs again in the backward") {
  // Its policy saves reduce-scatter outputs, not all-gather outputs: a layer's backward runs the
  // forward's two all-gathers again beside its own two all-gathers and two reduce-scatters.
  StepInputs in = small_layout();
  in.training.framework = Framework::torchtitan;
  in.training.recompute = Recompute::op;
  const StepPlan plan = plan_step(in);
  CHECK(plan.layer.tp_regathers == 2.0);
  const ChunkCosts& chunk = plan.stages.front().chunks.front();
  const double gather_s = plan.layer.tp[0].seconds, scatter_s = plan.layer.tp[1].seconds;
  const double layers = chunk.tp_layers;
  CHECK(chunk.tp_forward_s == doctest::Approx(layers * 2.0 * (gather_s + scatter_s)).epsilon(1e-12));
  CHECK(chunk.tp_backward_s == doctest::Approx(layers * (4.0 * gather_s + 2.0 * scatter_s)).epsilon(1e-12));
  // Megatron's selective recompute redoes attention's core only: no collective again.
  in.training.recompute = Recompute::selective;
  const StepPlan selective = plan_step(in);
  CHECK(selective.layer.tp_regathers == 0.0);  // PyTorch's layers keep the gathered input
  CHECK(selective.stages.front().chunks.front().tp_backward_s ==
        doctest::Approx(selective.stages.front().chunks.front().tp_forward_s).epsilon(1e-12));
}

TEST_CASE("collective records: the plan holds each collective once, with the bytes and group it moves") {
  const StepInputs in = small_layout();
  const StepPlan plan = plan_step(in);
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  check_record(plan.layer.tp[0], CollectiveOp::all_gather, kActivation, node_pair, CommScope::tp, in);
  check_record(plan.layer.tp[1], CollectiveOp::reduce_scatter, kActivation, node_pair, CommScope::tp, in);
  CHECK(plan.layer.tp_per_layer == 2.0);
  CHECK(plan.layer.tp_backward_factor == 1.0);  // selective recompute redoes no collective
  CHECK(plan.layer.cp_hops == 0.0);
  CHECK_FALSE(plan.gathers_per_pass);
  CHECK_FALSE(plan.reduces_per_pass);
  REQUIRE(plan.stages.size() == 2);
  for (const StagePlan& stage : plan.stages) {
    // Sends: the activation split over the 2 tensor ranks, one rank per node at each end.
    const CommGroup across{.ranks = 2, .ranks_per_node = 1};
    check_record(stage.send_forward, CollectiveOp::send_recv, kActivation / 2.0, across, CommScope::pp_next, in);
    check_record(stage.send_backward, CollectiveOp::send_recv, kActivation / 2.0, across, CommScope::pp_previous, in);
    CHECK(stage.send_forward_s == stage.send_forward.seconds);
    REQUIRE(stage.chunks.size() == 1);
    const ChunkCosts& chunk = stage.chunks.front();
    CHECK(chunk.layers == 16);
    // Gradients reduce in fp32 (training.grad_dtype's default, Megatron-LM's for bf16): twice the
    // bf16 parameters the distributed optimizer gathers back.
    check_record(chunk.grad_reduce, CollectiveOp::reduce_scatter, 2.0 * kChunkParameterBytes, node_pair, CommScope::dp, in);
    check_record(chunk.param_gather, CollectiveOp::all_gather, kChunkParameterBytes, node_pair, CommScope::dp, in);
    // The tasks' analytic seconds, composed by hand from the collectives' own times.
    const double ag = collective_time_s(CollectiveOp::all_gather, kActivation, node_pair, in.cluster, in.comm);
    const double rs = collective_time_s(CollectiveOp::reduce_scatter, kActivation, node_pair, in.cluster, in.comm);
    CHECK(chunk.tp_forward_s == 16.0 * (2.0 * (ag + rs)));
    // The backward: the output gradients' two gathers on the stream; Megatron's layers gather their
    // saved input shards again beside the QKV and up projections' input-gradient GEMMs and
    // reduce-scatter those input gradients beside their weight-gradient GEMMs, each exposed by
    // what outlasts its GEMMs.
    const double input_grad_s = 16.0 * (named_op_s(in, "qkv_proj_dgrad") + named_op_s(in, "mlp_up_dgrad"));
    const double weight_grad_s = 16.0 * (named_op_s(in, "qkv_proj_wgrad") + named_op_s(in, "mlp_up_wgrad"));
    const double hidden_s = std::min(16.0 * 2.0 * ag, input_grad_s) + std::min(16.0 * 2.0 * rs, weight_grad_s);
    CHECK(hidden_s > 0.0);
    CHECK(chunk.tp_backward_s == doctest::Approx(16.0 * (4.0 * ag + 2.0 * rs) - hidden_s).epsilon(1e-12));
    CHECK(chunk.tp_hidden_backward_s == doctest::Approx(hidden_s).epsilon(1e-12));
    CHECK(chunk.grad_reduce_s == chunk.grad_reduce.seconds);
    CHECK(chunk.param_gather_s == chunk.param_gather.seconds);
    CHECK(chunk.cp_forward_s == 0.0);
    CHECK(chunk.dp_before_forward_s == 0.0);
    CHECK(chunk.dp_after_backward_s == 0.0);
  }
}

TEST_CASE("collective records: a context-parallel ring that spans nodes steps at the pace of its cross-node hops") {
  // Llama 3 8B, TP 2 x CP 4 on 2 nodes of 4 GPUs: two CP ranks a node, so the ring's hops alternate
  // between NVLink and the network. Each rank waits for its K/V block before the next step: the
  // step is the network hop. One K/V block: b x s/cp x 2 x (8 k/v heads / 2) x 128 x 2 bytes.
  StepInputs in = small_layout();
  in.parallelism = {.tp = 2, .pp = 1, .dp = 1, .cp = 4, .vp = 1, .sp = true, .zero = 1};
  in.training.global_batch = 1;
  const double kv_block = 1024.0 * 2.0 * 4.0 * 128.0 * 2.0;
  const StepPlan spanning = plan_step(in);
  check_record(spanning.layer.cp_kv, CollectiveOp::send_recv, kv_block, {.ranks = 2, .ranks_per_node = 1},
               CommScope::cp, in);
  CHECK(spanning.layer.cp_hops == 3.0);
  // On one node of 8 the whole ring is on NVLink.
  in.cluster.gpus_per_node = 8;
  in.cluster.nics_per_node = 8;
  const StepPlan one_node = plan_step(in);
  check_record(one_node.layer.cp_kv, CollectiveOp::send_recv, kv_block, {.ranks = 2, .ranks_per_node = 2},
               CommScope::cp, in);
  CHECK(one_node.layer.cp_kv.seconds < spanning.layer.cp_kv.seconds);
}

TEST_CASE("collective records: a context-parallel communicator held to one CTA sends at half a channel's rate") {
  // The ring of the test above on one node of 8 H100: each hop's K/V block, 2 MiB, on NVLink in
  // NCCL's own time; with max_ctas 1 the CTA's send warps move half of NCCL's per-channel ceiling
  // for the Simple protocol a send/receive of that size runs, 38.7 / 2 GB/s on Hopper (tuning.cc
  // perChMaxTreeBws; enqueue.cc: LL or Simple, never LL128; sendrecv.h splits the warps). A ring
  // all-gather's channel is held to the LL128 ring's ceiling, 36.7 GB/s (perChMaxRingLL128Bws).
  StepInputs in = cp_ring_on_one_node();
  const double kv_block = 1024.0 * 2.0 * 4.0 * 128.0 * 2.0;
  const StepPlan free_plan = plan_step(in);
  in.parallelism.cp_max_ctas = 1;
  const StepPlan held = plan_step(in);
  CHECK(held.layer.cp_kv.bytes == kv_block);
  // The hop keeps its protocol's latency and moves its bytes at the capped rate.
  const auto latency_s = [&](const CollectiveRecord& r) {
    return collective_protocol(r.op, r.bytes, r.group, in.cluster, in.comm).latency_s;
  };
  CHECK(held.layer.cp_kv.send_cap_bytes_per_s == doctest::Approx(38.7e9 / 2.0).epsilon(1e-12));
  CHECK(held.layer.cp_kv.seconds ==
        doctest::Approx(latency_s(held.layer.cp_kv) + kv_block / (38.7e9 / 2.0)).epsilon(1e-12));
  CHECK(latency_s(held.layer.cp_kv) < 0.1 * held.layer.cp_kv.seconds);
  CHECK(free_plan.layer.cp_kv.seconds < held.layer.cp_kv.seconds);
  // Two CTAs double the rate; the other communicators keep NCCL's own time.
  in.parallelism.cp_max_ctas = 2;
  const StepPlan two = plan_step(in);
  CHECK(two.layer.cp_kv.seconds == doctest::Approx(std::max(free_plan.layer.cp_kv.seconds,
                                                            latency_s(two.layer.cp_kv) + kv_block / 38.7e9)));
  CHECK(two.layer.tp[0].seconds == free_plan.layer.tp[0].seconds);
  // A ring all-gather's channel sends and receives in one pass: each rank sends 3/4 of the four
  // blocks at the whole channel rate.
  in.parallelism.cp_comm = CpComm::all_gather;
  in.parallelism.cp_max_ctas = 1;
  const StepPlan gather = plan_step(in);
  CHECK(gather.layer.cp_gather.send_cap_bytes_per_s == doctest::Approx(36.7e9).epsilon(1e-12));
  CHECK(gather.layer.cp_gather.seconds ==
        doctest::Approx(latency_s(gather.layer.cp_gather) + 0.75 * 4.0 * kv_block / 36.7e9).epsilon(1e-12));
}

TEST_CASE("collective records: capped pieces summed into one traffic take the sum of their times at their caps") {
  // 30 MB at 20 GB/s (1.5 ms) then 10 MB at 40 GB/s (0.25 ms): 40 MB in 1.75 ms; an uncapped piece
  // adds its bytes and no time at the cap.
  Traffic sum{.ring_bytes = 30e6, .latency_s = 1e-6, .send_cap_bytes_per_s = 20e9};
  sum += Traffic{.all_to_all_bytes = 10e6, .latency_s = 2e-6, .send_cap_bytes_per_s = 40e9};
  CHECK(sum.send_cap_bytes_per_s == doctest::Approx(40e6 / 1.75e-3).epsilon(1e-12));
  CHECK(sum.latency_s == doctest::Approx(3e-6));
  sum += Traffic{.ring_bytes = 35e6};
  CHECK(sum.send_cap_bytes_per_s == doctest::Approx(75e6 / 1.75e-3).epsilon(1e-12));
  Traffic free{.ring_bytes = 1e6};
  free += Traffic{.ring_bytes = 2e6};
  CHECK(std::isinf(free.send_cap_bytes_per_s));
  // Scaling keeps the cap: twice the bytes take twice the time.
  CHECK(sum.scaled(2.0).send_cap_bytes_per_s == sum.send_cap_bytes_per_s);
}

TEST_CASE("collective records: a ring hop hides only behind one ring step's attention, the rest waits on the stream") {
  // Transformer Engine's p2p ring sends the next K/V block beside the current block's attention
  // and the next step waits for it: a hop hides behind 1 / cp of the layer's attention (forward),
  // and the backward's hop, K, V and their gradients, behind 1 / cp of the backward's. The ring of
  // the tests above (TP 2 x CP 4 on one node of 8 H100), held to one CTA so that a hop outlasts a
  // step's attention: by hand from the layer's attention op times, the hidden share of each hop,
  // what the chunk's 32 layers x 3 hops leave beside the compute and what they put on the stream.
  StepInputs in = cp_ring_on_one_node();
  in.parallelism.cp_max_ctas = 1;
  const StepPlan plan = plan_step(in);
  const LayerCosts layer = layer_costs(in.model, in.parallelism, in.training);
  const auto attention_s = [&](const OpList& ops) {
    double s = 0.0;
    for (const OpCost& op : ops)
      if (op.kind == OpKind::attention) s += op_time_s(op, in.cluster.gpu, in.compute, in.training.precision);
    return s;
  };
  const double hop_s = plan.layer.cp_kv.seconds;
  const double hidden_forward = std::min(1.0, attention_s(layer.forward) / 4.0 / hop_s);
  const double hidden_backward = std::min(1.0, attention_s(layer.backward) / 4.0 / (2.0 * hop_s));
  CHECK(hidden_forward < 1.0);
  CHECK(plan.layer.cp_kv_hidden_forward == doctest::Approx(hidden_forward).epsilon(1e-12));
  CHECK(plan.layer.cp_kv_hidden_backward == doctest::Approx(hidden_backward).epsilon(1e-12));
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const double hops = 32.0 * 3.0;
  CHECK(chunk.cp_forward_s == doctest::Approx(hops * hop_s * hidden_forward).epsilon(1e-12));
  CHECK(chunk.cp_before_forward_s == doctest::Approx(hops * hop_s * (1.0 - hidden_forward)).epsilon(1e-12));
  CHECK(chunk.cp_backward_s == doctest::Approx(hops * 2.0 * hop_s * hidden_backward).epsilon(1e-12));
  CHECK(chunk.cp_before_backward_s == doctest::Approx(hops * 2.0 * hop_s * (1.0 - hidden_backward)).epsilon(1e-12));
  // At NCCL's own rate the hops are shorter: more of each hides, less waits on the stream.
  in.parallelism.cp_max_ctas = 0;
  const StepPlan free_plan = plan_step(in);
  CHECK(free_plan.layer.cp_kv_hidden_forward > hidden_forward);
  CHECK(free_plan.stages[0].chunks.front().cp_before_forward_s < chunk.cp_before_forward_s);
}

TEST_CASE("collective records: all_gather context parallelism gathers the sequence's K and V before each attention") {
  // Llama 3 8B, TP 2 x CP 4 on 2 nodes of 4 (as the ring above). Megatron-Core (Transformer
  // Engine's all_gather): each layer gathers every rank's block before its forward and its
  // backward attention, and reduce-scatters the blocks' gradients after the backward's, all on the
  // stream: nothing beside the compute. The gathered buffer holds cp blocks.
  StepInputs in = small_layout();
  in.parallelism = {.tp = 2, .pp = 1, .dp = 1, .cp = 4, .cp_comm = CpComm::all_gather, .vp = 1, .sp = true, .zero = 1};
  in.training.global_batch = 1;
  const double kv_block = 1024.0 * 2.0 * 4.0 * 128.0 * 2.0;
  const CommGroup cp_group{.ranks = 4, .ranks_per_node = 2};
  const StepPlan plan = plan_step(in);
  check_record(plan.layer.cp_gather, CollectiveOp::all_gather, 4.0 * kv_block, cp_group, CommScope::cp, in);
  check_record(plan.layer.cp_scatter, CollectiveOp::reduce_scatter, 4.0 * kv_block, cp_group, CommScope::cp, in);
  CHECK(plan.layer.cp_hops == 0.0);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const double layers = 32.0;
  CHECK(chunk.cp_before_forward_s == doctest::Approx(layers * plan.layer.cp_gather.seconds).epsilon(1e-12));
  CHECK(chunk.cp_before_backward_s == doctest::Approx(layers * plan.layer.cp_gather.seconds).epsilon(1e-12));
  CHECK(chunk.cp_after_backward_s == doctest::Approx(layers * plan.layer.cp_scatter.seconds).epsilon(1e-12));
  CHECK(chunk.cp_after_forward_s == 0.0);
  CHECK(chunk.cp_forward_s == 0.0);
  CHECK(chunk.cp_backward_s == 0.0);
  // A full recompute redoes each layer's forward in the backward, its gather included: two gathers
  // before the backward's attention, the reduce-scatter once.
  const Recompute kept = in.training.recompute;
  in.training.recompute = Recompute::full;
  const StepPlan recomputed = plan_step(in);
  const ChunkCosts& again = recomputed.stages[0].chunks.front();
  CHECK(again.cp_before_backward_s == doctest::Approx(2.0 * layers * recomputed.layer.cp_gather.seconds).epsilon(1e-12));
  CHECK(again.cp_after_backward_s == doctest::Approx(layers * recomputed.layer.cp_scatter.seconds).epsilon(1e-12));
  in.training.recompute = kept;

  // PyTorch's (torchtitan's default): the gather runs beside the attention of the rank's own
  // block, 1 / cp of the layer's attention, and the backward passes the blocks' fp32 gradients
  // around the ring beside the compute. What the block hides, the stream does not wait for:
  // beside + before = every layer's gather.
  in.training.framework = Framework::torchtitan;
  const StepPlan pytorch = plan_step(in);
  const ChunkCosts& split = pytorch.stages[0].chunks.front();
  CHECK(pytorch.layer.cp_scatter.group.ranks == 1);
  check_record(pytorch.layer.cp_kv, CollectiveOp::send_recv, 2.0 * kv_block, {.ranks = 2, .ranks_per_node = 1},
               CommScope::cp, in);
  CHECK(pytorch.layer.cp_hops == 3.0);
  const LayerCosts costs = layer_costs(in.model, in.parallelism, in.training);
  double attention_s = 0.0;
  for (const OpCost& op : costs.forward)
    if (op.kind == OpKind::attention) attention_s += op_time_s(op, in.cluster.gpu, in.compute, in.training.precision);
  const double hidden = std::min(1.0, attention_s / 4.0 / pytorch.layer.cp_gather.seconds);
  CHECK(pytorch.layer.cp_gather_hidden_forward == doctest::Approx(hidden).epsilon(1e-9));
  CHECK(split.cp_forward_s + split.cp_before_forward_s ==
        doctest::Approx(layers * pytorch.layer.cp_gather.seconds).epsilon(1e-12));
  CHECK(split.cp_before_forward_s == doctest::Approx(layers * (1.0 - hidden) * pytorch.layer.cp_gather.seconds));
  CHECK(split.cp_after_backward_s == 0.0);

  // torchtitan's Llama before 2026 copied k and v to the query heads before SDPA (repeat_kv), so
  // the gather and the gradients' ring move 16 heads a rank where the groups are 4: 4 x the bytes.
  in.training.repeat_kv = true;
  const StepPlan repeated = plan_step(in);
  check_record(repeated.layer.cp_gather, CollectiveOp::all_gather, 4.0 * 4.0 * kv_block, cp_group, CommScope::cp, in);
  check_record(repeated.layer.cp_kv, CollectiveOp::send_recv, 4.0 * 2.0 * kv_block, {.ranks = 2, .ranks_per_node = 1},
               CommScope::cp, in);
}

TEST_CASE("collective records: a2a context parallelism trades the sequence for heads around the attention") {
  // DeepSpeed-Ulysses: each rank sends its tokens of every head out and takes every token of its
  // heads / cp heads in. Llama 3 8B, TP 2 x CP 4: per rank 16 query heads of 128 (2,048 wide),
  // 4 key/value heads of 128 + 128 (1,024 wide), the output 2,048 wide, 1,024 tokens, bf16.
  StepInputs in = small_layout();
  in.parallelism = {.tp = 2, .pp = 1, .dp = 1, .cp = 4, .cp_comm = CpComm::a2a, .vp = 1, .sp = true, .zero = 1};
  in.training.global_batch = 1;
  const CommGroup cp_group{.ranks = 4, .ranks_per_node = 2};
  const StepPlan plan = plan_step(in);
  check_record(plan.layer.cp_heads_in, CollectiveOp::all_to_all, 1024.0 * (2048.0 + 1024.0) * 2.0, cp_group,
               CommScope::cp, in);
  check_record(plan.layer.cp_heads_out, CollectiveOp::all_to_all, 1024.0 * 2048.0 * 2.0, cp_group, CommScope::cp, in);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const double in_s = plan.layer.cp_heads_in.seconds, out_s = plan.layer.cp_heads_out.seconds;
  // Forward: q, k, v in before the attention, the output out after; the backward the output
  // gradient in and the three gradients out.
  CHECK(chunk.cp_before_forward_s == doctest::Approx(32.0 * in_s).epsilon(1e-12));
  CHECK(chunk.cp_after_forward_s == doctest::Approx(32.0 * out_s).epsilon(1e-12));
  CHECK(chunk.cp_before_backward_s == doctest::Approx(32.0 * out_s).epsilon(1e-12));
  CHECK(chunk.cp_after_backward_s == doctest::Approx(32.0 * in_s).epsilon(1e-12));
  CHECK(chunk.cp_forward_s == 0.0);

  // a2a+p2p in all-to-all groups of 2 (one node each): the same all-to-alls over 2 ranks, then the
  // ring across the 2 groups, one hop of a block as large as p2p's (2 x 2 key/value heads of the
  // group's 2,048 tokens, or 4 heads of 1,024) forward, K, V and their gradients backward.
  in.parallelism.cp_comm = CpComm::a2a_p2p;
  in.parallelism.cp_a2a_ranks = 2;
  const StepPlan hierarchical = plan_step(in);
  check_record(hierarchical.layer.cp_heads_in, CollectiveOp::all_to_all, 1024.0 * (2048.0 + 1024.0) * 2.0,
               {.ranks = 2, .ranks_per_node = 2}, CommScope::cp_inner, in);
  check_record(hierarchical.layer.cp_kv, CollectiveOp::send_recv, 1024.0 * 2.0 * 4.0 * 128.0 * 2.0,
               {.ranks = 2, .ranks_per_node = 1}, CommScope::cp_outer, in);
  CHECK(hierarchical.layer.cp_hops == 1.0);
  // The hop crosses nodes and outlasts a ring step's attention: what that hides runs beside the
  // compute, the rest before the pass (the test above derives the shares).
  const ChunkCosts& both = hierarchical.stages[0].chunks.front();
  const double hidden_forward = hierarchical.layer.cp_kv_hidden_forward;
  const double hidden_backward = hierarchical.layer.cp_kv_hidden_backward;
  CHECK(hidden_forward < 1.0);
  CHECK(both.cp_forward_s == doctest::Approx(32.0 * hierarchical.layer.cp_kv.seconds * hidden_forward).epsilon(1e-12));
  CHECK(both.cp_backward_s == doctest::Approx(64.0 * hierarchical.layer.cp_kv.seconds * hidden_backward).epsilon(1e-12));
  // Under flow each of the 8 ranks sends half its buffer to the other rank of its group: 4 buffers
  // a layer, 32 layers; and the unhidden share of each layer's hop, one block a rank, at the
  // cross-node send's share of the rate (as more bytes).
  const double buffer = 1024.0 * (2048.0 + 1024.0) * 2.0;
  const double block = 1024.0 * 2.0 * 4.0 * 128.0 * 2.0;
  CHECK(lower_task_alone(in, cp_before_comm(hierarchical, both, true), 0).bytes ==
        doctest::Approx(32.0 * 4.0 * buffer + 8.0 * 32.0 * (1.0 - hidden_forward) * block / in.comm.p2p_network_share));
  in.parallelism.cp_comm = CpComm::a2a;
  in.parallelism.cp_a2a_ranks = 0;

  // On the stream, the stage's CP time is their sum, once for each of the step's micro-batches
  // (with the gradient reduction and the parameter gather after the step's passes, so that no
  // data-parallel traffic shares the network with them).
  in.training.global_batch = 2;
  in.training.overlap_grad_reduce = false;
  in.training.overlap_param_gather = false;
  const StepReport report = step_report(in);
  const StepPlan two = plan_step(in);
  const ChunkCosts& c = two.stages[0].chunks.front();
  CHECK(report.times.stages[0].cp_comm_s ==
        doctest::Approx(2.0 * (c.cp_before_forward_s + c.cp_after_forward_s + c.cp_before_backward_s +
                               c.cp_after_backward_s))
            .epsilon(1e-6));
}

TEST_CASE("collective records: the flow lowering sends what the records say") {
  const StepInputs in = small_layout();
  const StepPlan plan = plan_step(in);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  // One NVLink step; a byte takes NCCL's low-latency protocol, the line's own latency.
  const double nvlink_latency_s = in.comm.launch_latency_s + in.comm.nvlink_hop_latency_s;
  CHECK(collective_protocol(CollectiveOp::all_gather, 1.0, node_pair, in.cluster, in.comm).latency_s == nvlink_latency_s);
  // MiB-sized buffers take Simple: NCCL v2.8.4's 4.8 us more base and 2.93 us more per NVLink hop.
  const double simple_latency_s = nvlink_latency_s + 4.8e-6 + 2.93e-6;

  // Tensor parallel, one forward pass: each of the 2 ranks of both replicas sends 16 layers x 2 x
  // (1/2 + 1/2) x the activation around its ring: 4 x 32 x 32 MiB.
  const Sent tp = lower_task_alone(in, tp_comm(plan, chunk, true), 0);
  CHECK(tp.bytes == 4.0 * 32.0 * kActivation);
  CHECK(tp.latency_ns == clustersim::sim::Time::from_seconds(16.0 * (2.0 * (simple_latency_s + simple_latency_s))).ns());
  const Traffic traffic = comm_traffic(tp_comm(plan, chunk, true).span(), in.cluster, in.comm);
  CHECK(traffic.ring_bytes == 32.0 * kActivation);
  CHECK(traffic.all_reduce_bytes == 0.0);

  // The gradient reduce-scatter, once a step: half the chunk's fp32 gradients (twice its bf16
  // parameter bytes) from each of the 2 ranks of both tensor ranks' data-parallel groups.
  const Sent reduce = lower_task_alone(in, grad_reduce_comm(plan, chunk), 0);
  CHECK(reduce.bytes == 4.0 * 0.5 * 2.0 * kChunkParameterBytes);
  CHECK(reduce.latency_ns == clustersim::sim::Time::from_seconds(simple_latency_s).ns());
  // A bucket of a quarter moves a quarter.
  CHECK(lower_task_alone(in, grad_reduce_comm(plan, chunk, 0.25), 0).bytes == 0.25 * reduce.bytes);

  // The forward send: each of stage 0's 4 ranks sends its half of the activation across the
  // network, through NCCL's network proxy (its round trips, and its share of the rate as more bytes).
  const Sent send = lower_task_alone(in, send_comm(plan.stages[0], true), 0);
  CHECK(send.bytes == doctest::Approx(4.0 * kActivation / 2.0 / in.comm.p2p_network_share));
  CHECK(send.latency_ns == clustersim::sim::Time::from_seconds(in.comm.launch_latency_s + in.comm.network_hop_latency_s +
                                                               in.comm.p2p_network_latency_s)
                               .ns());
}

TEST_CASE("collective records: Megatron-FSDP gathers and reduces each unit around every pass") {
  StepInputs in = small_layout();
  in.parallelism.zero = 3;
  in.parallelism.sharding = ShardingFramework::megatron_fsdp;  // per pass under a pipeline too
  in.training.overlap_grad_reduce = false;
  const StepPlan plan = plan_step(in);
  CHECK(plan.gathers_per_pass);
  CHECK(plan.reduces_per_pass);
  CHECK(plan.reshard_after_forward);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  // No once-a-step reduction or gather.
  CHECK(grad_reduce_comm(plan, chunk).count == 0);
  CHECK(param_gather_comm(plan, chunk).count == 0);
  CHECK(chunk.grad_reduce_s == 0.0);
  CHECK(chunk.param_gather_s == 0.0);
  // Stage 0's chunk: 16 blocks and the embedding, 17 units of the average size; bf16 gathers,
  // fp32 reduce-scatters (Megatron's defaults), both over the 2 data-parallel ranks.
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  CHECK(chunk.units == 17.0);
  CHECK(chunk.prefetched_forward == 16.0);
  CHECK(chunk.prefetched_backward == 16.0);
  check_record(chunk.unit_gather, CollectiveOp::all_gather, kChunkParameterBytes / 17.0, node_pair, CommScope::dp_shard, in);
  check_record(chunk.unit_reduce, CollectiveOp::reduce_scatter, 2.0 * kChunkParameterBytes / 17.0, node_pair,
               CommScope::dp_shard, in);
  CHECK(chunk.unit_replica_reduce.group.ranks == 1);  // no hybrid sharding
  // Prefetch: the first gather blocks, the other 16 run under the compute, forward and backward;
  // without overlap the 17 reduce-scatters follow the backward.
  const double g = chunk.unit_gather.seconds, r = chunk.unit_reduce.seconds;
  CHECK(chunk.dp_before_forward_s == doctest::Approx(g).epsilon(1e-12));
  CHECK(chunk.dp_before_backward_s == doctest::Approx(g).epsilon(1e-12));
  CHECK(chunk.dp_beside_forward_s == doctest::Approx(16.0 * g).epsilon(1e-12));
  CHECK(chunk.dp_beside_backward_s == doctest::Approx(16.0 * g).epsilon(1e-12));
  CHECK(chunk.dp_after_backward_s == doctest::Approx(17.0 * r).epsilon(1e-12));
  CHECK(chunk.dp_tail_backward_s == 0.0);
  const CommParts after = dp_after_comm(plan, chunk);
  REQUIRE(after.count == 1);
  CHECK(after.parts[0].first == &chunk.unit_reduce);

  // Overlapped reductions: 16 beside the backward, the last one after it.
  in.training.overlap_grad_reduce = true;
  const StepPlan overlapped = plan_step(in);
  const ChunkCosts& o = overlapped.stages[0].chunks.front();
  CHECK(o.dp_beside_backward_s == doctest::Approx(16.0 * (g + r)).epsilon(1e-12));
  CHECK(o.dp_tail_backward_s == doctest::Approx(r).epsilon(1e-12));
  CHECK(o.dp_after_backward_s == 0.0);

  // FSDP2 (per pass without a pipeline: 32 blocks and both ends, 34 units) copies each gathered
  // unit out to its parameters on the compute stream (a read and a write of the 16-bit buffer at
  // HBM rate), and each unit's bf16 gradients into the fp32 reduce-scatter buffer (2 + 4 bytes a
  // parameter); FSDP1 gathers into the flat parameter itself.
  const double hbm = 3.35e12 * in.compute.hbm_efficiency.value;
  StepInputs fsdp2 = in;
  fsdp2.parallelism.sharding = ShardingFramework::fsdp2;
  fsdp2.parallelism.pp = 1;
  fsdp2.parallelism.dp = 4;
  StepInputs fsdp1 = fsdp2;
  fsdp1.parallelism.sharding = ShardingFramework::fsdp1;
  const StepPlan fsdp2_plan = plan_step(fsdp2), fsdp1_plan = plan_step(fsdp1);
  const ChunkCosts& c = fsdp2_plan.stages[0].chunks.front();
  const ChunkCosts& f = fsdp1_plan.stages[0].chunks.front();
  REQUIRE(c.units == 34.0);
  CHECK(c.unit_gather.staging_s == 0.0);  // not the collective's: the compute's
  CHECK((c.forward_s - c.interference_forward_s) - (f.forward_s - f.interference_forward_s) ==
        doctest::Approx(34.0 * 2.0 * c.unit_gather.bytes / hbm).epsilon(1e-9));
  CHECK((c.backward_s - c.interference_backward_s) - (f.backward_s - f.interference_backward_s) ==
        doctest::Approx(34.0 * 2.0 * c.unit_gather.bytes / hbm + 34.0 * 1.5 * c.unit_reduce.bytes / hbm)
            .epsilon(1e-9));

  // No prefetch: every gather blocks its pass.
  in.training.overlap_param_gather = false;
  const StepPlan blocking = plan_step(in);
  const ChunkCosts& b = blocking.stages[0].chunks.front();
  CHECK(b.prefetched_forward == 0.0);
  CHECK(b.dp_before_forward_s == doctest::Approx(17.0 * g).epsilon(1e-12));
  CHECK(b.dp_beside_forward_s == 0.0);
}

TEST_CASE("collective records: DeepSpeed ZeRO-3 (2021) gathers each parameter tensor, each issued ahead under its live limit") {
  StepInputs in = small_layout();
  in.parallelism.zero = 3;
  in.parallelism.sharding = ShardingFramework::deepspeed_zero3_2021;
  const StepPlan plan = plan_step(in);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  // Llama layers: 9 tensors each, of which the two RMSNorm weights (4,096 elements) stay under the
  // 1e5 persistence threshold: 16 x 7 + the embedding = 113 gathers, 16 x 9 + 1 = 145 reductions.
  // Gathered per layer and tensor rank: q and o 4,096^2 / 2, k and v 4,096 x 512, gate, up and down
  // 4,096 x 14,336 / 2 = 109,051,904; with the embedding's 262,668,288, 17.8 M a gather. Every
  // tensor is far under the 1e9 live limit: the layers' 112 gathers each pass are issued ahead,
  // the embedding's blocks.
  CHECK(chunk.units == 113.0);
  CHECK(chunk.backward_units == 113.0);  // no recomputation: nothing gathered twice
  CHECK(chunk.reduce_units == 145.0);
  CHECK(chunk.prefetched_forward == 112.0);
  CHECK(chunk.prefetched_backward == 112.0);
  CHECK(chunk.dp_before_forward_s == doctest::Approx(chunk.unit_gather.seconds).epsilon(1e-12));
  CHECK(chunk.dp_beside_forward_s == doctest::Approx(112.0 * chunk.unit_gather_ahead.seconds).epsilon(1e-12));
  const double gathered_params = 16.0 * 109051904.0 + 262668288.0;
  CHECK(chunk.unit_gather.bytes == doctest::Approx(2.0 * gathered_params / 113.0).epsilon(1e-12));
  CHECK(chunk.unit_reduce.bytes == doctest::Approx(kChunkParameterBytes / 145.0).epsilon(1e-12));  // fp16
  // Each collective's list of one view per rank and PyTorch's copy per rank, untracked eager ops
  // of 5 us each per rank of the 2-rank group before the NCCL call: a gather's narrow() and copy_,
  // a reduce-scatter's view(), narrow() and copy_.
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  CHECK(chunk.unit_gather.host_s == doctest::Approx(2.0 * 2.0 * 5e-6).epsilon(1e-12));
  CHECK(chunk.unit_reduce.host_s == doctest::Approx(3.0 * 2.0 * 5e-6).epsilon(1e-12));
  // The whole buffer through HBM (3.35 TB/s at the profile's efficiency): a gather zero-fills it
  // and PyTorch copies it out of its flat buffer (3 passes), a reduce-scatter copies it in (2).
  const double hbm = 3.35e12 * in.compute.hbm_efficiency.value;
  CHECK(chunk.unit_reduce.staging_s == doctest::Approx(2.0 * chunk.unit_reduce.bytes / hbm).epsilon(1e-12));
  CHECK(chunk.unit_gather.staging_s == doctest::Approx(3.0 * chunk.unit_gather.bytes / hbm).epsilon(1e-12));
  CHECK(chunk.unit_reduce.seconds ==
        doctest::Approx(collective_time_s(CollectiveOp::reduce_scatter, chunk.unit_reduce.bytes, node_pair, in.cluster,
                                          in.comm) +
                        30e-6 + chunk.unit_reduce.staging_s)
            .epsilon(1e-12));
  // A gather issued ahead leaves its host work to the compute (DeepSpeed synchronised the device
  // first) and runs only its transfer beside it.
  CHECK(chunk.unit_gather_ahead.host_s == 0.0);
  CHECK(chunk.unit_gather_ahead.staging_s == chunk.unit_gather.staging_s);
  CHECK(chunk.unit_gather_ahead.seconds == doctest::Approx(chunk.unit_gather.seconds - 20e-6).epsilon(1e-12));
  StepInputs no_prefetch = in;
  no_prefetch.training.overlap_param_gather = false;
  const StepPlan unfetched_plan = plan_step(no_prefetch);
  const ChunkCosts& unfetched = unfetched_plan.stages[0].chunks.front();
  CHECK(unfetched.prefetched_forward == 0.0);
  CHECK(unfetched.dp_before_forward_s == doctest::Approx(113.0 * unfetched.unit_gather.seconds).epsilon(1e-12));
  // (What the transfers beside the compute take from it, overlap_cost.hpp, aside.)
  CHECK((chunk.forward_s - chunk.interference_forward_s) - (unfetched.forward_s - unfetched.interference_forward_s) ==
        doctest::Approx(112.0 * 20e-6).epsilon(1e-9));
  // Without overlapped reductions, all 145 follow the backward.
  in.training.overlap_grad_reduce = false;
  const StepPlan blocking_plan = plan_step(in);
  const ChunkCosts& blocking = blocking_plan.stages[0].chunks.front();
  CHECK(blocking.dp_after_backward_s == doctest::Approx(145.0 * blocking.unit_reduce.seconds).epsilon(1e-12));
  // FSDP2 issues one flat collective: no host work per rank.
  in.parallelism.sharding = ShardingFramework::fsdp2;
  CHECK(plan_step(in).stages[0].chunks.front().unit_reduce.host_s == 0.0);
  // Full recomputation: the backward gathers again what the recomputed forward released. Per
  // layer (forward order q, k, v, o, gate, up, down): down is kept, up has 2 x 58.7 M = 117 M of
  // parameters before its backward, under the 1e9 reuse distance, and so do all the others: none.
  in.parallelism.sharding = ShardingFramework::deepspeed_zero3_2021;
  in.training.recompute = Recompute::full;
  CHECK(plan_step(in).stages[0].chunks.front().backward_units == 113.0);
}

TEST_CASE("collective records: hybrid sharding gathers in the shard group and all-reduces shards across groups") {
  StepInputs in = small_layout();
  in.parallelism = {.tp = 1, .pp = 1, .dp = 8, .zero = 3};
  in.parallelism.shard_group = 4;
  const StepPlan plan = plan_step(in);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  // Shard groups of 4 ranks fill a node; the 2 groups' ranks of one position sit on two nodes.
  CHECK(chunk.unit_gather.group.ranks == 4);
  CHECK(chunk.unit_gather.group.ranks_per_node == 4);
  CHECK(chunk.unit_replica_reduce.op == CollectiveOp::all_reduce);
  CHECK(chunk.unit_replica_reduce.group.ranks == 2);
  CHECK(chunk.unit_replica_reduce.group.ranks_per_node == 1);
  CHECK(chunk.unit_replica_reduce.bytes == doctest::Approx(chunk.unit_reduce.bytes / 4.0).epsilon(1e-12));
  CHECK(chunk.unit_replica_reduce.scope == CommScope::dp_replica);
  // Under the flow fidelity each of the 2 groups reduce-scatters around its own ring of 4: every
  // one of the 8 ranks sends 3/4 of the buffer (one ring of 8 would send 7/8 each).
  CommParts reduce;
  reduce.add({.first = &chunk.unit_reduce});
  CHECK(lower_task_alone(in, reduce, 0).bytes == doctest::Approx(8.0 * 0.75 * chunk.unit_reduce.bytes).epsilon(1e-12));
}

TEST_CASE("collective records: tensor-parallel overlap leaves the first chunk and what the GEMMs cannot hide") {
  // Pipelining a collective of c seconds in n chunks with G seconds of GEMMs: the first chunk is
  // exposed, and whatever of the rest the other n - 1 GEMM chunks do not cover:
  // max(c / n, c - G (n - 1) / n). The gathers (half the traffic, under half the GEMMs) split
  // in n = tp = 2 chunks, the reduce-scatters in 4.
  StepInputs in = small_layout();
  const StepPlan plain = plan_step(in);
  in.parallelism.tp_comm_overlap = true;
  const StepPlan overlapped = plan_step(in);
  const ChunkCosts& p = plain.stages[1].chunks.front();
  const ChunkCosts& o = overlapped.stages[1].chunks.front();
  const double gemm_forward_s = chunk_gemm_s(in, true);
  const double c = p.tp_forward_s;
  REQUIRE(c > 0.0);
  const double expected =
      pipelined_exposed(c / 2.0, gemm_forward_s / 2.0, 2.0) + pipelined_exposed(c / 2.0, gemm_forward_s / 2.0, 4.0);
  CHECK(o.tp_forward_s == doctest::Approx(expected).epsilon(1e-12));
  CHECK(o.tp_exposed_forward == doctest::Approx(expected / c).epsilon(1e-12));
  CHECK(o.tp_forward_s < c);
}

TEST_CASE("collective records: torchtitan's async TP leaves the backward's input-gradient reduce-scatters on the stream") {
  // PyTorch's micro-pipeline TP pass fuses a reduce-scatter only with the one matmul producing its
  // input; torchtitan's separate q, k, v and gate, up linears reduce-scatter a sum of matmuls in the
  // backward: two reduce-scatters a layer of u seconds stay exposed, the rest h = c - 2 u pipelines
  // as Megatron's does all of c: max(h / n, h - G (n - 1) / n) for the gathers' and the
  // reduce-scatters' halves.
  for (const Framework framework : {Framework::megatron_core, Framework::torchtitan}) {
    CAPTURE(static_cast<int>(framework));
    StepInputs in = small_layout();
    in.training.framework = framework;
    in.training.recompute = Recompute::none;
    const StepPlan plain = plan_step(in);
    in.parallelism.tp_comm_overlap = true;
    const StepPlan overlapped = plan_step(in);
    const ChunkCosts& p = plain.stages[1].chunks.front();
    const ChunkCosts& o = overlapped.stages[1].chunks.front();
    const double gemm_backward_s = chunk_gemm_s(in, false);
    const double c = p.tp_backward_s + p.tp_hidden_backward_s;  // all of the backward's TP traffic
    REQUIRE(c > 0.0);
    const double u = framework == Framework::torchtitan ? 2.0 * 16.0 * overlapped.layer.tp_backward[1].seconds : 0.0;
    const double h = c - u;
    const double expected = u + pipelined_exposed(h / 2.0, gemm_backward_s / 2.0, 2.0) +
                            pipelined_exposed(h / 2.0, gemm_backward_s / 2.0, 4.0);
    CHECK(o.tp_backward_s == doctest::Approx(expected).epsilon(1e-12));
    CHECK(o.tp_backward_s < c);
  }
}

TEST_CASE("step comm: a tied embedding's gradient is all-reduced between the first and the last stage") {
  // Llama 3 8B with its embedding tied: the first stage's table and the last stage's output layer
  // are one 128,256 x 4,096 matrix, half of it on each tensor rank, whose fp32 gradient the two
  // stages sum before the optimizer; the stages are on different nodes.
  StepInputs in = small_layout();
  in.model.tied_embeddings = true;
  const StepPlan plan = plan_step(in);
  const double tied_grad_bytes = 128256.0 * 4096.0 / 2.0 * 4.0;
  for (const StagePlan& stage : plan.stages)
    check_record(stage.tied_grad_reduce, CollectiveOp::all_reduce, tied_grad_bytes, {.ranks = 2, .ranks_per_node = 1},
                 CommScope::pp_ends, in);
  CHECK(plan.stages.front().tied_grad_reduce.seconds > 0.0);

  // Its seconds join the step after the last backward: the step is at least that much longer than
  // the untied model's, whose output layer holds as many parameters and the same compute.
  StepInputs untied = small_layout();
  const double tied_s = simulate_step(in).report.times.step_time_s;
  const double untied_s = simulate_step(untied).report.times.step_time_s;
  CHECK(tied_s - untied_s == doctest::Approx(plan.stages.front().tied_grad_reduce.seconds).epsilon(0.05));

  SUBCASE("none without a pipeline, without tying, or under ZeRO-3") {
    StepInputs one_stage = in;
    one_stage.parallelism.pp = 1;
    one_stage.parallelism.dp = 4;
    CHECK(plan_step(one_stage).stages.front().tied_grad_reduce.seconds == 0.0);
    for (const StagePlan& stage : plan_step(untied).stages) CHECK(stage.tied_grad_reduce.seconds == 0.0);
    StepInputs sharded = in;
    sharded.parallelism.zero = 3;
    for (const StagePlan& stage : plan_step(sharded).stages) CHECK(stage.tied_grad_reduce.seconds == 0.0);
  }
  SUBCASE("the flow fidelity sends it between the two ends, pair by pair") {
    CommParts parts;
    parts.add({.first = &plan.stages.front().tied_grad_reduce});
    const Sent sent = lower_task_alone(in, parts, 0);
    // A pair for each of the dp 2 x tp 2 positions, each a ring of two ranks in which every rank
    // sends 2 (n - 1) / n = 1 gradient: 4 pairs x 2 ranks x the gradient.
    CHECK(sent.bytes == doctest::Approx(4.0 * 2.0 * tied_grad_bytes).epsilon(1e-9));
  }
}

TEST_CASE("collective records: FSDP2 under a pipeline gathers once and reduce-scatters once a step, after the last backward") {
  // PyTorch's pipelining skips every backward's reduce-scatter and reshard but the last, and
  // torchtitan keeps the parameters gathered after the forward: the stage's bf16 parameters come
  // once, its fp32 gradients go once, after its last backward (no overlap with it).
  StepInputs in = small_layout();  // pp = 2, 4 micro-batches
  in.parallelism.zero = 3;
  const StepPlan plan = plan_step(in);
  CHECK_FALSE(plan.gathers_per_pass);
  CHECK_FALSE(plan.reduces_per_pass);
  CHECK_FALSE(plan.overlap_grad_reduce);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  CHECK(chunk.units == 0.0);
  CHECK(chunk.reduce_units == 0.0);
  check_record(chunk.grad_reduce, CollectiveOp::reduce_scatter, 2.0 * kChunkParameterBytes, node_pair,
               CommScope::dp_shard, in);
  check_record(chunk.param_gather, CollectiveOp::all_gather, kChunkParameterBytes, node_pair, CommScope::dp_shard, in);
  CHECK(chunk.grad_reduce_s == chunk.grad_reduce.seconds);
  CHECK(chunk.param_gather_s == chunk.param_gather.seconds);
  CHECK(chunk.dp_before_forward_s == 0.0);
  CHECK(chunk.dp_beside_backward_s == 0.0);
  CHECK(chunk.dp_tail_backward_s == 0.0);
  // Each backward adds its bf16 gradients into the fp32 buffer: cast in the first time (2 + 4 B a
  // parameter), added after (2 + 4 + 4 B): (6 + 3 x 10) / 4 = 9 B a parameter a backward.
  const double hbm = in.cluster.gpu.hbm_bytes_per_s * in.compute.hbm_efficiency.value;
  CHECK(chunk.grad_accumulation_s == doctest::Approx(kChunkParameterBytes / 2.0 * 9.0 / hbm).epsilon(1e-12));
  // Without a pipeline FSDP2 gathers and reduces around every pass; Megatron-FSDP does under one too.
  StepInputs flat = in;
  flat.parallelism.pp = 1;
  flat.parallelism.dp = 4;
  CHECK(plan_step(flat).gathers_per_pass);
  StepInputs megatron = in;
  megatron.parallelism.sharding = ShardingFramework::megatron_fsdp;
  CHECK(plan_step(megatron).gathers_per_pass);
  CHECK(plan_step(megatron).reduces_per_pass);
}

TEST_CASE("step comm: FSDP2 under a pipeline run twice a step gathers and reduces once a run") {
  // torchtitan's gradient accumulation under PP calls the schedule once per accumulation step, and
  // PyTorch's pipelining reshards and reduce-scatters at each run's last backward, waiting for the
  // reductions before the next run, whose forward gathers again. Four micro-batches as two runs of
  // two: each run adds its bf16 gradients into an fp32 buffer of its own, cast in the first time
  // (2 + 4 B a parameter), added after (2 + 4 + 4 B): (6 + 10) / 2 = 8 B a parameter a backward.
  StepInputs in = small_layout();  // pp = 2, 4 micro-batches
  in.parallelism.zero = 3;
  in.training.pipeline_runs = 2;
  const StepPlan plan = plan_step(in);
  CHECK(plan.fsdp_syncs == 2);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const double hbm = in.cluster.gpu.hbm_bytes_per_s * in.compute.hbm_efficiency.value;
  CHECK(chunk.grad_accumulation_s == doctest::Approx(kChunkParameterBytes / 2.0 * 8.0 / hbm).epsilon(1e-12));
  // NeMo Automodel's patched backward (fsdp_sync_once) defers both to the optimizer step.
  StepInputs deferred = in;
  deferred.training.fsdp_sync_once = true;
  CHECK(plan_step(deferred).fsdp_syncs == 1);
  // The first stage's network then carries one more reduction and one more gather a step, and its
  // second run starts only once the first run's reduction is done. The step grows by that
  // reduction, less what the shorter accumulation saves the two stages' backward passes (at most
  // their whole compute difference), and by no more than the reduction and the gather, which runs
  // beside the second run.
  const StepTimes once = step_report(deferred).times;
  const StepTimes per_run = step_report(in).times;
  const double reduce = chunk.grad_reduce.seconds, gather = chunk.param_gather.seconds;
  CHECK(per_run.stages[0].dp_comm_s - once.stages[0].dp_comm_s == doctest::Approx(reduce + gather).epsilon(1e-6));
  const double saved = (once.stages[0].compute_s - per_run.stages[0].compute_s) +
                       (once.stages[1].compute_s - per_run.stages[1].compute_s);
  CHECK(saved > 0.0);
  CHECK(per_run.step_time_s - once.step_time_s >= reduce - saved);
  CHECK(per_run.step_time_s - once.step_time_s <= reduce + gather);
}

TEST_CASE("collective records: FSDP2 without a pipeline gathers and reduces once a step where the framework defers it") {
  // NeMo Automodel's enable_fsdp_optimizations (training.fsdp_sync_once): the gradient-accumulation
  // micro-batches keep the parameters gathered and the gradients unsharded; the stage's bf16
  // parameters come once and its fp32 gradients go once, as under a pipeline.
  StepInputs in = small_layout();
  in.parallelism.zero = 3;
  in.parallelism.pp = 1;
  in.parallelism.dp = 4;
  REQUIRE(plan_step(in).gathers_per_pass);  // FSDP2's own per-pass units
  in.training.fsdp_sync_once = true;
  const StepPlan plan = plan_step(in);
  CHECK_FALSE(plan.gathers_per_pass);
  CHECK_FALSE(plan.reduces_per_pass);
  CHECK_FALSE(plan.overlap_grad_reduce);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  CHECK(chunk.units == 0.0);
  CHECK(chunk.reduce_units == 0.0);
  // The one stage holds both chunks' parameters of the pipelined layout: twice the bytes, over the
  // 4 data-parallel ranks, two a node (TP 2 on nodes of 4).
  const CommGroup four{.ranks = 4, .ranks_per_node = 2};
  check_record(chunk.grad_reduce, CollectiveOp::reduce_scatter, 2.0 * 2.0 * kChunkParameterBytes, four,
               CommScope::dp_shard, in);
  check_record(chunk.param_gather, CollectiveOp::all_gather, 2.0 * kChunkParameterBytes, four, CommScope::dp_shard, in);
  // It holds the gathered parameters (2 B) and the unsharded fp32 gradients (4 B) through the step.
  const MemoryBreakdown per_pass = first_stage_memory(in, &TrainingSpec::fsdp_sync_once, false);
  const MemoryBreakdown once = step_report(in).memory_per_stage[0];
  CHECK(once.weights_bytes - per_pass.weights_bytes == doctest::Approx(once.parameters * 2.0).epsilon(1e-9));
  CHECK(once.gradients_bytes > per_pass.gradients_bytes + once.parameters * 4.0 * 0.99);
  // Only sharded parameters that stay gathered can: ZeRO-1 and Megatron-FSDP refuse it.
  StepInputs zero1 = in;
  zero1.parallelism.zero = 1;
  StepInputs megatron = in;
  megatron.parallelism.sharding = ShardingFramework::megatron_fsdp;
  check_refused({zero1, megatron}, LayoutField::training_fsdp_sync_once);
}

TEST_CASE("collective records: FSDP2 under a pipeline reduces every micro-batch where the stage is not FSDP-wrapped") {
  // training.fsdp_sync_every_micro_batch: PyTorch's pipelining runs a plain backward, so FSDP2's
  // blocks keep their defaults: each micro-batch's backward reduce-scatters its unit (the chunk's
  // 16 layers and its end layer) and each forward gathers it again; the backward reuses the
  // forward's gather, and no gradient is held unsharded between micro-batches.
  StepInputs in = small_layout();
  in.parallelism.zero = 3;
  const StepPlan once = plan_step(in);  // FSDP2's default under a pipeline
  REQUIRE_FALSE(once.gathers_per_pass);
  in.training.fsdp_sync_every_micro_batch = true;
  const StepPlan plan = plan_step(in);
  CHECK(plan.gathers_per_pass);
  CHECK(plan.reduces_per_pass);
  CHECK_FALSE(plan.reshard_after_forward);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  CHECK(chunk.units == 17.0);
  CHECK(chunk.reduce_units == 17.0);
  // A unit's gather: the chunk's parameters over its 17 units, 2 B each, over the 2 data-parallel
  // ranks (tp x dp = 4 ranks a stage, one node of 4: the pair shares a node).
  const CommGroup pair{.ranks = 2, .ranks_per_node = 2};
  CHECK(chunk.unit_gather.op == CollectiveOp::all_gather);
  CHECK(chunk.unit_gather.bytes == doctest::Approx(kChunkParameterBytes / 17.0).epsilon(1e-12));
  CHECK(chunk.unit_gather.group.ranks == pair.ranks);
  CHECK(chunk.unit_gather.group.ranks_per_node == pair.ranks_per_node);
  // Memory: the stage's parameters stay gathered through the passes, as once a step; its fp32
  // gradients are not held unsharded.
  const MemoryBreakdown every = step_report(in).memory_per_stage[0];
  const MemoryBreakdown held = first_stage_memory(in, &TrainingSpec::fsdp_sync_every_micro_batch, false);
  CHECK(every.weights_bytes == doctest::Approx(held.weights_bytes).epsilon(1e-12));
  CHECK(held.gradients_bytes - every.gradients_bytes == doctest::Approx(every.parameters * 4.0).epsilon(1e-9));
  // Beside them waits one layer's gradient (218,103,808 matrix weights over TP 2 and the norms'
  // 8,192 whole: 109,060,096 a rank): in fp32 for its reduce-scatter, where once a step holds its
  // bf16 form before adding it into the buffer.
  CHECK(every.other_bytes - held.other_bytes == doctest::Approx(109060096.0 * (4.0 - 2.0)).epsilon(1e-9));
  // Refused without a pipeline, without ZeRO-3 with fsdp2, and together with fsdp_sync_once.
  StepInputs flat = in;
  flat.parallelism.pp = 1;
  flat.parallelism.dp = 4;
  StepInputs zero1 = in;
  zero1.parallelism.zero = 1;
  StepInputs both = in;
  both.training.fsdp_sync_once = true;
  check_refused({flat, zero1, both}, LayoutField::training_fsdp_sync_every_micro_batch);
}

TEST_CASE("collective records: fp8 parameter gathers move the layers' fp8 copies, the embedding 16-bit") {
  // Llama 3 8B on TP 2: stage 0 holds 16 layers (16 x 109,056,000 = 1,744,896,000 parameters a rank)
  // and the embedding (262,668,288); the distributed optimizer gathers the layers at 1 B each.
  StepInputs in = small_layout();
  in.training.precision = Precision::fp8;
  in.training.fp8_param_gather = true;
  const StepPlan plan = plan_step(in);
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  check_record(chunk.param_gather, CollectiveOp::all_gather, 1744896000.0 + 2.0 * 262668288.0, node_pair,
               CommScope::dp, in);
  // FSDP2 without a pipeline, per unit: 34 units (32 blocks, the embedding and the output layer),
  // each at the chunk's average bytes a gathered parameter.
  StepInputs fsdp = in;
  fsdp.parallelism.zero = 3;
  fsdp.parallelism.pp = 1;
  fsdp.parallelism.dp = 4;
  const StepPlan fsdp_plan = plan_step(fsdp);
  const ChunkCosts& units = fsdp_plan.stages[0].chunks.front();
  const double layer_params = 32.0 * 109056000.0, ends = 2.0 * 262668288.0;
  CHECK(units.units == 34.0);
  CHECK(units.unit_gather.bytes == doctest::Approx((layer_params + 2.0 * ends) / 34.0).epsilon(1e-12));
  // Without the key the same units gather 2 B a parameter.
  StepInputs bf16_gather = fsdp;
  bf16_gather.training.fp8_param_gather = false;
  CHECK(plan_step(bf16_gather).stages[0].chunks.front().unit_gather.bytes ==
        doctest::Approx(2.0 * (layer_params + ends) / 34.0).epsilon(1e-12));
}

TEST_CASE("collective records: DeepSpeed's ZeRO-1 all-reduces the gradients, then gathers the updated parameters") {
  // DeepSpeed's BF16_Optimizer under the pipeline engine all-reduces the fp32 gradients and updates
  // its shard; Megatron's distributed optimizer reduce-scatters them into the shard. Both gather
  // the bf16 parameters back.
  StepInputs in = small_layout();
  in.training.framework = Framework::megatron_deepspeed;
  const StepPlan plan = plan_step(in);
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  for (const StagePlan& stage : plan.stages) {
    const ChunkCosts& chunk = stage.chunks.front();
    const double params = chunk.param_gather.bytes / 2.0;  // bf16 parameters
    check_record(chunk.grad_reduce, CollectiveOp::all_reduce, 4.0 * params, node_pair, CommScope::dp, in);
    check_record(chunk.param_gather, CollectiveOp::all_gather, 2.0 * params, node_pair, CommScope::dp, in);
  }
  StepInputs megatron = in;
  megatron.training.framework = Framework::megatron_core;
  const StepPlan megatron_plan = plan_step(megatron);
  const ChunkCosts& sharded = megatron_plan.stages[0].chunks.front();
  CHECK(sharded.grad_reduce.op == CollectiveOp::reduce_scatter);
  CHECK(sharded.grad_reduce.bytes == plan.stages[0].chunks.front().grad_reduce.bytes);
}

TEST_CASE("collective records: ZeRO-2 reduce-scatters each backward's gradients into the shard, gathers once a step") {
  // Its gradient buffer is the shard, so every micro-batch's backward reduce-scatters what it made
  // (DeepSpeed stage 2, Megatron-FSDP optim_grads), a layer at a time beside the backward; the
  // updated parameters come back once a step, as under ZeRO-1.
  StepInputs in = small_layout();
  in.parallelism.zero = 2;
  const StepPlan plan = plan_step(in);
  CHECK_FALSE(plan.gathers_per_pass);
  CHECK(plan.reduces_per_pass);
  const ChunkCosts& chunk = plan.stages[0].chunks.front();
  const CommGroup node_pair{.ranks = 2, .ranks_per_node = 2};
  // Stage 0: 16 layers and the embedding, 17 reductions of the fp32 gradients a backward.
  CHECK(chunk.reduce_units == 17.0);
  CHECK(chunk.units == 0.0);
  check_record(chunk.unit_reduce, CollectiveOp::reduce_scatter, 2.0 * kChunkParameterBytes / 17.0, node_pair,
               CommScope::dp, in);
  check_record(chunk.param_gather, CollectiveOp::all_gather, kChunkParameterBytes, node_pair, CommScope::dp, in);
  CHECK(chunk.grad_reduce_s == 0.0);
  CHECK(grad_reduce_comm(plan, chunk).count == 0);
  CHECK(chunk.param_gather_s == chunk.param_gather.seconds);
  // No gathers before or beside a pass; 16 reductions beside the backward, the last after it.
  const double r = chunk.unit_reduce.seconds;
  CHECK(chunk.dp_before_forward_s == 0.0);
  CHECK(chunk.dp_before_backward_s == 0.0);
  CHECK(chunk.dp_beside_forward_s == 0.0);
  CHECK(chunk.dp_beside_backward_s == doctest::Approx(16.0 * r).epsilon(1e-12));
  CHECK(chunk.dp_tail_backward_s == doctest::Approx(r).epsilon(1e-12));
  // The shard takes the gradients: no pass over a whole buffer to accumulate them.
  StepInputs autograd = in;
  autograd.training.grad_accumulation = GradAccumulation::autograd;
  CHECK(plan_step(autograd).stages[0].chunks.front().grad_accumulation_s == 0.0);

  // Every micro-batch reduces: the step's DP traffic is m = 4 times ZeRO-1's once-a-step reduction.
  StepInputs one = in;
  one.parallelism.zero = 1;
  const StepPlan zero1_plan = plan_step(one);
  const ChunkCosts& zero1 = zero1_plan.stages[0].chunks.front();
  REQUIRE(plan.micro_batches == 4);
  CHECK(4.0 * 17.0 * chunk.unit_reduce.bytes == doctest::Approx(4.0 * zero1.grad_reduce.bytes).epsilon(1e-12));
}

TEST_CASE("collective records: under fp8 the tensor-parallel gathers move the 1-byte casts, the reductions bf16") {
  // The layers cast their rows before they gather them (Transformer Engine's LayerNormLinear
  // gathers its fp8 ln_out, its backward the fp8 output gradient); the reduce-scatters carry the
  // GEMMs' bf16 outputs. Megatron's layers keep their fp8 input shard and gather it again.
  StepInputs in = small_layout();
  in.training.precision = Precision::fp8;
  const StepPlan plan = plan_step(in);
  CHECK(plan.layer.tp[0].bytes == kActivation / 2.0);
  CHECK(plan.layer.tp[1].bytes == kActivation);
  CHECK(plan.layer.tp_backward[0].bytes == kActivation / 2.0);
  CHECK(plan.layer.tp_backward[1].bytes == kActivation);
  CHECK(plan.layer.tp_regather.bytes == kActivation / 2.0);
  CHECK(plan.layer.tp_regathers == 2.0);
  // fp8 forward GEMMs only: the output gradients and the saved inputs stay bf16.
  in.training.fp8_backward = false;
  const StepPlan forward_only = plan_step(in);
  CHECK(forward_only.layer.tp[0].bytes == kActivation / 2.0);
  CHECK(forward_only.layer.tp_backward[0].bytes == kActivation);
  CHECK(forward_only.layer.tp_regather.bytes == kActivation);
}

TEST_CASE("collective records: PyTorch's TP backward keeps its gathered inputs and runs its collectives on the stream") {
  // torchtitan's DTensor layers saved the gathered input: no regather. Its backward's gathers and
  // reduce-scatters wait on the stream, where Megatron's run beside the GEMMs.
  StepInputs in = small_layout();
  in.training.framework = Framework::torchtitan;
  in.training.recompute = Recompute::none;
  const StepPlan titan = plan_step(in);
  CHECK(titan.layer.tp_regathers == 0.0);
  const ChunkCosts& t = titan.stages[1].chunks.front();
  CHECK(t.tp_backward_s == doctest::Approx(t.tp_forward_s).epsilon(1e-12));
  CHECK(t.tp_hidden_backward_s == 0.0);
  for (const Framework megatron : {Framework::megatron_core, Framework::megatron_lm}) {
    in.training.framework = megatron;
    const StepPlan plan = plan_step(in);
    CHECK(plan.layer.tp_regathers == 2.0);
    CHECK(plan.stages[1].chunks.front().tp_hidden_backward_s > 0.0);
  }
}

TEST_CASE("step comm: a task's bus bytes are each record's bus factor x bytes, times its repeat and scale") {
  // An all-gather of 1 GB over 8 ranks twice a layer for 3 layers, then a reduce-scatter of 2 GB over
  // 4 ranks with a 100 MB all-reduce over 2 after it, at a bucket's share of 0.5; a group of one
  // rank moves nothing.
  CollectiveRecord gather{.op = CollectiveOp::all_gather, .bytes = 1e9, .group = {.ranks = 8}};
  CollectiveRecord scatter{.op = CollectiveOp::reduce_scatter, .bytes = 2e9, .group = {.ranks = 4}};
  CollectiveRecord reduce{.op = CollectiveOp::all_reduce, .bytes = 1e8, .group = {.ranks = 2}};
  CollectiveRecord alone{.op = CollectiveOp::all_gather, .bytes = 5e9, .group = {.ranks = 1}};
  CommParts parts;
  parts.add({.first = &gather, .repeat = 2.0, .scale = 3.0});
  parts.add({.first = &scatter, .second = &reduce, .scale = 0.5});
  parts.add({.first = &alone});
  const double expected = 7.0 / 8.0 * 1e9 * 6.0 + (3.0 / 4.0 * 2e9 + 2.0 * 1.0 / 2.0 * 1e8) * 0.5;
  CHECK(comm_bus_bytes(parts.span()) == doctest::Approx(expected).epsilon(1e-12));
}
