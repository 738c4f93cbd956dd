// The step of a mixture-of-experts model: its expert-parallel all-to-alls and expert gradients,
// counted by hand from the layout.

#include <doctest/doctest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "models/comm/collectives.hpp"
#include "models/compute/compute_profile.hpp"
#include "models/compute/memory.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/spec/layout_rules.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/model_fixtures.hpp"

using namespace clustersim::models;

namespace {

StepInputs mixtral_on_64(std::int64_t ep) {
  StepInputs in;
  in.model = test::mixtral_8x7b();
  in.parallelism = {.tp = 2, .pp = 1, .dp = 32, .sp = true, .ep = ep};
  in.training = {.seq_len = 4096, .micro_batch = 1, .global_batch = 256, .recompute = Recompute::none};
  in.cluster = test::h100_cluster(64);
  in.compute = default_compute_profile("h100-sxm");
  in.comm = default_comm_profile(in.cluster);
  return in;
}

StepInputs qwen_on_64(std::int64_t ep) {
  StepInputs in = mixtral_on_64(1);
  in.model = test::qwen3_30b_a3b();
  in.parallelism = {.tp = 1, .pp = 1, .dp = 64, .ep = ep};
  return in;
}

}  // namespace

TEST_CASE("moe step: each MoE layer dispatches and combines its routed copies over the ep ranks") {
  const StepInputs in = mixtral_on_64(8);
  const StepPlan plan = plan_step(in);
  // Sequence parallelism hands each rank 4096 / 2 tokens; each goes to 2 experts: 4096 copies of
  // 4096 bf16 values leave every rank, over 8 consecutive ranks (one node).
  const CollectiveRecord& dispatch = plan.layer.ep_dispatch;
  CHECK(dispatch.op == CollectiveOp::all_to_all);
  CHECK(dispatch.bytes == doctest::Approx(2048.0 * 2.0 * 4096.0 * 2.0));
  CHECK(dispatch.group.ranks == 8);
  CHECK(dispatch.group.ranks_per_node == 8);
  const ChunkCosts& chunk = plan.stages[0].chunks[0];
  CHECK(chunk.moe_layers == 32);
  // Dispatch and combine a pass, in both passes, in every layer.
  CHECK(chunk.ep_forward_s == doctest::Approx(32.0 * 2.0 * dispatch.seconds));
  CHECK(chunk.ep_backward_s == doctest::Approx(32.0 * 2.0 * dispatch.seconds));
  // The experts' MLP runs no tensor-parallel collectives: half of a dense layer's.
  CHECK(chunk.tp_layers == doctest::Approx(16.0));
  // Expert gradients reduce over the 64 / 8 ranks that hold the same experts: one expert of
  // 3 x 4096 x 14336 per layer, fp32.
  CHECK(chunk.expert_grad_reduce.group.ranks == 8);
  CHECK(chunk.expert_grad_reduce.bytes == doctest::Approx(32.0 * 3.0 * 4096.0 * 14336.0 * 4.0));
  const StepSimulation sim = simulate_step(in);
  CHECK(sim.report.times.stages[0].ep_comm_s > 0.0);
}

TEST_CASE("moe step: with ep = 1 every expert is local, so nothing is dispatched") {
  const StepPlan plan = plan_step(mixtral_on_64(1));
  CHECK(plan.layer.ep_per_layer == 0.0);
  CHECK(plan.stages[0].chunks[0].ep_forward_s == 0.0);
  // All 64 ranks hold the same 8 experts.
  CHECK(plan.stages[0].chunks[0].expert_grad_reduce.group.ranks == 64);
}

TEST_CASE("moe step: under flow, an expert group inside a node moves what the analytic model counts") {
  StepInputs analytic = mixtral_on_64(8), flow = mixtral_on_64(8);
  flow.fidelity = CommFidelity::flow;
  // 8 consecutive ranks, one node: each sends 7/8 of its buffer over its own NVLink, which nothing
  // else uses while the blocking all-to-all runs, so the flows reach the analytic rate.
  const double a = simulate_step(analytic).report.times.stages[0].ep_comm_s;
  const double f = simulate_step(flow).report.times.stages[0].ep_comm_s;
  CHECK(a > 0.0);
  CHECK(f == test::relative(a).epsilon(0.02));
}

