#include "tools/render/csv_tables.hpp"

#include <fmt/format.h>

#include "models/cost/cost_model.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "planning/plan/plan_clusters.hpp"
#include "planning/plan/plan_options.hpp"
#include "planning/plan/topology_names.hpp"

namespace clustersim::tools {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Shortest round-trip text of a double, as sweep's CSV prints its figures.
std::string number(double value) { return fmt::format("{}", value); }

}  // namespace

std::string csv_text(const std::string& text) {
  std::string quoted = "\"";
  for (const char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string run_stages_csv(const models::StepReport& r) {
  std::string out =
      "stage,layers,compute_s,exposed_comm_s,bubble_s,tp_comm_s,pp_comm_s,dp_comm_s,cp_comm_s,ep_comm_s,memory_gib\n";
  const std::size_t pp = r.times.stages.size();
  for (std::size_t s = 0; s < pp; ++s) {
    const auto& st = r.times.stages[s];
    // Layers of each of the stage's chunks (interleaved: one per virtual stage), as the text shows them.
    std::string layers;
    for (std::size_t i = s; i < r.layers_per_chunk.size(); i += pp)
      layers += fmt::format("{}{}", layers.empty() ? "" : "+", r.layers_per_chunk[i]);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", s, csv_text(layers), number(st.compute_s),
                       number(st.exposed_comm_s), number(st.bubble_s), number(st.tp_comm_s), number(st.pp_comm_s),
                       number(st.dp_comm_s), number(st.cp_comm_s), number(st.ep_comm_s),
                       number(r.memory_per_stage[s].total_bytes / kGiB));
  }
  return out;
}

std::string plan_options_csv(const planning::PlanResult& result) {
  std::string out =
      "option,gpu,gpus,topology,oversubscription,tp,pp,dp,cp,ep,etp,vp,sp,zero,micro_batch,recompute,step_time_s,"
      "step_time_fast_s,step_time_slow_s,validation_family,validation_runs,unvalidated,mfu,tokens_per_s,"
      "usd_per_gpu_hour,days,days_fast,days_slow,cost_usd,cost_fast_usd,cost_slow_usd,on_front,chosen,fidelity,"
      "analytic_step_time_s\n";
  for (std::size_t i = 0; i < result.options.size(); ++i) {
    const planning::PlanOption& o = result.options[i];
    const auto& p = o.layout.parallelism;
    const planning::SizedCluster& cluster = result.clusters[o.cluster];
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i,
        csv_text(cluster.gpu), cluster.scenario.cluster.num_gpus, planning::topology_name(o.topology),
        number(o.oversubscription), p.tp, p.pp, p.dp, p.cp, p.ep, p.etp, p.vp, p.sp, p.zero, o.layout.training.micro_batch,
        models::recompute_name(o.layout.training.recompute), number(o.report.times.step_time_s), number(o.band.fast_s),
        number(o.band.slow_s), csv_text(o.band.family), o.band.runs, csv_text(o.band.unvalidated), number(o.report.mfu),
        number(o.report.tokens_per_s), number(o.usd_per_gpu_hour), number(o.days), number(o.fast_days),
        number(o.slow_days), number(o.cost_usd), number(o.fast_cost_usd), number(o.slow_cost_usd),
        static_cast<bool>(result.on_front[i]), result.chosen && *result.chosen == i, o.flow ? "flow" : "analytic",
        o.flow ? number(o.flow->analytic_step_s) : number(o.report.times.step_time_s));
  }
  return out;
}

std::string tco_cumulative_csv(const models::Tco& tco) {
  std::string out = "month,build_usd";
  for (const auto& rent : tco.rents) out += fmt::format(",rent_{}_usd", models::to_string(rent.option));
  out += '\n';
  for (std::size_t month = 0; month < tco.build_cumulative_usd.size(); ++month) {
    out += fmt::format("{},{}", month, number(tco.build_cumulative_usd[month]));
    for (const auto& rent : tco.rents) out += "," + number(rent.cumulative_usd.at(month));
    out += '\n';
  }
  return out;
}

}  // namespace clustersim::tools
