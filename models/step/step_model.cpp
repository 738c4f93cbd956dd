#include "models/step/step_model.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/compute/compute_time.hpp"
#include "models/compute/flops.hpp"
#include "models/compute/host_launch.hpp"
#include "models/compute/layer_tensors.hpp"
#include "models/compute/memory.hpp"
#include "models/comm/nccl_channel.hpp"
#include "models/step/flow_step.hpp"
#include "models/step/overlap_cost.hpp"
#include "models/step/periodic_step.hpp"
#include "models/step/pipeline_schedule.hpp"
#include "models/step/step_durations.hpp"
#include "models/step/step_comm.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/spec/attention_shape.hpp"
#include "models/spec/framework.hpp"
#include "models/spec/moe.hpp"
#include "models/spec/sharding.hpp"
#include "sim/engine.hpp"

namespace clustersim::models {

namespace {

constexpr double kBf16Bytes = 2.0;
// Bytes an Adam step moves per parameter of its shard. Mixed precision: it reads the fp32 master, m,
// v and the fp32 gradient and writes master, m, v and the bf16 weight (4 x 4 + 3 x 4 + 2), or no
// bf16 copy where it steps an fp32 shard in place (FSDP: 4 x 4 + 3 x 4). On bf16 parameters with
// bf16 moments (training.bf16_params) it reads and writes the parameter, m and v at 2 B and reads
// the gradient at the width it was reduced in, or under ZeRO-3 at the parameters' (FSDP2 casts the
// reduced shard back to the original dtype).
double adam_bytes_per_parameter(const ParallelismSpec& p, const TrainingSpec& t, const ShardingParameters& sharding) {
  if (t.bf16_params) {
    const double gradient = p.zero >= 3 ? kBf16Bytes : grad_dtype_bytes(t.grad_dtype);
    return 3 * 2.0 * 2.0 + gradient;
  }
  return p.zero >= 3 && sharding.optimizer_steps_shard ? 28.0 : 30.0;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// HBM bytes per parameter that adding one micro-batch's gradients into the step's buffer moves,
// averaged over the step's micro-batches (TrainingSpec::grad_accumulation): autograd's in-place
// add skips the first micro-batch, whose gradient becomes .grad as it is.
double autograd_add_bytes_per_param(std::int64_t micro_batches) {
  return 3.0 * kBf16Bytes * static_cast<double>(micro_batches - 1) / static_cast<double>(micro_batches);
}

double grad_accumulation_bytes_per_param(const TrainingSpec& t, std::int64_t micro_batches) {
  const double buffer = grad_dtype_bytes(t.grad_dtype);
  switch (t.grad_accumulation) {
    case GradAccumulation::fused: return 0.0;
    case GradAccumulation::autograd: return autograd_add_bytes_per_param(micro_batches);
    case GradAccumulation::main_grad_add: return kBf16Bytes + 2.0 * buffer;
    case GradAccumulation::fp32_cast_add: return (kBf16Bytes + 4.0) + 3.0 * 4.0;
  }
  return 0.0;
}

// FSDP2 under a pipeline (sharding.hpp): each backward adds its 16-bit gradients into the stage's
// unsharded buffer of the reduce dtype, a cast into it the first time (2 B read, 4 written a
// parameter) and an add after (2 + 4 read, 4 written); where the dtypes agree autograd adds in
// place. Averaged over the step's micro-batches.
double fsdp2_accumulation_bytes_per_param(double buffer, std::int64_t micro_batches) {
  if (buffer <= kBf16Bytes) return autograd_add_bytes_per_param(micro_batches);
  const auto m = static_cast<double>(micro_batches);
  return (kBf16Bytes + buffer + (m - 1.0) * (kBf16Bytes + 2.0 * buffer)) / m;
}

/// The groups each parallel dimension talks over. Rank order, innermost first: TP, CP, DP, PP.
struct Groups {
  CommGroup tp, cp, dp, pp_neighbours;
  CommGroup pp_ends;  // a rank of the first stage and its peer on the last
  CommGroup shard, replica;  // ZeRO-3: a shard group of the dp x cp ranks, and across the groups
  CommGroup ep, ep_dp, etp;  // MoE: an expert-parallel group, the ranks holding the same experts, an expert's ranks
};

Groups make_groups(const ParallelismSpec& p, const ClusterSpec& c) {
  // Ranks on one NVLink domain talk over NVLink: "node" below is the domain (a GB200 NVL72 rack
  // holds 18 trays), while each rank's share of the NICs stays its own tray's (collectives.cpp).
  const std::int64_t node = nvlink_domain(c);
  Groups g;
  g.tp = {.ranks = p.tp, .ranks_per_node = std::min(p.tp, node)};
  const std::int64_t cp_stride_per_node = std::max<std::int64_t>(1, node / p.tp);
  g.cp = {.ranks = p.cp, .ranks_per_node = std::min(p.cp, cp_stride_per_node)};
  // Gradients are reduced over the ranks that hold the same parameters: dp x cp of them.
  g.dp = {.ranks = p.dp * p.cp, .ranks_per_node = std::min(p.dp * p.cp, cp_stride_per_node)};
  const bool neighbours_share_node = p.tp * p.cp * p.dp < node;
  g.pp_neighbours = {.ranks = 2, .ranks_per_node = neighbours_share_node ? 2 : 1};
  const bool ends_share_node = (p.pp - 1) * p.tp * p.cp * p.dp < node;
  g.pp_ends = {.ranks = 2, .ranks_per_node = ends_share_node ? 2 : 1};
  const std::int64_t shard = p.shard_group > 0 ? p.shard_group : p.dp * p.cp;
  g.shard = {.ranks = shard, .ranks_per_node = std::min(shard, cp_stride_per_node)};
  const std::int64_t groups = p.dp * p.cp / shard;
  g.replica = {.ranks = groups,
               .ranks_per_node = std::clamp<std::int64_t>(cp_stride_per_node / shard, 1, std::max<std::int64_t>(groups, 1))};
  // Megatron-Core's expert ranks (order etp, ep, expert-dp over the stage's tp x cp x dp): etp
  // consecutive ranks split each expert, ep groups of them with stride etp form an
  // expert-parallel group, and every (ep x etp)-th rank holds the same experts.
  const std::int64_t stage_ranks = p.tp * p.cp * p.dp;
  const std::int64_t etp = std::max<std::int64_t>(1, p.etp), ep = std::max<std::int64_t>(1, p.ep);
  g.etp = {.ranks = etp, .ranks_per_node = std::min(etp, node)};
  g.ep = {.ranks = ep, .ranks_per_node = std::clamp<std::int64_t>(node / etp, 1, ep)};
  const std::int64_t ep_dp = stage_ranks / (ep * etp);
  g.ep_dp = {.ranks = ep_dp,
             .ranks_per_node = std::clamp<std::int64_t>(node / (ep * etp), 1, std::max<std::int64_t>(ep_dp, 1))};
  return g;
}

// SMs Transformer Engine's userbuffers hold while a tensor-parallel collective runs under its GEMM:
// num_sm = 1 for its ring-exchange overlaps (the all-gathers before QKV and FC1) and 16 for its
// pipelined and bulk ones (the reduce-scatters after the projection and FC2), the defaults of
// transformer_engine/pytorch/module/base.py (initialize_ub); a layer's forward runs two of each.
constexpr double kUserbufferSms = (1.0 + 16.0) / 2.0;

/// An op list's GPU seconds, in all (summed in op order, as ops_time_s does) and by what bounds
/// them, and the kernels it launches.
struct OpsTime {
  double total_s = 0.0;
  PassCompute split;
  std::int64_t kernels = 0;
  // Of the GEMMs, the column-parallel layers' input- and weight-gradient ones (OpCost::column_grad):
  // what their asynchronous backward TP collectives can hide behind.
  double column_input_grad_s = 0.0;
  double column_weight_grad_s = 0.0;
};

OpsTime time_ops(std::span<const OpCost> ops, const StepInputs& in, Precision precision) {
  OpsTime out;
  for (const OpCost& op : ops) {
    const double s = op_time_s(op, in.cluster.gpu, in.compute, precision);
    out.total_s += s;
    out.kernels += op.kernels;
    PassCompute& split = out.split;
    if (op.kind == OpKind::elementwise) {
      split.memory_bound_s += s;
    } else {
      split.compute_bound_s += s;
      if (op.kind == OpKind::gemm) split.gemm_s += s;
      if (op.column_grad == ColumnParallelGrad::input_grad) out.column_input_grad_s += s;
      if (op.column_grad == ColumnParallelGrad::weight_grad) out.column_weight_grad_s += s;
    }
  }
  return out;
}

/// An op list's seconds with the host's issue of its kernels (host_launch.hpp): the GPU time, or
/// the host time where the CPU issues the kernels slower than the GPU runs them. `captured`: a
/// layer pass, replayed as one graph with training.cuda_graphs.
double issued_s(const OpsTime& ops, const HostLaunch& host, bool captured) {
  return issued_stretch_s(ops.total_s, ops.kernels, host, captured);
}

PassCompute& operator+=(PassCompute& a, const PassCompute& b) {
  a.compute_bound_s += b.compute_bound_s;
  a.memory_bound_s += b.memory_bound_s;
  a.gemm_s += b.gemm_s;
  a.duration_s += b.duration_s;
  return a;
}

OpsTime& operator+=(OpsTime& a, const OpsTime& b) {
  a.total_s += b.total_s;
  a.split += b.split;
  a.kernels += b.kernels;
  a.column_input_grad_s += b.column_input_grad_s;
  a.column_weight_grad_s += b.column_weight_grad_s;
  return a;
}

PassCompute scaled(PassCompute p, double factor) {
  p.compute_bound_s *= factor;
  p.memory_bound_s *= factor;
  p.gemm_s *= factor;
  p.duration_s *= factor;
  return p;
}

/// The SMs a data-parallel collective holds beside the compute: its communicator's CTA limit
/// (ParallelismSpec::dp_max_ctas), or the profile's NCCL kernel's (negative).
double dp_sms_held(const ParallelismSpec& p) { return p.dp_max_ctas > 0 ? static_cast<double>(p.dp_max_ctas) : -1.0; }

/// Traffic of `parts` beside a pass: its seconds and the bus bandwidth that moves its bytes in
/// them. A task mixes collectives of different rates (a MoE layer's expert gathers over NVLink
/// beside its dense gathers across nodes), so the rate is the bytes of all over the seconds of all.
BesideTraffic beside_traffic(const CommParts& parts, double sms_held) {
  const double seconds = comm_seconds(parts.span());
  return {.seconds = seconds,
          .bus_bytes_per_s = seconds > 0.0 ? comm_bus_bytes(parts.span()) / seconds : 0.0,
          .sms_held = sms_held};
}

/// What the communication beside a chunk's pass (step_comm.hpp) costs its compute.
double pass_interference_s(const ChunkCosts& chunk, const StepPlan& plan, const PassCompute& pass, bool forward,
                           const StepInputs& in, const ParallelismSpec& p) {
  const std::array<BesideTraffic, 4> beside{
      beside_traffic(dp_beside_comm(plan, chunk, forward), dp_sms_held(p)),
      // A CP communicator held to a few CTAs holds as many SMs (ParallelismSpec::cp_max_ctas).
      beside_traffic(cp_comm(plan, chunk, forward), p.cp_max_ctas > 0 ? static_cast<double>(p.cp_max_ctas) : -1.0),
      BesideTraffic{.seconds = forward ? chunk.tp_hidden_forward_s : chunk.tp_hidden_backward_s,
                    .sms_held = kUserbufferSms,
                    .under_gemms_only = true},
      plan.ep_overlap ? beside_traffic(ep_comm(plan, chunk, forward), -1.0) : BesideTraffic{}};
  return interference_s(pass, beside, in.cluster.gpu, in.compute);
}

/// Seconds left exposed of a collective of `c` seconds split into `n` chunks pipelined with the
/// `g` seconds of GEMM it feeds or drains: the first chunk of a gather (the last of a
/// reduce-scatter) cannot overlap, and the rest hides under the GEMM's other chunks as far as
/// those last: max(c/n, c - g (n-1)/n).
double pipelined_exposed_s(double c, double g, double n) { return std::max(c / n, c - g * (n - 1.0) / n); }

/// The share of `tp_s` of a pass's tensor-parallel collectives left exposed under tensor-parallel
/// overlap, `gemm_s` the pass's GEMMs. Transformer Engine's userbuffers (Megatron-Core
/// --tp-comm-overlap) split the all-gathers feeding QKV and FC1 into tp chunks (ring exchange)
/// and the reduce-scatters draining the projection and FC2 into 4 (pipeline; num_splits in
/// transformer_engine/pytorch/module/base.py); the two halves of the layer's traffic each run
/// under about half its GEMMs.
double tp_exposed_share(double tp_s, double gemm_s, std::int64_t tp) {
  if (!(tp_s > 0.0) || tp < 2) return 1.0;
  constexpr double kPipelineSplits = 4.0;
  const double exposed = pipelined_exposed_s(tp_s / 2.0, gemm_s / 2.0, static_cast<double>(tp)) +
                         pipelined_exposed_s(tp_s / 2.0, gemm_s / 2.0, kPipelineSplits);
  return std::min(1.0, exposed / tp_s);
}

/// tp_exposed_share where `unhidden_s` of the `tp_s` stays on the stream whatever the overlap.
double tp_exposed_share_with_unhidden(double tp_s, double unhidden_s, double gemm_s, std::int64_t tp) {
  if (!(tp_s > 0.0)) return 1.0;
  const double hideable_s = std::max(0.0, tp_s - unhidden_s);
  return std::min(1.0, (unhidden_s + tp_exposed_share(hideable_s, gemm_s, tp) * hideable_s) / tp_s);
}

/// One layer's passes: the seconds the host issues them in and the GPU time by what bounds it.
struct LayerPasses {
  double forward_s = 0.0;
  double backward_s = 0.0;
  PassCompute forward;
  PassCompute backward;
  // The attention's GPU seconds in each pass, a recompute's left out.
  double attention_forward_s = 0.0;
  double attention_backward_s = 0.0;
  // The backward's column-parallel input- and weight-gradient GEMMs (OpsTime).
  double column_input_grad_s = 0.0;
  double column_weight_grad_s = 0.0;
};

/// A layer's pass is the unit the CPU issues (and a CUDA graph captures); the ends are issued
/// kernel by kernel. The splits stay GPU time: host waits leave the GPU idle, not slowed.
LayerPasses layer_passes(const LayerCosts& layer, const StepInputs& in, const TrainingSpec& t, const HostLaunch& host) {
  const OpsTime forward_ops = time_ops(layer.forward.span(), in, t.precision);
  OpsTime backward_ops = time_ops(layer.backward.span(), in, t.precision);
  const auto attention_s = [](const OpsTime& ops) { return ops.split.compute_bound_s - ops.split.gemm_s; };
  const double attention_backward_s = attention_s(backward_ops);
  backward_ops += time_ops(layer.recompute.span(), in, t.precision);  // redone in the backward's unit
  return {.forward_s = issued_s(forward_ops, host, true),
          .backward_s = issued_s(backward_ops, host, true),
          .forward = forward_ops.split,
          .backward = backward_ops.split,
          .attention_forward_s = attention_s(forward_ops),
          .attention_backward_s = attention_backward_s,
          .column_input_grad_s = backward_ops.column_input_grad_s,
          .column_weight_grad_s = backward_ops.column_weight_grad_s};
}

/// Throws LayoutError for the first rule `p` and `t` break with the inputs' model and cluster.
void require_layout(const StepInputs& in, const ParallelismSpec& p, const TrainingSpec& t) {
  if (auto violation = layout_violation(in.model, p, t, in.cluster)) throw LayoutError(*violation);
}

}  // namespace

void check_layout(const StepInputs& in) { require_layout(in, in.parallelism, in.training); }

StepPlan plan_step(const StepInputs& in) { return plan_step(in, in.parallelism, in.training); }

StepPlan plan_step(const StepInputs& in, const ParallelismSpec& p, const TrainingSpec& t) {
  require_layout(in, p, t);
  const auto& model = in.model;
  const Groups groups = make_groups(p, in.cluster);
  // The context-parallel communicators may be held to a few CTAs (ParallelismSpec::cp_max_ctas);
  // the channel rates are looked up only then, not for every layout a sweep plans. A data-parallel
  // communicator's limit (dp_max_ctas) sets the SMs it holds beside the compute (dp_sms_held), not
  // its rate: its buckets of megabytes run NCCL's Simple protocol, whose ring channel NCCL's tuning
  // model does not cap (tuning.cc caps LL128's alone), and across nodes the NICs bound it first.
  const bool cp_held = p.cp > 1 && p.cp_max_ctas > 0;
  const NcclChannelRates channel_rates = cp_held ? nccl_channel_rates(in.cluster.gpu.name) : NcclChannelRates{};
  auto collective = [&](CollectiveOp op, double bytes, const CommGroup& g, CommScope scope) {
    const CollectiveRecord record = make_collective(op, bytes, g, scope, in.cluster, in.comm);
    const bool context_parallel = scope == CommScope::cp || scope == CommScope::cp_inner || scope == CommScope::cp_outer;
    return cp_held && context_parallel
               ? held_to_ctas(record, static_cast<int>(p.cp_max_ctas), channel_rates, in.cluster, in.comm)
               : record;
  };

  const HostLaunch host = host_launch(in.host_issue, t);
  const LayerPasses dense = layer_passes(layer_costs(model, p, t), in, t, host);
  const LayerPasses moe = is_moe(model) ? layer_passes(moe_layer_costs(model, p, t), in, t, host) : LayerPasses{};
  const HeadCosts head = head_costs(model, p, t);
  const OpsTime embedding_forward = time_ops(head.embedding_forward.span(), in, t.precision);
  const OpsTime embedding_backward = time_ops(head.embedding_backward.span(), in, t.precision);
  const OpsTime output_forward = time_ops(head.output_forward.span(), in, t.precision);
  const OpsTime output_backward = time_ops(head.output_backward.span(), in, t.precision);

  StepPlan plan;
  plan.schedule = t.schedule;
  plan.micro_batches = micro_batches_per_step(p, t);
  plan.pipeline_runs = t.pipeline_runs;
  plan.microbatch_group = microbatch_group_size(p);
  const FrameworkParameters& framework = framework_parameters(t.framework);
  plan.overlap_grad_reduce = t.overlap_grad_reduce;
  plan.blocking_sends = framework.pp_blocking_sends.value;
  // ZeRO 1-2 gathers the updated parameters beside the next forward only where the framework's
  // optimizer can; under ZeRO-3 the key is the units' prefetch.
  plan.overlap_param_gather =
      t.overlap_param_gather && (p.zero >= 3 || framework.zero_param_gather_beside_forward.value);
  const ShardingParameters sharding = sharding_as_run(model, p, t);
  // FSDP2 under a pipeline (unless its stage module is unwrapped: training.fsdp_sync_every_micro_batch),
  // or where the framework defers its reduction (training.fsdp_sync_once), gathers and reduces
  // once a step, the reduction after the stage's last backward (sharding.hpp).
  const bool once_a_step = gathers_once_a_step(sharding, p.zero, p.pp, t.fsdp_sync_once, t.fsdp_sync_every_micro_batch);
  plan.gathers_per_pass = p.zero >= 3 && !once_a_step;
  plan.reduces_per_pass = p.zero >= 2 && !once_a_step;
  if (once_a_step) plan.overlap_grad_reduce = false;
  // Under a pipeline run several times a step, stock FSDP2 does it once a run.
  if (once_a_step && p.pp > 1) plan.fsdp_syncs = fsdp_syncs_per_step(t.pipeline_runs, t.fsdp_sync_once);
  const bool hides_input_grad_reduce = framework.tp_overlap_hides_input_grad_reduce.value;
  const bool zero1_all_reduces = framework.zero1_all_reduces_gradients.value;
  // What memory-bound passes over parameters and gradients run at.
  const double hbm_bytes_per_s = in.cluster.gpu.hbm_bytes_per_s * in.compute.hbm_efficiency.value;
  plan.ep_overlap = p.ep_comm_overlap;
  // Reducing every micro-batch under a pipeline, the backward still finds the forward's gather:
  // torchtitan and NeMo Automodel keep the parameters gathered after the forward when PP is on.
  plan.reshard_after_forward = sharding.reshard_after_forward && !t.fsdp_sync_every_micro_batch;

  // Tensor parallel, per layer and micro-batch: 2 all-reduces of the b x s/cp x h activation each
  // way, or with sequence parallelism all-gathers and reduce-scatters in their place. What is
  // gathered is a linear layer's input: under fp8 its cast, 1 byte an element, since the layers
  // cast their rows before the gather (fp8_casts in transformer_costs.cpp; Transformer Engine v1.8
  // layernorm_linear.py gathers the fp8 ln_out, base.py grad_output_preprocess the fp8 output
  // gradient; torchao's float8 TP, which torchtitan runs for tensorwise scaling, casts in
  // PrepareFloat8ModuleInput before the gather and, in the backward, in Float8RowwiseParallel's
  // output hook before the gradient's gather: torchao v0.8 float8/float8_tensor_parallel.py).
  // Reductions carry the bf16 GEMM outputs. The fp8 scales are not counted.
  const double activation_bytes =
      static_cast<double>(t.micro_batch * (t.seq_len / p.cp) * model.hidden) * kBf16Bytes;
  // nvfp4 gathers its cast copies likewise, at 0.5625 B an element.
  const double cast_share = gemm_input_bytes(t.precision) / kBf16Bytes;
  if (p.sp) {
    const double input_bytes = activation_bytes * cast_share;
    const double output_grad_bytes = activation_bytes * (t.fp8_backward ? cast_share : 1.0);
    const CollectiveRecord reduce = collective(CollectiveOp::reduce_scatter, activation_bytes, groups.tp, CommScope::tp);
    plan.layer.tp = {collective(CollectiveOp::all_gather, input_bytes, groups.tp, CommScope::tp), reduce};
    plan.layer.tp_backward = {collective(CollectiveOp::all_gather, output_grad_bytes, groups.tp, CommScope::tp),
                              reduce};
  } else {
    plan.layer.tp[0] = collective(CollectiveOp::all_reduce, activation_bytes, groups.tp, CommScope::tp);
    plan.layer.tp_backward = plan.layer.tp;
  }
  plan.layer.tp_per_layer = 2.0;
  plan.layer.tp_backward_factor = t.recompute == Recompute::full ? 2.0 : 1.0;  // redone forward
  // The backward's weight gradients of the column-parallel layers need their whole input again.
  // Megatron's and Transformer Engine's layers saved their sequence shard (the fp8 one where the
  // layer keeps its cast input) and gather it again. torchtitan's op-level policy keeps
  // reduce_scatter_tensor's output but recomputes all_gather_into_tensor's (its _save_list in
  // torchtitan/models/llama3/parallelize_llama.py at 820504e, June 2025; the default save ops of
  // torchtitan/distributed/activation_checkpoint.py since): the backward gathers the inputs of the
  // attention and the MLP again for the k and w3 projections it redoes and for every weight
  // gradient of those inputs.
  if (p.sp && p.tp > 1) {
    const bool recomputed = t.recompute == Recompute::op;
    if (recomputed || !framework.tp_keeps_gathered_inputs.value) {
      const bool keeps_cast = low_precision_gemms(t.precision) && t.fp8_backward &&
                              framework.fp8_keeps_quantized_inputs.value;
      const double saved_bytes = activation_bytes * (keeps_cast ? cast_share : 1.0);
      plan.layer.tp_regather = recomputed ? plan.layer.tp[0]
                                          : collective(CollectiveOp::all_gather, saved_bytes, groups.tp, CommScope::tp);
      plan.layer.tp_regathers = 2.0;
    }
  }
  // Without TP overlap, under SP: whether the regathers and the input-gradient reduce-scatters run
  // beside the column-parallel layers' input- and weight-gradient GEMMs, or on the stream.
  const bool tp_backward_beside_gemms = p.sp && p.tp > 1 && framework.tp_backward_collectives_beside_gemms.value;

  // Megatron-Core's deferred output-layer weight gradients (training.defer_embedding_wgrad): the
  // last chunk's backward of the first deferred micro-batches keeps the output layer's input and
  // logits gradient instead of running its weight-gradient GEMM (core/tensor_parallel/layers.py,
  // embedding_activation_buffer and grad_output_buffer), and core/utils.py
  // drain_embedding_wgrad_compute runs those GEMMs after the stage's last pass, all-gathering each
  // input's sequence shard beside the GEMM before it (two buffers) under sequence parallelism.
  plan.deferred_wgrad_micro_batches = deferred_wgrad_micro_batches(p, t);
  double backward_deferred_s = 0.0;
  double deferred_wgrad_s = 0.0;
  if (plan.deferred_wgrad_micro_batches > 0) {
    OpList kept;
    OpList wgrad;
    for (const OpCost& op : head.output_backward) (op.name == kOutputWeightGradOp ? wgrad : kept).push_back(op);
    backward_deferred_s =
        issued_s(output_backward, host, false) - issued_s(time_ops(kept.span(), in, t.precision), host, false);
    const double gemm_s = issued_s(time_ops(wgrad.span(), in, t.precision), host, false);
    const auto deferred = static_cast<double>(plan.deferred_wgrad_micro_batches);
    if (p.sp && p.tp > 1) {
      const double gather_s = collective(CollectiveOp::all_gather, activation_bytes, groups.tp, CommScope::tp).seconds;
      deferred_wgrad_s = gather_s + (deferred - 1.0) * std::max(gemm_s, gather_s) + gemm_s;
    } else {
      deferred_wgrad_s = deferred * gemm_s;
    }
  }

  // Context parallel, as parallelism.cp_comm exchanges the keys and values (CpComm). p2p: each
  // layer passes its K and V block around the ring, c - 1 hops forward and about twice that
  // backward (K, V and their gradients). Each hop is costed as a send between two ranks; the flow
  // fidelity runs it on the whole ring. Every rank waits for its block before the next step, so a
  // ring that spans NVLink domains advances at the pace of the hops that cross between them: the
  // pair is a cross-domain one unless the whole ring is in one.
  if (p.cp > 1) {
    // Grouped keys and values, or with training.repeat_kv the copies at the query heads' count, which
    // is what the model code hands the attention and so what context parallelism moves.
    const std::int64_t kv_heads = copies_kv_groups(model, t.repeat_kv) ? model.heads : model.kv_heads;
    const double kv_heads_per_rank = static_cast<double>(std::max<std::int64_t>(1, kv_heads / p.tp));
    const double head_dim = static_cast<double>(model.hidden / model.heads);
    const double rank_tokens = static_cast<double>(t.micro_batch * (t.seq_len / p.cp));
    const double kv_block_bytes = rank_tokens * 2.0 * kv_heads_per_rank * head_dim * kBf16Bytes;
    const CommGroup cp_pair{.ranks = 2, .ranks_per_node = groups.cp.ranks_per_node == p.cp ? 2 : 1};
    const auto cp = static_cast<double>(p.cp);
    // The share of a ring's hops the attention hides: each hop of `blocks_per_hop` blocks runs
    // beside one ring step's attention (the pass's over the ring's steps, hops + 1) and the next
    // step waits for it. Called once the hop's record and count are set.
    const auto ring_hidden = [&](double attention_s, double blocks_per_hop) {
      const double hop_s = blocks_per_hop * plan.layer.cp_kv.seconds;
      const double step_attention_s = attention_s / (plan.layer.cp_hops + 1.0);
      return hop_s > 0.0 ? std::min(1.0, step_attention_s / hop_s) : 1.0;
    };
    switch (p.cp_comm) {
      case CpComm::p2p:
        plan.layer.cp_kv = collective(CollectiveOp::send_recv, kv_block_bytes, cp_pair, CommScope::cp);
        plan.layer.cp_hops = cp - 1.0;
        plan.layer.cp_kv_hidden_forward = ring_hidden(dense.attention_forward_s, 1.0);
        plan.layer.cp_kv_hidden_backward = ring_hidden(dense.attention_backward_s, 2.0);
        break;
      case CpComm::all_gather: {
        // Every rank's K and V, gathered before each pass's attention (the backward gathers them
        // again). Where the framework issues the gather before the rank's own block and waits
        // after it, that block's attention, 1 / cp of the layer's, hides as much of it.
        plan.layer.cp_gather = collective(CollectiveOp::all_gather, kv_block_bytes * cp, groups.cp, CommScope::cp);
        if (framework.cp_gather_beside_local_block.value) {
          const auto hidden = [&](const PassCompute& pass) {
            const double local_block_s = (pass.compute_bound_s - pass.gemm_s) / cp;  // the attention's share
            return plan.layer.cp_gather.seconds > 0.0 ? std::min(1.0, local_block_s / plan.layer.cp_gather.seconds)
                                                      : 1.0;
          };
          plan.layer.cp_gather_hidden_forward = hidden(dense.forward);
          plan.layer.cp_gather_hidden_backward = hidden(dense.backward);
          // PyTorch's backward passes each block's key/value gradients around the ring in fp32.
          plan.layer.cp_kv = collective(CollectiveOp::send_recv, kv_block_bytes * 2.0, cp_pair, CommScope::cp);
          plan.layer.cp_hops = cp - 1.0;
          plan.layer.cp_kv_hidden_backward = ring_hidden(dense.attention_backward_s, 1.0);
        } else {
          plan.layer.cp_scatter =
              collective(CollectiveOp::reduce_scatter, kv_block_bytes * cp, groups.cp, CommScope::cp);
        }
        break;
      }
      case CpComm::a2a:
      case CpComm::a2a_p2p: {
        // Ulysses: the rank's tokens of every head out, every token of its heads / group heads in,
        // over the whole CP group (a2a), or over groups of cp_a2a_ranks consecutive ranks with the
        // ring across the groups carrying each group's K and V as p2p does (a2a+p2p: a rank's
        // block after the all-to-all is as large as before it).
        const bool hierarchical = p.cp_comm == CpComm::a2a_p2p;
        const CommGroup inner{.ranks = p.cp_a2a_ranks,
                              .ranks_per_node = std::min(p.cp_a2a_ranks, groups.cp.ranks_per_node)};
        const CommGroup heads_group = hierarchical ? inner : groups.cp;
        const CommScope scope = hierarchical ? CommScope::cp_inner : CommScope::cp;
        const double q_width = static_cast<double>(model.heads / p.tp * qk_head_dim(model));
        const double kv_width = static_cast<double>(attention_kv_heads(model) / p.tp *
                                                    (qk_head_dim(model) + value_head_dim(model)));
        const double o_width = static_cast<double>(model.heads / p.tp * value_head_dim(model));
        plan.layer.cp_heads_in = collective(CollectiveOp::all_to_all, rank_tokens * (q_width + kv_width) * kBf16Bytes,
                                            heads_group, scope);
        plan.layer.cp_heads_out =
            collective(CollectiveOp::all_to_all, rank_tokens * o_width * kBf16Bytes, heads_group, scope);
        if (hierarchical) {
          plan.layer.cp_kv = collective(CollectiveOp::send_recv, kv_block_bytes, cp_pair, CommScope::cp_outer);
          plan.layer.cp_hops = cp / static_cast<double>(p.cp_a2a_ranks) - 1.0;
          plan.layer.cp_kv_hidden_forward = ring_hidden(dense.attention_forward_s, 1.0);
          plan.layer.cp_kv_hidden_backward = ring_hidden(dense.attention_backward_s, 2.0);
        }
        break;
      }
    }
  }

  // Pipeline: one micro-batch's activations, split over the TP ranks (Megatron-LM's scatter/gather),
  // forward to the next stage; the gradients of the same size come back.
  const CollectiveRecord send_forward = collective(
      CollectiveOp::send_recv, activation_bytes / static_cast<double>(p.tp), groups.pp_neighbours, CommScope::pp_next);
  CollectiveRecord send_backward = send_forward;
  send_backward.scope = CommScope::pp_previous;

  // Mixture of experts: each MoE layer sends its routed copies to their experts' ranks and takes
  // the outputs back, an all-to-all each way; the busiest rank's share sets the time. The
  // routed copies move in bf16 (Megatron-Core's alltoall dispatcher).
  if (is_moe(model) && p.ep > 1) {
    double dispatch_bytes = moe_routed_rows(model, p, t) * static_cast<double>(model.hidden) * kBf16Bytes;
    // DeepEP sends a token once to each node holding one of its experts (RDMA, then NVLink to the
    // ranks there), or inside one node once to each such rank: of its k copies, as many as the
    // router's choices put on distinct nodes (ranks).
    const std::int64_t nodes = groups.ep.ranks / std::max<std::int64_t>(1, groups.ep.ranks_per_node);
    if (t.moe_dispatcher == MoeDispatcher::deepep) {
      const std::int64_t holders = nodes > 1 ? nodes : groups.ep.ranks;
      dispatch_bytes *= expert_holders_per_token(model, t.moe_routing, holders) /
                        static_cast<double>(model.experts_per_token);
    }
    plan.layer.ep_dispatch = collective(CollectiveOp::all_to_all, dispatch_bytes, groups.ep, CommScope::ep);
    plan.layer.ep_per_layer = 2.0;
  }
  // Expert tensor parallelism: an expert's etp ranks gather each other's routed rows, and
  // reduce-scatter the experts' outputs.
  if (is_moe(model) && p.etp > 1) {
    const double gathered = moe_routed_rows(model, p, t) * static_cast<double>(p.etp * model.hidden) * kBf16Bytes;
    plan.layer.etp = {collective(CollectiveOp::all_gather, gathered, groups.etp, CommScope::ep_tp),
                      collective(CollectiveOp::reduce_scatter, gathered, groups.etp, CommScope::ep_tp)};
  }

  const std::vector<std::int64_t> split = chunk_layers(model.layers, p);
  std::vector<std::int64_t> first_layer(split.size(), 0);  // of each pipeline chunk, in model order
  for (std::size_t i = 1; i < split.size(); ++i) first_layer[i] = first_layer[i - 1] + split[i - 1];
  const double layer_params = static_cast<double>(layer_parameters(model)) / static_cast<double>(p.tp);
  // A MoE layer on one rank, as the memory model holds it: its routed experts apart, since they
  // reduce and shard over other ranks.
  const double moe_layer_params = is_moe(model) ? moe_layer_dense_parameters_per_gpu(model, p.tp) : 0.0;
  const double local_expert_params = is_moe(model) ? moe_layer_expert_parameters_per_gpu(model, p.ep, p.etp) : 0.0;
  const double head_params = static_cast<double>(embedding_parameters(model)) /
                             (model.tied_embeddings ? 1.0 : 2.0) / static_cast<double>(p.tp);

  plan.stages.resize(static_cast<std::size_t>(p.pp));
  for (std::int64_t s = 0; s < p.pp; ++s) {
    StagePlan& stage = plan.stages[static_cast<std::size_t>(s)];
    stage.send_forward = send_forward;
    stage.send_backward = send_backward;
    stage.send_forward_s = send_forward.seconds;
    stage.send_backward_s = send_backward.seconds;
    double stage_params = 0.0;
    double stage_expert_params = 0.0;
    stage.chunks.reserve(static_cast<std::size_t>(p.vp));
    for (std::int64_t c = 0; c < p.vp; ++c) {
      const std::int64_t index = c * p.pp + s;
      const bool first = index == 0, last = index == p.pp * p.vp - 1;
      ChunkCosts chunk;
      chunk.layers = split[static_cast<std::size_t>(index)];
      chunk.moe_layers = moe_layers_in(model, first_layer[static_cast<std::size_t>(index)], chunk.layers);
      const auto layers = static_cast<double>(chunk.layers);
      const auto moe_layers = static_cast<double>(chunk.moe_layers);
      const double dense_layers = layers - moe_layers;
      chunk.tp_layers = dense_layers + moe_layers * (model.shared_experts > 0 ? 1.0 : 0.5);
      chunk.forward_s = dense_layers * dense.forward_s + moe_layers * moe.forward_s;
      chunk.backward_s = dense_layers * dense.backward_s + moe_layers * moe.backward_s;
      double params = dense_layers * layer_params + moe_layers * moe_layer_params;
      const double expert_params = moe_layers * local_expert_params;
      double end_params = 0.0;  // the embedding's and the output layer's, 16-bit whatever the gather
      if (first) {
        chunk.forward_s += issued_s(embedding_forward, host, false);
        chunk.backward_s += issued_s(embedding_backward, host, false);
        end_params += head_params;
      }
      if (last) {
        chunk.forward_s += issued_s(output_forward, host, false);
        chunk.backward_s += issued_s(output_backward, host, false);
        chunk.backward_deferred_s = backward_deferred_s;
        stage.deferred_wgrad_s = deferred_wgrad_s;
        end_params += head_params;
      }
      params += end_params;
      // The bytes of gathering the chunk's parameters whose 16-bit gather moves `bytes` each: the
      // layers' in their gathered dtype (parallelism_spec.hpp), the ends' 16-bit.
      const auto gathered_bytes = [&](double chunk_params, double bytes) {
        return (chunk_params - end_params) * gathered_layer_bytes(t, bytes) + end_params * bytes;
      };
      const double expert_gather_bytes = gathered_layer_bytes(t, sharding.gather_bytes_per_param);
      // Each backward adds its gradients into a whole buffer of the step: ZeRO 0-1's, unless the
      // weight-gradient GEMMs accumulate there themselves, and FSDP2's under a pipeline (ZeRO-2
      // and 3 otherwise reduce-scatter them into the shard every backward), which each of its
      // reductions empties (once a pipeline run, plan.fsdp_syncs). The launches, one or two a
      // parameter tensor, are left out: a dozen tensors a layer, under 2 % of the pass's adds.
      const auto accumulated_bytes = [&](double fsdp2_buffer) {
        return p.zero < 2 ? grad_accumulation_bytes_per_param(t, plan.micro_batches)
               : once_a_step
                   ? fsdp2_accumulation_bytes_per_param(fsdp2_buffer, plan.micro_batches / plan.fsdp_syncs)
                   : 0.0;
      };
      chunk.grad_accumulation_s = (params * accumulated_bytes(sharding.reduce_bytes_per_param) +
                                   expert_params * accumulated_bytes(sharding.expert_reduce_bytes_per_param)) /
                                  hbm_bytes_per_s;
      chunk.backward_s += chunk.grad_accumulation_s;
      // ZeRO 0-1: a gradient bucket is reduced once its last gradient is ready; the backward
      // releases the buckets evenly.
      chunk.grad_buckets = chunk.layers;
      if (t.grad_bucket_params > 0) {
        const auto buckets = static_cast<std::int64_t>(std::ceil(params / static_cast<double>(t.grad_bucket_params)));
        chunk.grad_buckets = std::clamp<std::int64_t>(buckets, 1, std::max<std::int64_t>(1, chunk.layers));
      }
      // Data parallel over the chunk's parameters: ZeRO-0 all-reduces the gradients; ZeRO-1 and 2
      // reduce-scatter them (DeepSpeed's ZeRO-1 all-reduces) and all-gather the updated parameters,
      // once a step; ZeRO-3 / FSDP gathers each unit before each pass and reduces it after each
      // backward (step_comm.hpp).
      // Gradients travel in training.grad_dtype: Megatron-LM reduces bf16 training's gradients in
      // fp32 unless --grad-reduce-in-bf16 (megatron/training/arguments.py); the distributed
      // optimizer gathers the updated bf16 parameters.
      const double param_bytes = gathered_bytes(params, kBf16Bytes);
      const double reduced_grad_bytes = params * grad_dtype_bytes(t.grad_dtype);
      const double expert_grad_bytes = expert_params * grad_dtype_bytes(t.grad_dtype);
      if (p.zero == 0) {
        chunk.grad_reduce = collective(CollectiveOp::all_reduce, reduced_grad_bytes, groups.dp, CommScope::dp);
        if (expert_params > 0.0)
          chunk.expert_grad_reduce =
              collective(CollectiveOp::all_reduce, expert_grad_bytes, groups.ep_dp, CommScope::ep_dp);
      } else if (p.zero == 1) {
        // DeepSpeed's BF16_Optimizer all-reduces the gradients and then updates its shard (framework.hpp).
        const CollectiveOp reduce = zero1_all_reduces ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
        chunk.grad_reduce = collective(reduce, reduced_grad_bytes, groups.dp, CommScope::dp);
        chunk.param_gather = collective(CollectiveOp::all_gather, param_bytes, groups.dp, CommScope::dp);
        if (expert_params > 0.0) {
          chunk.expert_grad_reduce = collective(reduce, expert_grad_bytes, groups.ep_dp, CommScope::ep_dp);
          chunk.expert_param_gather = collective(CollectiveOp::all_gather, expert_params * expert_gather_bytes,
                                                 groups.ep_dp, CommScope::ep_dp);
        }
      } else if (p.zero == 2) {
        // ZeRO-2 keeps only its shard of the gradients, so every backward reduce-scatters what it
        // produced into that shard instead of accumulating the whole buffer for one reduction a step:
        // DeepSpeed's stage 2 at every micro-step (stage_1_and_2.py,
        // reduce_ready_partitions_and_remove_grads: partition_gradients or the accumulation
        // boundary), Megatron-FSDP's optim_grads "on all microbatches" (mcore_fsdp_adapter.py), a
        // layer (and the embedding and the output layer) at a time, beside the backward. The
        // updated parameters are gathered once a step, as ZeRO-1's are.
        const double ends = (first ? 1.0 : 0.0) + (last ? 1.0 : 0.0);
        chunk.reduce_units = layers + ends;
        chunk.unit_reduce = collective(CollectiveOp::reduce_scatter, reduced_grad_bytes / chunk.reduce_units,
                                       groups.dp, CommScope::dp);
        chunk.param_gather = collective(CollectiveOp::all_gather, param_bytes, groups.dp, CommScope::dp);
        if (expert_params > 0.0) {
          chunk.expert_reduce = collective(CollectiveOp::reduce_scatter, expert_grad_bytes / moe_layers, groups.ep_dp,
                                           CommScope::ep_dp);
          chunk.expert_param_gather = collective(CollectiveOp::all_gather, expert_params * expert_gather_bytes,
                                                 groups.ep_dp, CommScope::ep_dp);
        }
      } else if (once_a_step) {
        // The stage's parameters gathered once, before its first forward, and its gradients, held
        // unsharded in the reduce dtype, reduce-scattered once after its last backward; hybrid
        // sharding all-reduces the shard across the groups. The HBM copies around the two
        // collectives, a pass or two over the stage's buffers a step, are not charged.
        const double reduced = params * sharding.reduce_bytes_per_param;
        chunk.grad_reduce = collective(CollectiveOp::reduce_scatter, reduced, groups.shard, CommScope::dp_shard);
        if (groups.replica.ranks > 1)
          chunk.unit_replica_reduce = collective(CollectiveOp::all_reduce, reduced / static_cast<double>(groups.shard.ranks),
                                                 groups.replica, CommScope::dp_replica);
        chunk.param_gather = collective(CollectiveOp::all_gather,
                                        gathered_bytes(params, sharding.gather_bytes_per_param), groups.shard,
                                        CommScope::dp_shard);
        if (expert_params > 0.0 && groups.ep_dp.ranks > 1) {
          chunk.expert_grad_reduce = collective(CollectiveOp::reduce_scatter,
                                                expert_params * sharding.expert_reduce_bytes_per_param, groups.ep_dp,
                                                CommScope::ep_dp);
          chunk.expert_param_gather = collective(CollectiveOp::all_gather, expert_params * expert_gather_bytes,
                                                 groups.ep_dp, CommScope::ep_dp);
        }
      } else {
        // Units: the chunk's layers, or their parameter tensors, and the embedding and the output
        // layer on the ends; each of their average size. Tensor units gather only the tensors the
        // framework shards (its persistence threshold) but reduce every tensor's gradient.
        const double ends = (first ? 1.0 : 0.0) + (last ? 1.0 : 0.0);
        double gathered_params = params;
        chunk.units = layers + ends;
        chunk.reduce_units = chunk.units;
        chunk.backward_units = chunk.units;
        const bool prefetch = t.overlap_param_gather && sharding.prefetch_depth >= 1;
        // Blocks: every gather but the pass's first is issued one unit ahead.
        chunk.prefetched_forward = chunk.prefetched_backward = prefetch ? chunk.units - 1.0 : 0.0;
        if (sharding.unit == ShardingUnit::parameter_tensor) {
          const bool recomputed = t.recompute == Recompute::full;
          const LayerTensors tensors = layer_parameter_tensors(
              model, p.tp,
              {.persistence_threshold = sharding.persistence_threshold_params,
               .reuse_distance = recomputed ? sharding.recompute_reuse_distance_params : 0.0,
               .max_live = sharding.max_live_params},
              recomputed);
          gathered_params = params - layers * (layer_params - tensors.gathered_params);
          chunk.units = layers * tensors.gathered + ends;
          chunk.backward_units = chunk.units + layers * tensors.regathered;
          chunk.reduce_units = layers * tensors.tensors + ends;
          // The layers' own prefetches; the embedding's and the output layer's gathers block.
          chunk.prefetched_forward = prefetch ? layers * tensors.prefetched_forward : 0.0;
          chunk.prefetched_backward = prefetch ? layers * tensors.prefetched_backward : 0.0;
        }
        // A unit's gather: the chunk's average unit, at its average bytes a gathered parameter (fp8
        // layers, 16-bit ends).
        const double unit_gather_bytes = gathered_bytes(gathered_params, sharding.gather_bytes_per_param) / chunk.units;
        // Host work per collective that grows with the group (sharding.hpp): eager ops per rank,
        // views and copies autograd does not record.
        const double host_op_s = static_cast<double>(groups.shard.ranks) * eager_untracked_op().value;
        const double gather_host_s = sharding.gather_host_ops_per_rank * host_op_s;
        const double reduce_host_s = sharding.reduce_host_ops_per_rank * host_op_s;
        chunk.unit_gather = collective(CollectiveOp::all_gather, unit_gather_bytes, groups.shard, CommScope::dp_shard);
        const double grad_bytes = params / chunk.reduce_units * sharding.reduce_bytes_per_param;
        chunk.unit_reduce = collective(CollectiveOp::reduce_scatter, grad_bytes, groups.shard, CommScope::dp_shard);
        // The buffer's passes through HBM around the NCCL call (sharding.hpp), the gathered or
        // reduced tensor whole on every rank.
        const double gather_staging_s = sharding.gather_staging_passes * unit_gather_bytes / hbm_bytes_per_s;
        const double reduce_staging_s = sharding.reduce_staging_passes * grad_bytes / hbm_bytes_per_s;
        const bool on_compute = sharding.staging_on_compute_stream;
        const auto charge_host_and_staging = [&](CollectiveRecord& record, double record_host_s, double staging_s) {
          if (record.group.ranks <= 1) return;
          record.host_s = record_host_s;
          record.staging_s = on_compute ? 0.0 : staging_s;
          record.seconds += record.host_s + record.staging_s;
        };
        // A gather issued ahead runs its transfer (and the copies that follow it) beside the
        // compute; its host work, with the device idle, is the compute's (sharding.hpp).
        const auto issued_ahead = [](CollectiveRecord record) {
          record.seconds -= record.host_s;
          record.host_s = 0.0;
          return record;
        };
        charge_host_and_staging(chunk.unit_gather, gather_host_s, gather_staging_s);
        charge_host_and_staging(chunk.unit_reduce, reduce_host_s, reduce_staging_s);
        chunk.unit_gather_ahead = issued_ahead(chunk.unit_gather);
        const double backward_gathers = plan.reshard_after_forward ? 1.0 : 0.0;
        if (chunk.unit_gather.group.ranks > 1) {
          chunk.forward_s += chunk.prefetched_forward * gather_host_s;
          chunk.backward_s += backward_gathers * chunk.prefetched_backward * gather_host_s;
          if (on_compute) {  // every gather's copy-out and every reduction's copy-in hold up the compute
            chunk.forward_s += chunk.units * gather_staging_s;
            chunk.backward_s += backward_gathers * chunk.backward_units * gather_staging_s +
                                chunk.reduce_units * reduce_staging_s;
          }
        }
        if (groups.replica.ranks > 1)
          chunk.unit_replica_reduce = collective(CollectiveOp::all_reduce, grad_bytes / static_cast<double>(groups.shard.ranks),
                                                 groups.replica, CommScope::dp_replica);
        // A MoE layer's routed experts: gathered and reduced over the ranks holding the same
        // experts, with the same host work and staging as the layer's unit.
        if (expert_params > 0.0 && groups.ep_dp.ranks > 1) {
          const double expert_unit = local_expert_params;
          chunk.expert_gather = collective(CollectiveOp::all_gather, expert_unit * expert_gather_bytes, groups.ep_dp,
                                           CommScope::ep_dp);
          chunk.expert_reduce = collective(CollectiveOp::reduce_scatter,
                                           expert_unit * sharding.expert_reduce_bytes_per_param, groups.ep_dp,
                                           CommScope::ep_dp);
          const double expert_gather_staging_s =
              sharding.gather_staging_passes * expert_unit * expert_gather_bytes / hbm_bytes_per_s;
          const double expert_reduce_staging_s =
              sharding.reduce_staging_passes * expert_unit * sharding.expert_reduce_bytes_per_param / hbm_bytes_per_s;
          charge_host_and_staging(chunk.expert_gather, gather_host_s, expert_gather_staging_s);
          charge_host_and_staging(chunk.expert_reduce, reduce_host_s, expert_reduce_staging_s);
          chunk.expert_gather_ahead = issued_ahead(chunk.expert_gather);
          const double moe_share = moe_layers / chunk.units;  // of each pass's gathers
          chunk.forward_s += chunk.prefetched_forward * moe_share * gather_host_s;
          chunk.backward_s += backward_gathers * chunk.prefetched_backward * moe_share * gather_host_s;
          if (on_compute) {
            chunk.forward_s += moe_layers * expert_gather_staging_s;
            chunk.backward_s += backward_gathers * moe_layers * expert_gather_staging_s + moe_layers * expert_reduce_staging_s;
          }
        }
      }
      if (p.tp_comm_overlap) {
        const CommParts forward_tp = tp_comm(plan, chunk, true), backward_tp = tp_comm(plan, chunk, false);
        const double forward_gemm_s = dense_layers * dense.forward.gemm_s + moe_layers * moe.forward.gemm_s;
        const double backward_gemm_s = dense_layers * dense.backward.gemm_s + moe_layers * moe.backward.gemm_s;
        chunk.tp_exposed_forward = tp_exposed_share(comm_seconds(forward_tp.span()), forward_gemm_s, p.tp);
        // The backward's reduce-scatters of the input projections' input gradients, one per
        // projection group and layer, where the framework cannot run them beside compute.
        const double unhidden_s = hides_input_grad_reduce ? 0.0
                                                          : plan.layer.tp_backward[1].seconds *
                                                                plan.layer.tp_per_layer * chunk.tp_layers;
        chunk.tp_exposed_backward =
            tp_exposed_share_with_unhidden(comm_seconds(backward_tp.span()), unhidden_s, backward_gemm_s, p.tp);
      } else if (tp_backward_beside_gemms) {
        // The regathers run beside the column-parallel layers' input-gradient GEMMs and the input
        // gradients' reduce-scatters beside their weight-gradient GEMMs, each exposed only by what
        // outlasts its GEMMs; the output gradients' gathers (and a full recompute's forward
        // collectives) stay on the stream.
        const double backward_s = comm_seconds(tp_comm(plan, chunk, false).span());
        const double regather_s = plan.layer.tp_regather.seconds * plan.layer.tp_regathers * chunk.tp_layers;
        const double reduce_s = plan.layer.tp_backward[1].seconds * plan.layer.tp_per_layer * chunk.tp_layers;
        const double input_grad_s = dense_layers * dense.column_input_grad_s + moe_layers * moe.column_input_grad_s;
        const double weight_grad_s = dense_layers * dense.column_weight_grad_s + moe_layers * moe.column_weight_grad_s;
        const double hidden_s = std::min(regather_s, input_grad_s) + std::min(reduce_s, weight_grad_s);
        if (backward_s > 0.0) chunk.tp_exposed_backward = std::clamp(1.0 - hidden_s / backward_s, 0.0, 1.0);
      }
      set_comm_seconds(plan, chunk);
      // Communication under the compute takes SMs and HBM bandwidth from it (overlap_cost.hpp).
      PassCompute forward_pass = scaled(dense.forward, dense_layers), backward_pass = scaled(dense.backward, dense_layers);
      forward_pass += scaled(moe.forward, moe_layers);
      backward_pass += scaled(moe.backward, moe_layers);
      if (first) {
        forward_pass += embedding_forward.split;
        backward_pass += embedding_backward.split;
      }
      if (last) {
        forward_pass += output_forward.split;
        backward_pass += output_backward.split;
      }
      // Beside traffic spreads over the whole pass on the compute stream, its host-bound stretches
      // and ZeRO-3's copies included, not over its kernels alone.
      forward_pass.duration_s = chunk.forward_s;
      backward_pass.duration_s = chunk.backward_s;
      chunk.interference_forward_s = pass_interference_s(chunk, plan, forward_pass, true, in, p);
      chunk.interference_backward_s = pass_interference_s(chunk, plan, backward_pass, false, in, p);
      chunk.forward_s += chunk.interference_forward_s;
      chunk.backward_s += chunk.interference_backward_s;
      // ZeRO 0-1's gradient buckets are reduced from the chunk's last backward on: under its layers
      // still to go, then under the passes after it (step_builder.cpp). Their cost is booked on
      // that backward, as much of it as they last: a chunk of one layer, whose one bucket runs
      // wholly beside the next pass, pays as a chunk of many does. The condition is the builder's
      // for running them as buckets (only ZeRO 0-1 reduce a chunk's gradients once a step beside
      // the compute: FSDP2's once-a-step reduction follows the stage's last backward).
      if (plan.overlap_grad_reduce && chunk.grad_reduce_s > 0.0) {
        // The whole reduction (a MoE chunk's expert gradients with it) at its bytes over its seconds.
        const BesideTraffic whole = beside_traffic(grad_reduce_comm(plan, chunk), dp_sms_held(p));
        const auto booked = [&](double share) {
          BesideTraffic part = whole;
          part.seconds *= share;
          return interference_s(backward_pass, std::span(&part, 1), in.cluster.gpu, in.compute);
        };
        const auto buckets = static_cast<double>(std::max<std::int64_t>(1, chunk.grad_buckets));
        chunk.grad_bucket_interference_s = booked(1.0);
        chunk.grad_bucket_interference_last_s = booked((buckets - 1.0) / buckets);
      }
      stage_params += params;
      stage_expert_params += expert_params;
      stage.chunks.push_back(chunk);
    }
    // A tied embedding split across stages: the first stage's lookup table and the last stage's
    // output layer sum their gradients before the optimizer, in the dtype of the gradient buffer.
    if (model.tied_embeddings && p.pp > 1 && p.zero < 3 && (s == 0 || s == p.pp - 1)) {
      const double tied_grad_bytes = head_params * grad_dtype_bytes(t.grad_dtype);
      stage.tied_grad_reduce = collective(CollectiveOp::all_reduce, tied_grad_bytes, groups.pp_ends, CommScope::pp_ends);
    }
    const double shard = p.zero >= 3   ? static_cast<double>(groups.shard.ranks)
                         : p.zero >= 1 ? static_cast<double>(p.dp * p.cp)
                                       : 1.0;
    // The optimizer follows the step's CPU-GPU synchronisation (host_launch.hpp), so the GPU waits
    // for the first Adam launch, then runs the launches' HBM traffic and gaps, or waits for the rest.
    const double expert_shard = p.zero >= 1 ? static_cast<double>(groups.ep_dp.ranks) : 1.0;
    const double shard_params = stage_params / shard + stage_expert_params / expert_shard;
    const std::int64_t launches = adam_launches(shard_params);
    const double adam_gpu_s = shard_params * adam_bytes_per_parameter(p, t, sharding) / hbm_bytes_per_s +
                              static_cast<double>(launches) * in.compute.launch_overhead_s.value;
    stage.optimizer_s = host.per_kernel_s + issued_stretch_s(adam_gpu_s, launches - 1, host, false);
  }
  return plan;
}

namespace {

StepSimulation simulate(const StepInputs& in, TraceRecords trace) {
  const StepPlan plan = plan_step(in);
  check_step_durations(plan, in);
  StepSimulation out;
  StepReport& r = out.report;
  try {
    // A step that is only measured, with closed-form communication, takes its figures from its
    // steady state simulated once where that is proven exact (periodic_step.hpp).
    std::optional<StepTimes> periodic;
    if (trace == TraceRecords::skip && in.fidelity == CommFidelity::analytic && in.steady_state_shortcut)
      periodic = periodic_step_times(plan);
    if (periodic) {
      r.times = std::move(*periodic);
    } else {
      std::vector<std::string> failed;
      if (in.fidelity == CommFidelity::flow) {
        FlowNetwork network(in.cluster, in.comm);
        std::vector<sim::Resource> links = network.resources();
        for (const topologies::LinkId id : network.failed()) failed.push_back(links[id].name);
        FlowLowering lowering(network, static_cast<sim::ResourceId>(3 * plan.stages.size()));
        FlowStep flow(in.parallelism, in.cluster, in.comm, lowering);
        out.step = build_step_graph(
            plan,
            [&flow](sim::TaskGraph& graph, std::span<const CommPart> parts, sim::TaskLabel label) {
              return flow.lower(graph, parts, label);
            },
            std::move(links), trace);
      } else {
        out.step = build_step_graph(plan, {}, {}, trace);
      }
      out.step.trace.ranks = {.tp = in.parallelism.tp, .cp = in.parallelism.cp, .dp = in.parallelism.dp};
      out.timeline = sim::Engine(out.step.resources).run(out.step.graph);
      r.failed_links = std::move(failed);
      r.times = measure_step(out.step, out.timeline);
    }
  } catch (const sim::TimeRangeError& error) {  // flows slower than their analytic cost, sharing links
    throw StepTimeError(fmt::format("step time out of range: simulating the step, {}; it follows from {}",
                                    error.what(), step_duration_inputs(in, true, true)));
  }
  r.micro_batches = plan.micro_batches;
  const auto& p = in.parallelism;
  const auto& t = in.training;
  r.layers_per_chunk = chunk_layers(in.model.layers, p);

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
    // Each pipeline run fills and drains on its own: at most its micro-batches are in flight.
    const double in_flight = micro_batches_in_flight(t.schedule, p.pp, p.vp, micro_batches_per_run(p, t), s,
                                                     microbatch_group_size(p));
    r.memory_per_stage.push_back(
        memory_per_gpu(in.model, p, t, in.cluster.gpu, stage_layers, s == 0, s == p.pp - 1, in_flight,
                       moe_layers_of_stage(in.model, r.layers_per_chunk, p.pp, s)));
    if (r.memory_per_stage.back().total_bytes >
        r.memory_per_stage[static_cast<std::size_t>(r.peak_memory_stage)].total_bytes)
      r.peak_memory_stage = s;
  }
  r.fits_in_memory =
      fits_in_memory(r.memory_per_stage[static_cast<std::size_t>(r.peak_memory_stage)].total_bytes, in.cluster.gpu);

