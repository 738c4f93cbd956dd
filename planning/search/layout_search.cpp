#include "planning/search/layout_search.hpp"

#include <algorithm>

#include "models/spec/moe.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::planning {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> result;
  for (std::int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) result.push_back(d);
  }
  return result;
}

// The allowed values: `candidates` filtered by `wanted` when that is not empty.
std::vector<std::int64_t> restrict_to(std::vector<std::int64_t> candidates,
                                      const std::vector<std::int64_t>& wanted) {
  if (wanted.empty()) return candidates;
  std::erase_if(candidates, [&](std::int64_t v) {
    return std::find(wanted.begin(), wanted.end(), v) == wanted.end();
  });
  return candidates;
}

bool contains(const std::vector<bool>& values, bool v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

}  // namespace

std::vector<models::MemoryBreakdown> memory_per_stage(const models::StepInputs& in) {
  const auto& p = in.parallelism;
  const auto& t = in.training;
  const std::int64_t m = models::micro_batches_per_run(p, t);
  const std::vector<std::int64_t> split = models::chunk_layers(in.model.layers, p);
  std::vector<models::MemoryBreakdown> stages;
  stages.reserve(static_cast<std::size_t>(p.pp));
  for (std::int64_t s = 0; s < p.pp; ++s) {
    std::int64_t stage_layers = 0;
    for (std::int64_t c = 0; c < p.vp; ++c) stage_layers += split[static_cast<std::size_t>(c * p.pp + s)];
    stages.push_back(models::memory_per_gpu(in.model, p, t, in.cluster.gpu, stage_layers, s == 0, s == p.pp - 1,
                                            models::micro_batches_in_flight(t.schedule, p.pp, p.vp, m, s, models::microbatch_group_size(p)),
                                            models::moe_layers_of_stage(in.model, split, p.pp, s)));
  }
  return stages;
}

PeakMemory peak_memory(const models::StepInputs& in) {
  const std::vector<models::MemoryBreakdown> stages = memory_per_stage(in);
  PeakMemory peak;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    // Strictly greater, as simulate_step picks the first stage of the largest total.
    if (s == 0 || stages[s].total_bytes > peak.breakdown.total_bytes) {
      peak.breakdown = stages[s];
      peak.stage = static_cast<std::int64_t>(s);
    }
  }
  peak.fits = models::fits_in_memory(peak.breakdown.total_bytes, in.cluster.gpu);
  return peak;
}

std::string plan_key(const models::StepPlan& plan) {
  std::string key;
  const auto put = [&key](auto value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
  };
  put(plan.schedule);
  put(plan.micro_batches);
  put(plan.overlap_grad_reduce);
  put(plan.overlap_param_gather);
  put(plan.ep_overlap);
  put(plan.deferred_wgrad_micro_batches);
  for (const models::StagePlan& stage : plan.stages) {
    put(stage.send_forward_s);
    put(stage.send_backward_s);
    put(stage.optimizer_s);
    put(stage.tied_grad_reduce.seconds);
    put(stage.deferred_wgrad_s);
    put(stage.chunks.size());
    for (const models::ChunkCosts& c : stage.chunks) {
      for (const double v : {c.forward_s, c.backward_s, c.tp_forward_s, c.tp_backward_s, c.tp_hidden_forward_s,
                             c.tp_hidden_backward_s, c.cp_forward_s,
                             c.cp_backward_s, c.ep_forward_s, c.ep_backward_s, c.tp_layers,
                             c.grad_reduce_s, c.param_gather_s, c.dp_before_forward_s,
                             c.dp_before_backward_s, c.dp_beside_forward_s, c.dp_beside_backward_s,
                             c.dp_after_backward_s, c.dp_tail_backward_s, c.units, c.backward_units, c.reduce_units,
                             c.backward_deferred_s}) {
        put(v);
      }
      put(c.layers);
      put(c.moe_layers);
      put(c.grad_buckets);
    }
  }
  return key;
}

models::StepInputs with_layout(const models::StepInputs& base, const Layout& layout) {
  models::StepInputs in = base;
  in.parallelism = layout.parallelism;
  in.training = layout.training;
  return in;
}

