#include "tools/render/step_report.hpp"

#include <fmt/format.h>

namespace clustersim::tools {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const models::MemoryBreakdown& peak_memory(const models::StepReport& r) {
  return r.memory_per_stage[static_cast<std::size_t>(r.peak_memory_stage)];
}

nlohmann::ordered_json memory_json(const models::MemoryBreakdown& m) {
  return {{"weights_gib", m.weights_bytes / kGiB},
          {"gradients_gib", m.gradients_bytes / kGiB},
          {"optimizer_gib", m.optimizer_bytes / kGiB},
          {"activations_gib", m.activations_bytes / kGiB},
          {"other_gib", m.other_bytes / kGiB},
          {"cuda_context_gib", m.cuda_context_bytes / kGiB},
          {"nccl_buffers_gib", m.nccl_bytes / kGiB},
          {"cublas_workspaces_gib", m.workspace_bytes / kGiB},
          {"allocator_fragmentation_gib", m.fragmentation_bytes / kGiB},
          {"total_gib", m.total_bytes / kGiB},
          {"allocator_reserved_gib", m.allocator_reserved_bytes() / kGiB}};
}

std::string layout(const scenarios::Scenario& s) {
  const auto& p = s.parallelism;
  std::string text = fmt::format("TP {} x PP {} x DP {}", p.tp, p.pp, p.dp);
  if (p.cp > 1) text += fmt::format(" x CP {}", p.cp);
  if (p.ep > 1) text += fmt::format(", EP {}", p.ep);
  if (p.etp > 1) text += fmt::format(", ETP {}", p.etp);
  if (p.vp > 1) text += fmt::format(", vp {}", p.vp);
  text += fmt::format(", {}, ZeRO-{}, {}", p.sp ? "SP" : "no SP", p.zero, models::schedule_name(s.training.schedule));
  return text;
}

const char* fidelity_name(scenarios::Fidelity f) { return f == scenarios::Fidelity::flow ? "flow" : "analytic"; }

std::string kinds_text(const std::vector<models::TaskKind>& kinds) {
  std::string text;
  for (const models::TaskKind k : kinds) text += fmt::format("{}{}", text.empty() ? "" : ",", models::kind_name(k));
  return text;
}

}  // namespace

nlohmann::ordered_json links_json(const std::vector<models::LinkLoad>& links) {
  auto out = nlohmann::ordered_json::array();
  for (const models::LinkLoad& l : links) {
    auto kinds = nlohmann::ordered_json::array();
    for (const models::TaskKind k : l.kinds) kinds.push_back(std::string(models::kind_name(k)));
    out.push_back({{"link", l.name},
                   {"bytes", l.bytes},
                   {"utilisation", l.utilisation},
                   {"busy_fraction", l.busy_fraction},
                   {"kinds", kinds}});
  }
  return out;
}

std::string links_text(const std::vector<models::LinkLoad>& links) {
  std::string out = fmt::format("\n  busiest links ({}): utilisation = bytes / (capacity x step time)\n", links.size());
  out += "  link                                      GB  utilisation   busy  carried\n";
  for (const models::LinkLoad& l : links)
    out += fmt::format("  {:<34} {:9.2f} {:10.1f} % {:5.1f} %  {}\n", l.name, l.bytes / 1e9, 100 * l.utilisation,
                       100 * l.busy_fraction, kinds_text(l.kinds));
  return out;
}

nlohmann::ordered_json step_report_json(const scenarios::Scenario& scenario, const models::StepReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario.name;
  j["fidelity"] = fidelity_name(scenario.simulation.fidelity);
  j["failed_links"] = r.failed_links;
  j["step_time_s"] = r.times.step_time_s;
  j["tokens_per_s"] = r.tokens_per_s;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  j["model_tflops_per_gpu"] = r.model_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["bubble_fraction"] = r.times.bubble_fraction;
  j["exposed_comm_fraction"] = r.times.exposed_comm_fraction;
  j["compute_fraction"] = r.times.compute_fraction;
  j["memory_per_gpu_gib"] = peak_memory(r).total_bytes / kGiB;
  j["fits_in_memory"] = r.fits_in_memory;
  j["micro_batches"] = r.micro_batches;
  j["layers_per_chunk"] = r.layers_per_chunk;
  j["memory"] = memory_json(peak_memory(r));
  j["memory"]["stage"] = r.peak_memory_stage;
  auto stages = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < r.times.stages.size(); ++s) {
    const auto& st = r.times.stages[s];
    stages.push_back({{"stage", s},
                      {"compute_s", st.compute_s},
                      {"exposed_comm_s", st.exposed_comm_s},
                      {"bubble_s", st.bubble_s},
                      {"tp_comm_s", st.tp_comm_s},
                      {"pp_comm_s", st.pp_comm_s},
                      {"dp_comm_s", st.dp_comm_s},
                      {"cp_comm_s", st.cp_comm_s},
                      {"ep_comm_s", st.ep_comm_s},
                      {"memory_gib", r.memory_per_stage[s].total_bytes / kGiB}});
  }
  j["stages"] = std::move(stages);
  j["notes"] = r.notes;
  return j;
}