TEST_CASE("moe step: under flow, expert groups across nodes send through each rank's own NIC") {
  StepInputs analytic = qwen_on_64(16), flow = qwen_on_64(16);
  flow.fidelity = CommFidelity::flow;
  const StepSimulation a = simulate_step(analytic), f = simulate_step(flow);
  // Each rank of a 16-rank group on two nodes sends half its buffer to the other node: the
  // analytic model holds that to the rank's own NIC, and so do the flows' routes (GPU, its rail's
  // NIC, leaf, the peer's NIC), the two nodes' 8 rails in parallel.
  const CollectiveRecord dispatch = plan_step(analytic).layer.ep_dispatch;
  CHECK(dispatch.group.ranks_per_node == 8);
  CHECK(dispatch.seconds >= 0.5 * dispatch.bytes / (50e9 * 0.94));
  CHECK(f.report.times.stages[0].ep_comm_s == test::relative(a.report.times.stages[0].ep_comm_s).epsilon(0.1));
  StepInputs inside = qwen_on_64(8);
  inside.fidelity = CommFidelity::flow;
  CHECK(f.report.times.stages[0].ep_comm_s > 3.0 * simulate_step(inside).report.times.stages[0].ep_comm_s);
}

TEST_CASE("moe step: overlapped dispatch runs beside the compute and costs it the SMs NCCL holds") {
  StepInputs blocking = mixtral_on_64(8), overlapped = mixtral_on_64(8);
  overlapped.parallelism.ep_comm_overlap = true;
  const ChunkCosts a = plan_step(blocking).stages[0].chunks[0], b = plan_step(overlapped).stages[0].chunks[0];
  // The same all-to-alls, now beside the compute: the compute slows by the interference model.
  CHECK(b.ep_forward_s == doctest::Approx(a.ep_forward_s));
  CHECK(b.interference_forward_s > a.interference_forward_s);
  CHECK(b.forward_s - a.forward_s == doctest::Approx(b.interference_forward_s - a.interference_forward_s));
  const double t_blocking = simulate_step(blocking).report.times.step_time_s;
  const double t_overlapped = simulate_step(overlapped).report.times.step_time_s;
  // Hidden under 2.5 s of compute, about 0.1 s of all-to-all leaves the step, less the slow-down.
  CHECK(t_overlapped < t_blocking);
  CHECK(t_blocking - t_overlapped < 2.0 * (a.ep_forward_s + a.ep_backward_s) * 8.0);
}

TEST_CASE("moe step: DeepEP sends a token across the network once per node it is routed to") {
  StepInputs in = mixtral_on_64(8);
  in.model = test::qwen3_30b_a3b();  // 128 experts, top-8
  in.parallelism = {.tp = 1, .pp = 1, .dp = 64, .ep = 32};  // 4 nodes of 8 in an EP group
  const double alltoall = plan_step(in).layer.ep_dispatch.bytes;
  in.training.moe_dispatcher = MoeDispatcher::deepep;
  const double deepep = plan_step(in).layer.ep_dispatch.bytes;
  // 8 distinct experts of 128 at random miss a node's 32 with probability C(96, 8) / C(128, 8):
  // 4 x (1 - that) nodes a token, of its 8 copies.
  auto missed = [](double experts, double held) {
    double p = 1.0;
    for (int i = 0; i < 8; ++i) p *= (experts - held - i) / (experts - i);
    return p;
  };
  CHECK(deepep / alltoall == doctest::Approx(4.0 * (1.0 - missed(128, 32)) / 8.0));
  // Inside one node DeepEP sends a token once to each rank holding its experts (16 each).
  in.parallelism = {.tp = 1, .pp = 1, .dp = 64, .ep = 8};
  const double one_node = plan_step(in).layer.ep_dispatch.bytes;
  in.training.moe_dispatcher = MoeDispatcher::alltoall;
  const double one_node_alltoall = plan_step(in).layer.ep_dispatch.bytes;
  CHECK(one_node / one_node_alltoall == doctest::Approx(8.0 * (1.0 - missed(128, 16)) / 8.0));
  // Automodel's fake balanced gate: token i takes experts 8i .. 8i + 7, all on one rank of 16.
  in.training.moe_dispatcher = MoeDispatcher::deepep;
  in.training.moe_routing = MoeRouting::consecutive;
  CHECK(plan_step(in).layer.ep_dispatch.bytes / one_node_alltoall == doctest::Approx(1.0 / 8.0));
}