std::vector<LayoutCandidate> search_layouts(const models::StepInputs& base, const SearchSpace& space) {
  const std::int64_t gpus = base.cluster.num_gpus;
  const std::int64_t layers = base.model.layers;
  const std::int64_t global_batch = base.training.global_batch;
  std::vector<LayoutCandidate> result;
  // One copy of the inputs, its layout rewritten in place: the profiles hold strings, and
  // copying them per layout would cost more than the memory estimate itself.
  models::StepInputs in = base;
  Layout layout{.parallelism = base.parallelism, .training = base.training};
  // Which layouts are valid is models::layout_violation's to say; the loops only build the space
  // (degrees whose product is the GPU count, micro-batches that divide a replica's batch).
  std::vector<std::int64_t> etps{1};
  if (models::is_moe(base.model))
    for (std::int64_t e = 2; e <= models::nvlink_domain(base.cluster); e *= 2) etps.push_back(e);
  etps = restrict_to(etps, space.etp);
  auto valid = [&] {
    if (models::layout_violation(base.model, layout.parallelism, layout.training, base.cluster)) return false;
    return base.fidelity != models::CommFidelity::flow ||
           !models::flow_graph_violation(layout.parallelism, layout.training).has_value();
  };

  for (const std::int64_t tp : restrict_to(divisors(gpus), space.tp)) {
    for (const std::int64_t cp : restrict_to(divisors(gpus / tp), space.cp)) {
      for (const std::int64_t pp : restrict_to(divisors(gpus / (tp * cp)), space.pp)) {
        const std::int64_t dp = gpus / (tp * cp * pp);
        // Interleaving only with two stages or more, and only in chunks of whole layers.
        std::vector<std::int64_t> vps{1};
        if (pp >= 2) {
          for (std::int64_t vp = 2; pp * vp <= layers; ++vp) {
            if (layers % (pp * vp) == 0) vps.push_back(vp);
          }
        }
        for (const std::int64_t vp : restrict_to(vps, space.vp)) {
          for (const std::int64_t micro_batch : restrict_to(divisors(global_batch / dp), space.micro_batch)) {
            for (const bool sp : {false, true}) {
              if (space.sp_follows_tp ? sp != (tp > 1) : !contains(space.sp, sp)) continue;
              for (const int zero : space.zero) {
                // Sharding over a single replica changes nothing: the first stage listed stands
                // for all of them.
                if (dp * cp == 1 && zero != space.zero.front()) continue;
                // Expert parallelism: the divisors of the experts that the stage's ranks fold
                // onto (1 for a dense model).
                for (const std::int64_t ep : restrict_to(divisors(std::max<std::int64_t>(1, base.model.experts)), space.ep)) {
                 for (const std::int64_t etp : etps) {
                  if ((tp * cp * dp) % (ep * etp) != 0) continue;
                  // The searched degrees; what the scenario says of how they run (its framework's
                  // ZeRO-3 implementation and context-parallel exchange, the overlap options) stays,
                  // TP overlap only where SP is on, the deferred output-layer weight gradients only
                  // with a pipeline, FSDP's once-a-step sync only with sharded parameters.
                  layout.parallelism = {.tp = tp, .pp = pp, .dp = dp, .cp = cp,
                                        .cp_comm = base.parallelism.cp_comm,
                                        .cp_a2a_ranks = base.parallelism.cp_a2a_ranks,
                                        .cp_max_ctas = base.parallelism.cp_max_ctas,
                                        .dp_max_ctas = base.parallelism.dp_max_ctas, .vp = vp, .sp = sp, .zero = zero,
                                        .sharding = base.parallelism.sharding,
                                        .tp_comm_overlap = sp && base.parallelism.tp_comm_overlap,
                                        .ep = ep, .etp = etp,
                                        .ep_comm_overlap = base.parallelism.ep_comm_overlap};
                  layout.training.micro_batch = micro_batch;
                  layout.training.schedule = vp > 1 ? models::Schedule::interleaved : models::Schedule::one_f_one_b;
                  layout.training.defer_embedding_wgrad = pp > 1 && base.training.defer_embedding_wgrad;
                  layout.training.fsdp_sync_once = zero >= 3 && base.training.fsdp_sync_once;
                  layout.training.fsdp_sync_every_micro_batch =
                      zero >= 3 && pp > 1 && base.training.fsdp_sync_every_micro_batch;
                  if (!valid()) continue;  // recompute plays no part in the rules
                  for (const models::Recompute recompute : space.recompute) {
                    layout.training.recompute = recompute;
                    in.parallelism = layout.parallelism;
                    in.training = layout.training;
                    result.push_back({.layout = layout, .memory = peak_memory(in)});
                  }
                 }
                }
              }
            }
          }
        }
      }
    }
  }
  return result;
}

}  // namespace clustersim::planning