std::string step_report_text(const scenarios::Scenario& scenario, const models::StepReport& r) {
  const auto& c = scenario.cluster;
  std::string out;
  auto line = [&out](const std::string& text) { out += text + '\n'; };
  line(fmt::format("{}: {} on {} x {} ({}), {}", scenario.name, scenario.model.name, c.num_gpus, c.gpu.name,
                   models::node_layout_text(c), layout(scenario)));
  line(fmt::format("  global batch {} x {} tokens, micro-batch {}, {} micro-batches per step", scenario.training.global_batch,
                   scenario.training.seq_len, scenario.training.micro_batch, r.micro_batches));
  std::string failed;
  for (const std::string& name : r.failed_links) failed += fmt::format("{}{}", failed.empty() ? "" : ", ", name);
  line(fmt::format("  communication: {} fidelity{}", fidelity_name(scenario.simulation.fidelity),
                   r.failed_links.empty() ? std::string()
                                          : fmt::format(", {} failed cable(s): {}", r.failed_links.size(), failed)));
  line("");
  line(fmt::format("  step time            {:10.3f} s", r.times.step_time_s));
  line(fmt::format("  tokens/s             {:10.0f}   ({:.0f} per GPU)", r.tokens_per_s, r.tokens_per_s_per_gpu));
  line(fmt::format("  model TFLOP/s / GPU  {:10.1f}", r.model_tflops_per_gpu));
  line(fmt::format("  MFU / HFU            {:9.1f} % / {:.1f} %", 100 * r.mfu, 100 * r.hfu));
  line(fmt::format("  compute              {:9.1f} % of the step", 100 * r.times.compute_fraction));
  line(fmt::format("  exposed comm         {:9.1f} %", 100 * r.times.exposed_comm_fraction));
  line(fmt::format("  pipeline bubble      {:9.1f} %", 100 * r.times.bubble_fraction));
  line("");
  // A mixture-of-experts run adds its expert-parallel all-to-alls as a column of their own.
  bool expert_parallel = false;
  for (const auto& st : r.times.stages) expert_parallel = expert_parallel || st.ep_comm_s > 0.0;
  line(fmt::format("  stage  layers   compute   exposed    bubble   TP comm   PP comm   DP comm   CP comm{}  memory GiB",
                   expert_parallel ? "   EP comm" : ""));
  const std::size_t pp = r.times.stages.size();
  for (std::size_t s = 0; s < pp; ++s) {
    const auto& st = r.times.stages[s];
    std::string layers;
    for (std::size_t i = s; i < r.layers_per_chunk.size(); i += pp)
      layers += fmt::format("{}{}", layers.empty() ? "" : "+", r.layers_per_chunk[i]);
    line(fmt::format("  {:5}  {:>6} {:8.3f}s {:8.3f}s {:8.3f}s {:8.3f}s {:8.3f}s {:8.3f}s {:8.3f}s{} {:10.1f}", s, layers,
                     st.compute_s, st.exposed_comm_s, st.bubble_s, st.tp_comm_s, st.pp_comm_s, st.dp_comm_s, st.cp_comm_s,
                     expert_parallel ? fmt::format(" {:8.3f}s", st.ep_comm_s) : std::string(),
                     r.memory_per_stage[s].total_bytes / kGiB));
  }
  const auto& m = peak_memory(r);
  line("");
  line(fmt::format("  memory per GPU (stage {}): {:.1f} GiB of {:.1f} GiB: weights {:.1f}, gradients {:.1f}, "
                   "optimizer {:.1f}, activations {:.1f}, other {:.1f}",
                   r.peak_memory_stage, m.total_bytes / kGiB, c.gpu.hbm_bytes / kGiB, m.weights_bytes / kGiB,
                   m.gradients_bytes / kGiB, m.optimizer_bytes / kGiB, m.activations_bytes / kGiB, m.other_bytes / kGiB));
  line(fmt::format("    runtime: CUDA context {:.2f}, NCCL buffers {:.2f}, cuBLAS workspaces {:.2f}, "
                   "allocator fragmentation {:.2f}",
                   m.cuda_context_bytes / kGiB, m.nccl_bytes / kGiB, m.workspace_bytes / kGiB,
                   m.fragmentation_bytes / kGiB));
  // What a training log's torch.cuda.max_memory_reserved() (torchtitan's "memory") would read.
  line(fmt::format("    PyTorch's allocator reserves {:.1f} GiB of it (the CUDA context and NCCL's buffers are outside)",
                   m.allocator_reserved_bytes() / kGiB));
  line(fmt::format("  fits in memory: {}", r.fits_in_memory ? "yes" : "NO"));
  for (const std::string& note : r.notes) line("  note: " + note);
  return out;
}

}  // namespace clustersim::tools