TEST_CASE("moe step: expert tensor parallelism splits each expert over etp consecutive ranks") {
  StepInputs in = mixtral_on_64(4);
  in.parallelism.etp = 2;  // 64 ranks: etp pairs, ep groups of 4 pairs, 8 ranks hold the same experts
  const StepPlan plan = plan_step(in);
  // Each rank routes its 4096 / 2 tokens to 2 experts: 4096 rows, gathered from both ranks of the
  // pair before the experts (and reduce-scattered after): 2 x 4096 rows of 4096 bf16 values.
  const CollectiveRecord& gather = plan.layer.etp[0];
  CHECK(gather.op == CollectiveOp::all_gather);
  CHECK(plan.layer.etp[1].op == CollectiveOp::reduce_scatter);
  CHECK(gather.group.ranks == 2);
  CHECK(gather.bytes == doctest::Approx(2.0 * 4096.0 * 4096.0 * 2.0));
  CHECK(plan.layer.ep_dispatch.group.ranks == 4);
  CHECK(plan.layer.ep_dispatch.group.ranks_per_node == 4);  // stride 2 over a node of 8
  // Expert gradients over the 64 / (4 x 2) ranks with the same half-experts: 2 experts a layer of
  // 3 x 4096 x 14336, halved, fp32.
  const ChunkCosts& chunk = plan.stages[0].chunks[0];
  CHECK(chunk.expert_grad_reduce.group.ranks == 8);
  CHECK(chunk.expert_grad_reduce.bytes == doctest::Approx(32.0 * 2.0 * 3.0 * 4096.0 * 14336.0 / 2.0 * 4.0));
  // Both passes run the gather and the reduce-scatter once a MoE layer, besides the all-to-alls.
  CHECK(chunk.ep_forward_s ==
        doctest::Approx(32.0 * (2.0 * plan.layer.ep_dispatch.seconds + gather.seconds + plan.layer.etp[1].seconds)));
  // The experts' FLOPs per rank are those of whole experts: twice the rows at half the width.
  StepInputs whole = mixtral_on_64(4);
  auto expert_flops = [](const StepInputs& s) {
    double sum = 0.0;
    for (const OpCost& op : moe_layer_costs(s.model, s.parallelism, s.training).forward)
      if (op.name.rfind("experts_", 0) == 0) sum += op.flops;
    return sum;
  };
  CHECK(expert_flops(in) == doctest::Approx(expert_flops(whole)));
  // Under flow the pair's rings run inside the node beside nothing: the analytic seconds.
  StepInputs flow = in;
  flow.fidelity = CommFidelity::flow;
  const double analytic_s = simulate_step(in).report.times.stages[0].ep_comm_s;
  CHECK(simulate_step(flow).report.times.stages[0].ep_comm_s == test::relative(analytic_s).epsilon(0.05));
}

TEST_CASE("moe step: etp rules name the field") {
  StepInputs in = mixtral_on_64(4);
  in.model.expert_ffn_hidden = 1000;
  in.parallelism = {.tp = 1, .pp = 1, .dp = 64, .ep = 4, .etp = 16};
  auto v = layout_violation(in.model, in.parallelism, in.training, in.cluster);
  REQUIRE(v.has_value());
  CHECK(v->field == LayoutField::parallelism_etp);
  CHECK(v->rule.find("16 does not divide expert_ffn_hidden=1000") == 0);
  in.model.expert_ffn_hidden = 1024;
  in.training.moe_dispatcher = MoeDispatcher::deepep;
  v = layout_violation(in.model, in.parallelism, in.training, in.cluster);
  REQUIRE(v.has_value());
  CHECK(v->field == LayoutField::parallelism_etp);
}

