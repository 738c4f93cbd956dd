#include "models/step/step_model.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "models/compute/compute_time.hpp"
#include "models/compute/flops.hpp"
#include "models/step/flow_step.hpp"
#include "models/step/pipeline_schedule.hpp"
#include "models/compute/transformer_costs.hpp"
#include "sim/engine.hpp"

namespace clustersim::models {

namespace {

constexpr double kBf16Bytes = 2.0;
// Bytes an Adam step moves per parameter of its shard: reads fp32 master, m, v and the fp32
// gradient, writes master, m, v and the bf16 weight (4 x 4 + 3 x 4 + 2).
constexpr double kAdamBytesPerParameter = 30.0;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The groups each parallel dimension talks over. Rank order, innermost first: TP, CP, DP, PP.
struct Groups {
  CommGroup tp, cp, dp, pp_neighbours;
};

Groups make_groups(const ParallelismSpec& p, const ClusterSpec& c) {
  const std::int64_t node = c.gpus_per_node;
  Groups g;
  g.tp = {.ranks = p.tp, .ranks_per_node = std::min(p.tp, node)};
  const std::int64_t cp_stride_per_node = std::max<std::int64_t>(1, node / p.tp);
  g.cp = {.ranks = p.cp, .ranks_per_node = std::min(p.cp, cp_stride_per_node)};
  // Gradients are reduced over the ranks that hold the same parameters: dp x cp of them.
  g.dp = {.ranks = p.dp * p.cp, .ranks_per_node = std::min(p.dp * p.cp, cp_stride_per_node)};
  const bool neighbours_share_node = p.tp * p.cp * p.dp < node;
  g.pp_neighbours = {.ranks = 2, .ranks_per_node = neighbours_share_node ? 2 : 1};
  return g;
}

}  // namespace

std::int64_t micro_batches_per_step(const ParallelismSpec& parallelism, const TrainingSpec& training) {
  return training.global_batch / (parallelism.dp * training.micro_batch);
}

void check_layout(const StepInputs& in) {
  if (auto violation = layout_violation(in.model, in.parallelism, in.training, in.cluster)) throw LayoutError(*violation);
}

StepPlan plan_step(const StepInputs& in) {
  check_layout(in);
  const auto& p = in.parallelism;
  const auto& t = in.training;
  const auto& model = in.model;
  const Groups groups = make_groups(p, in.cluster);
  auto time = [&](CollectiveOp op, double bytes, const CommGroup& g) {
    return collective_time_s(op, bytes, g, in.cluster, in.comm);
  };
  // The same collectives for the flow fidelity: bytes each rank sends on, and the latency.
  auto traffic = [&](CollectiveOp op, double bytes, const CommGroup& g) {
    if (g.ranks <= 1) return Traffic{};
    const double latency = collective_latency_s(op, g, in.cluster, in.comm);
    if (op == CollectiveOp::all_reduce) return Traffic{.all_reduce_bytes = bytes, .latency_s = latency};
    const double factor = op == CollectiveOp::send_recv ? 1.0 : bus_factor(op, g.ranks);
    return Traffic{.ring_bytes = factor * bytes, .latency_s = latency};
  };
  auto ops = [&](std::span<const OpCost> list) { return ops_time_s(list, in.cluster.gpu, in.compute, t.precision); };

  const LayerCosts layer = layer_costs(model, p, t);
  const HeadCosts head = head_costs(model, p, t);
  const double layer_forward_s = ops(layer.forward.span());
  const double layer_backward_s = ops(layer.backward.span()) + ops(layer.recompute.span());

  // Tensor parallel, per layer and micro-batch: 2 all-reduces of the b x s/cp x h activation each
  // way, or with sequence parallelism a reduce-scatter and an all-gather in their place.
  const double activation_bytes =
      static_cast<double>(t.micro_batch * (t.seq_len / p.cp) * model.hidden) * kBf16Bytes;
  const double tp_pass_s = p.sp ? 2.0 * (time(CollectiveOp::all_gather, activation_bytes, groups.tp) +
                                         time(CollectiveOp::reduce_scatter, activation_bytes, groups.tp))
                                : 2.0 * time(CollectiveOp::all_reduce, activation_bytes, groups.tp);
  const double tp_backward_factor = t.recompute == Recompute::full ? 2.0 : 1.0;  // redone forward
  Traffic tp_pass;
  if (p.sp) {
    tp_pass += traffic(CollectiveOp::all_gather, activation_bytes, groups.tp).scaled(2.0);
    tp_pass += traffic(CollectiveOp::reduce_scatter, activation_bytes, groups.tp).scaled(2.0);
  } else {
    tp_pass = traffic(CollectiveOp::all_reduce, activation_bytes, groups.tp).scaled(2.0);
  }

  // Context parallel (ring attention): each layer passes its K and V block around the ring, c - 1
  // hops forward and about twice that backward (K, V and their gradients).
  const double kv_heads_per_rank = static_cast<double>(std::max<std::int64_t>(1, model.kv_heads / p.tp));
  const double head_dim = static_cast<double>(model.hidden / model.heads);
  const double kv_block_bytes =
      static_cast<double>(t.micro_batch * (t.seq_len / p.cp)) * 2.0 * kv_heads_per_rank * head_dim * kBf16Bytes;
  const CommGroup cp_pair{.ranks = 2, .ranks_per_node = groups.cp.ranks_per_node > 1 ? 2 : 1};
  const double cp_hops = static_cast<double>(p.cp - 1);
  const double cp_forward_s = p.cp > 1 ? cp_hops * time(CollectiveOp::send_recv, kv_block_bytes, cp_pair) : 0.0;
  const Traffic cp_forward_traffic =
      p.cp > 1 ? traffic(CollectiveOp::send_recv, kv_block_bytes, cp_pair).scaled(cp_hops) : Traffic{};

  // Pipeline: one micro-batch's activations, split over the TP ranks (Megatron-LM's scatter/gather).
  const double send_s = time(CollectiveOp::send_recv, activation_bytes / static_cast<double>(p.tp), groups.pp_neighbours);
  const Traffic send_traffic =
      traffic(CollectiveOp::send_recv, activation_bytes / static_cast<double>(p.tp), groups.pp_neighbours);

  const std::vector<std::int64_t> split = split_layers(model.layers, p.pp, p.vp);
  const double layer_params = static_cast<double>(layer_parameters(model)) / static_cast<double>(p.tp);
  const double head_params = static_cast<double>(embedding_parameters(model)) /
                             (model.tied_embeddings ? 1.0 : 2.0) / static_cast<double>(p.tp);

  StepPlan plan;
  plan.schedule = t.schedule;
  plan.micro_batches = micro_batches_per_step(p, t);
  plan.overlap_grad_reduce = t.overlap_grad_reduce;
  plan.overlap_param_gather = t.overlap_param_gather;
  plan.stages.resize(static_cast<std::size_t>(p.pp));
  for (std::int64_t s = 0; s < p.pp; ++s) {
    StagePlan& stage = plan.stages[static_cast<std::size_t>(s)];
    stage.send_forward_s = send_s;
    stage.send_backward_s = send_s;
    stage.send_traffic = send_traffic;
    double stage_params = 0.0;
    for (std::int64_t c = 0; c < p.vp; ++c) {
      const std::int64_t index = c * p.pp + s;
      const bool first = index == 0, last = index == p.pp * p.vp - 1;
      ChunkCosts chunk;
      chunk.layers = split[static_cast<std::size_t>(index)];
      const auto layers = static_cast<double>(chunk.layers);
      chunk.forward_s = layers * layer_forward_s;
      chunk.backward_s = layers * layer_backward_s;
      double params = layers * layer_params;
      if (first) {
        chunk.forward_s += ops(head.embedding_forward.span());
        chunk.backward_s += ops(head.embedding_backward.span());
        params += head_params;
      }
      if (last) {
        chunk.forward_s += ops(head.output_forward.span());
        chunk.backward_s += ops(head.output_backward.span());
        params += head_params;
      }
      chunk.tp_forward_s = layers * tp_pass_s;
      chunk.tp_backward_s = layers * tp_pass_s * tp_backward_factor;
      chunk.tp_forward_traffic = tp_pass.scaled(layers);
      chunk.tp_backward_traffic = tp_pass.scaled(layers * tp_backward_factor);
      chunk.overlap_forward_s = layers * cp_forward_s;
      chunk.overlap_backward_s = layers * 2.0 * cp_forward_s;
      chunk.cp_forward_traffic = cp_forward_traffic.scaled(layers);
      chunk.cp_backward_traffic = cp_forward_traffic.scaled(layers * 2.0);
      const double param_bytes = params * kBf16Bytes;
      switch (p.zero) {
        case 0:
          chunk.grad_reduce_s = time(CollectiveOp::all_reduce, param_bytes, groups.dp);
          chunk.grad_reduce_traffic = traffic(CollectiveOp::all_reduce, param_bytes, groups.dp);
          break;
        case 1:
        case 2:
          chunk.grad_reduce_s = time(CollectiveOp::reduce_scatter, param_bytes, groups.dp);
          chunk.param_gather_s = time(CollectiveOp::all_gather, param_bytes, groups.dp);
          chunk.grad_reduce_traffic = traffic(CollectiveOp::reduce_scatter, param_bytes, groups.dp);
          chunk.param_gather_traffic = traffic(CollectiveOp::all_gather, param_bytes, groups.dp);
          break;
        default: {  // ZeRO-3 / FSDP: gather before each pass, reduce-scatter after each backward
          const double gather_s = time(CollectiveOp::all_gather, param_bytes, groups.dp);
          const double scatter_s = time(CollectiveOp::reduce_scatter, param_bytes, groups.dp);
          // Without overlap (no prefetch, no separate communication stream) each pass waits for
          // its parameters, and the backward for its gradients' reduce-scatter.
          const Traffic gather = traffic(CollectiveOp::all_gather, param_bytes, groups.dp);
          const Traffic scatter = traffic(CollectiveOp::reduce_scatter, param_bytes, groups.dp);
          auto place = [&](bool forward, bool overlapped, double seconds, const Traffic& moved) {
            (forward ? (overlapped ? chunk.overlap_forward_s : chunk.blocking_dp_forward_s)
                     : (overlapped ? chunk.overlap_backward_s : chunk.blocking_dp_backward_s)) += seconds;
            (forward ? (overlapped ? chunk.overlap_dp_forward_traffic : chunk.blocking_dp_forward_traffic)
                     : (overlapped ? chunk.overlap_dp_backward_traffic : chunk.blocking_dp_backward_traffic)) += moved;
          };
          place(true, t.overlap_param_gather, gather_s, gather);
          place(false, t.overlap_param_gather, gather_s, gather);
          place(false, t.overlap_grad_reduce, scatter_s, scatter);
          break;
        }
      }
      stage_params += params;
      stage.chunks.push_back(chunk);
    }
    const double shard = p.zero >= 1 ? static_cast<double>(p.dp * p.cp) : 1.0;
    stage.optimizer_s = stage_params / shard * kAdamBytesPerParameter /
                        (in.cluster.gpu.hbm_bytes_per_s * in.compute.hbm_efficiency.value);
  }
  return plan;
}

StepSimulation simulate_step(const StepInputs& in) {
  const StepPlan plan = plan_step(in);
  StepSimulation out;
  std::vector<std::string> failed;
  if (in.fidelity == CommFidelity::flow) {
    FlowNetwork network(in.cluster, in.comm);
    std::vector<sim::Resource> links = network.resources();
    for (const topologies::LinkId id : network.failed()) failed.push_back(links[id].name);
    FlowLowering lowering(network, static_cast<sim::ResourceId>(3 * plan.stages.size()));
    FlowStep flow(in.parallelism, in.cluster, in.comm, lowering);
    out.step = build_step_graph(
        plan,
        [&flow](sim::TaskGraph& graph, CommScope scope, const Traffic& traffic, sim::TaskLabel label) {
          return flow.lower(graph, scope, traffic, label);
        },
        std::move(links));
  } else {
    out.step = build_step_graph(plan);
  }
  out.timeline = sim::Engine(out.step.resources).run(out.step.graph);
  StepReport& r = out.report;
  r.failed_links = std::move(failed);
  r.times = measure_step(out.step, out.timeline);
  r.micro_batches = plan.micro_batches;
  const auto& p = in.parallelism;
  const auto& t = in.training;
  r.layers_per_chunk = split_layers(in.model.layers, p.pp, p.vp);

  const double step_s = r.times.step_time_s;
  const auto gpus = static_cast<double>(in.cluster.num_gpus);
  const double tokens = static_cast<double>(t.global_batch * t.seq_len);
  const double peak = peak_flops_per_s(in.cluster.gpu, t.precision);
  const double model_flops = model_flops_per_step(in.model, t);
  r.tokens_per_s = tokens / step_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / gpus;
  r.model_tflops_per_gpu = model_flops / step_s / gpus / 1e12;
  r.mfu = mfu(model_flops, step_s, in.cluster.num_gpus, peak);
  r.hfu = mfu(hardware_flops_per_step(in.model, t), step_s, in.cluster.num_gpus, peak);

  for (std::int64_t s = 0; s < p.pp; ++s) {
    std::int64_t stage_layers = 0;
    for (std::int64_t c = 0; c < p.vp; ++c) stage_layers += r.layers_per_chunk[static_cast<std::size_t>(c * p.pp + s)];
    const double in_flight = micro_batches_in_flight(t.schedule, p.pp, p.vp, plan.micro_batches, s);
    r.memory_per_stage.push_back(
        memory_per_gpu(in.model, p, t, stage_layers, s == 0, s == p.pp - 1, in_flight));
    if (r.memory_per_stage.back().total_bytes >
        r.memory_per_stage[static_cast<std::size_t>(r.peak_memory_stage)].total_bytes)
      r.peak_memory_stage = s;
  }
  r.fits_in_memory =
      fits_in_memory(r.memory_per_stage[static_cast<std::size_t>(r.peak_memory_stage)].total_bytes, in.cluster.gpu);

  if (p.tp > in.cluster.gpus_per_node)
    r.notes.push_back(fmt::format("tp = {} spans {} nodes: tensor-parallel collectives cross the network at "
                                  "NIC bandwidth instead of NVLink",
                                  p.tp, ceil_div(p.tp, in.cluster.gpus_per_node)));
  if (t.schedule != Schedule::gpipe && plan.micro_batches < p.pp)
    r.notes.push_back(fmt::format("{} micro-batches per step on {} stages: the pipeline never reaches its steady state",
                                  plan.micro_batches, p.pp));
  const auto [smallest, largest] = std::minmax_element(r.layers_per_chunk.begin(), r.layers_per_chunk.end());
  if (*smallest != *largest)
    r.notes.push_back(fmt::format("{} layers do not divide into pp x vp = {} chunks: {} chunks of {} layers at the "
                                  "ends, {} elsewhere",
                                  in.model.layers, p.pp * p.vp,
                                  std::count(r.layers_per_chunk.begin(), r.layers_per_chunk.end(), *smallest),
                                  *smallest, *largest));
  return out;
}

}  // namespace clustersim::models