  if (const std::int64_t domain = nvlink_domain(in.cluster); p.tp > domain)
    r.notes.push_back(fmt::format("tp = {} spans {} NVLink domains: tensor-parallel collectives cross the network at "
                                  "NIC bandwidth instead of NVLink",
                                  p.tp, ceil_div(p.tp, domain)));
  if (t.schedule != Schedule::gpipe && plan.micro_batches < p.pp)
    r.notes.push_back(fmt::format("{} micro-batches per step on {} stages: the pipeline never reaches its steady state",
                                  plan.micro_batches, p.pp));
  const auto [smallest, largest] = std::minmax_element(r.layers_per_chunk.begin(), r.layers_per_chunk.end());
  if (!p.layers_per_chunk.empty())
    r.notes.push_back(fmt::format("the pipeline split the job gives (parallelism.layers_per_chunk), layers a chunk in "
                                  "model order: {}",
                                  fmt::join(r.layers_per_chunk, " ")));
  else if (*smallest != *largest)
    r.notes.push_back(fmt::format("{} layers do not divide into pp x vp = {} chunks: {} chunks of {} layers at the "
                                  "ends, {} elsewhere",
                                  in.model.layers, p.pp * p.vp,
                                  std::count(r.layers_per_chunk.begin(), r.layers_per_chunk.end(), *smallest),
                                  *smallest, *largest));
  return out;
}

}  // namespace

StepSimulation simulate_step(const StepInputs& in) { return simulate(in, TraceRecords::keep); }

StepReport step_report(const StepInputs& in) { return std::move(simulate(in, TraceRecords::skip).report); }

}  // namespace clustersim::models