TEST_CASE("moe step: a capacity factor cuts the busiest rank's rows, and padding fills every expert to it") {
  StepInputs in = qwen_on_64(8);
  const double tokens_k = 4096.0 * 8.0;  // a rank's tokens x top-8
  in.training.moe_load_imbalance = 1.5;
  CHECK(moe_routed_rows(in.model, in.parallelism, in.training) == doctest::Approx(1.5 * tokens_k));
  in.training.moe_capacity_factor = 1.25;  // the busiest expert keeps 1.25 x its mean and drops the rest
  CHECK(moe_routed_rows(in.model, in.parallelism, in.training) == doctest::Approx(1.25 * tokens_k));
  CHECK(plan_step(in).layer.ep_dispatch.bytes == doctest::Approx(1.25 * tokens_k * 2048.0 * 2.0));
  in.training.moe_load_imbalance = 1.0;
  in.training.moe_capacity_factor = 2.0;  // balanced, under capacity: nothing dropped
  CHECK(moe_routed_rows(in.model, in.parallelism, in.training) == doctest::Approx(tokens_k));
  in.training.moe_pad_to_capacity = true;  // every expert runs its whole capacity
  CHECK(moe_routed_rows(in.model, in.parallelism, in.training) == doctest::Approx(2.0 * tokens_k));
  in.training.moe_capacity_factor = 0.0;
  const auto v = layout_violation(in.model, in.parallelism, in.training, in.cluster);
  REQUIRE(v.has_value());
  CHECK(v->field == LayoutField::training_moe_capacity_factor);
}

TEST_CASE("moe step: NeMo Automodel adds biased experts' biases expert by expert, other frameworks in the GEMM") {
  StepInputs in = qwen_on_64(8);  // 128 experts / 8 ranks: 16 local experts
  in.model.expert_bias = true;
  in.training.framework = Framework::nemo_automodel;
  in.training.moe_routing = MoeRouting::consecutive;  // a fixed gate: the probabilities take no gradient
  const auto find = [](const OpList& ops, std::string_view name) -> const OpCost* {
    for (const OpCost& op : ops)
      if (op.name == name) return &op;
    return nullptr;
  };
  // By hand: a rank's 4096 tokens x top-8 routed rows; the up projection's output is 2 x 768 wide
  // (SwiGLU), the down projection's 2048.
  const double rows = 4096.0 * 8.0, up = 2.0 * 768.0, h = 2048.0;
  LayerCosts costs = moe_layer_costs(in.model, in.parallelism, in.training);
  const OpCost* up_bias = find(costs.forward, "experts_up_bias");
  const OpCost* down_bias = find(costs.forward, "experts_down_bias");
  const OpCost* up_bias_bwd = find(costs.backward, "experts_up_bias_bwd");
  const OpCost* down_bias_bwd = find(costs.backward, "experts_down_bias_bwd");
  REQUIRE(up_bias != nullptr);
  REQUIRE(down_bias != nullptr);
  REQUIRE(up_bias_bwd != nullptr);
  REQUIRE(down_bias_bwd != nullptr);
  // Up: add (read + write bf16) and cat (read + write bf16); one add an expert and the cat.
  CHECK(up_bias->bytes == doctest::Approx(rows * up * (2.0 + 2.0 + 2.0 + 2.0)));
  CHECK(up_bias->kernels == 16 + 1);
  // Down: bias x fp32 probabilities (write 4), add (read 2 + 4, write 4), cat (read 4, write 4),
  // cast (read 4, write 2).
  CHECK(down_bias->bytes == doctest::Approx(rows * h * (4.0 + 10.0 + 8.0 + 6.0)));
  // Backward: up, the bias sums (read 2) and split's cat (read 2, write 2); down, the casts (6 + 6),
  // the bias sum of gradient x probabilities (write 4, read 4 + 4), split's cat (4).
  CHECK(up_bias_bwd->bytes == doctest::Approx(rows * up * 6.0));
  CHECK(down_bias_bwd->bytes == doctest::Approx(rows * h * (6.0 + 6.0 + 12.0 + 4.0)));
  // A learned router's probabilities take their gradient the same way: 12 B more.
  in.training.moe_routing = MoeRouting::uniform;
  costs = moe_layer_costs(in.model, in.parallelism, in.training);
  CHECK(find(costs.backward, "experts_down_bias_bwd")->bytes == doctest::Approx(rows * h * 40.0));
  // Full recomputation repeats the forward's bias passes.
  in.training.recompute = Recompute::full;
  costs = moe_layer_costs(in.model, in.parallelism, in.training);
  CHECK(find(costs.recompute, "experts_down_bias") != nullptr);
  // Megatron-Core's grouped GEMM adds them in its epilogue, and a model without biases adds none.
  in.training.framework = Framework::megatron_core;
  costs = moe_layer_costs(in.model, in.parallelism, in.training);
  CHECK(find(costs.forward, "experts_up_bias") == nullptr);
  in.training.framework = Framework::nemo_automodel;
  in.model.expert_bias = false;
  costs = moe_layer_costs(in.model, in.parallelism, in.training);
  CHECK(find(costs.forward, "experts_up_bias") == nullptr);
  CHECK(find(costs.backward, "experts_down_bias_bwd") == nullptr);
}

TEST_CASE("moe step: NeMo Automodel's MoE blocks reduce in fp32 under ZeRO-3, their routed experts in bf16") {
  // Qwen3-30B-A3B on 64 H100, PP 2 x DP 32, EP 8, FSDP2 on bf16 parameters: each stage gathers
  // once and reduce-scatters once a step. torchtitan reduces every parameter in the parameters'
  // bf16; NeMo Automodel's MoE parallelizer reduces the blocks in fp32 and the experts in bf16.
  StepInputs in = qwen_on_64(8);
  in.parallelism = {.tp = 1, .pp = 2, .dp = 32, .zero = 3, .sharding = ShardingFramework::fsdp2, .ep = 8};
  in.training.global_batch = 512;
  in.training.bf16_params = true;
  in.training.framework = Framework::torchtitan;
  const StepPlan bf16 = plan_step(in);
  in.training.framework = Framework::nemo_automodel;
  const StepPlan fp32_blocks = plan_step(in);
  const ChunkCosts& a = bf16.stages[0].chunks[0];
  const ChunkCosts& b = fp32_blocks.stages[0].chunks[0];
  REQUIRE(a.grad_reduce.bytes > 0.0);
  REQUIRE(a.expert_grad_reduce.bytes > 0.0);
  CHECK(b.grad_reduce.bytes == doctest::Approx(2.0 * a.grad_reduce.bytes));
  CHECK(b.expert_grad_reduce.bytes == doctest::Approx(a.expert_grad_reduce.bytes));
  // Memory: the stage's unsharded block gradients, held from the first backward to the last, take
  // 2 B a parameter more; the experts' do not, nor does the shard's gradient, which FSDP2 casts
  // back to the bf16 parameters' dtype.
  const std::int64_t layers = 24, moe_layers = 24;
  const auto memory = [&](Framework f) {
    in.training.framework = f;
    return memory_per_gpu(in.model, in.parallelism, in.training, in.cluster.gpu, layers, true, false, 2.0, moe_layers);
  };
  const MemoryBreakdown titan = memory(Framework::torchtitan), automodel = memory(Framework::nemo_automodel);
  const double experts = static_cast<double>(moe_layers) * moe_layer_expert_parameters_per_gpu(in.model, 8, 1);
  const double blocks = titan.parameters - experts;
  CHECK(automodel.gradients_bytes - titan.gradients_bytes == doctest::Approx(blocks * 2.0));
}

TEST_CASE("moe step: a fixed routing (Automodel's fake balanced gate) runs no router and takes no router gradient") {
  StepInputs in = qwen_on_64(8);
  const auto names = [](const OpList& ops) {
    std::vector<std::string_view> out;
    for (const OpCost& op : ops) out.push_back(op.name);
    return out;
  };
  const auto has = [](const std::vector<std::string_view>& v, std::string_view name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  in.training.moe_routing = MoeRouting::uniform;
  LayerCosts learned = moe_layer_costs(in.model, in.parallelism, in.training);
  CHECK(has(names(learned.forward), "router"));
  CHECK(has(names(learned.backward), "router_wgrad"));
  CHECK_FALSE(has(names(learned.forward), "fixed_gate"));
  in.training.moe_routing = MoeRouting::consecutive;
  LayerCosts fixed = moe_layer_costs(in.model, in.parallelism, in.training);
  CHECK_FALSE(has(names(fixed.forward), "router"));
  CHECK_FALSE(has(names(fixed.forward), "router_topk"));
  CHECK_FALSE(has(names(fixed.backward), "router_dgrad"));
  CHECK_FALSE(has(names(fixed.backward), "router_wgrad"));
  CHECK_FALSE(has(names(fixed.backward), "router_topk_bwd"));
  // The gate writes a rank's 4096 tokens x top-8 fp32 weights and int64 indices.
  const auto gate = std::find_if(fixed.forward.begin(), fixed.forward.end(),
                                 [](const OpCost& op) { return op.name == "fixed_gate"; });
  REQUIRE(gate != fixed.forward.end());
  CHECK(gate->bytes == doctest::Approx(4096.0 * 8.0 * (4.0 + 8.0)));
}
